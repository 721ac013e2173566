package dev.spool.processor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The schema text of an {@code @Events} interface, which the generated writer stores in the queue directory and
 * {@code dump} and {@code tail} read (format in docs/file-format.md): one line for the interface, one per method
 * followed by its parameters, one per message class followed by its fields; each parameter or field is a name and
 * a type word ({@code long}, {@code fixed-string:8}, {@code enum:com.x.Side:BUY,SELL}, {@code message:com.x.Leg}).
 */
final class SchemaText {
    static final String FIRST_LINE = "spool-schema 1";

    private SchemaText() {
    }

    static String of(final EventsModel model) {
        final StringBuilder text = new StringBuilder(FIRST_LINE).append('\n');
        text.append("events ").append(model.type().getQualifiedName()).append(' ').append(model.id()).append('\n');
        final Map<String, Field> messages = new LinkedHashMap<>();
        for (final Method method : model.methods()) {
            text.append("method ").append(method.id()).append(' ').append(method.name()).append('\n');
            for (final Field parameter : method.parameters()) {
                line(text, parameter, messages);
            }
        }
        // each message once, in the order first met; lines of a message may add the messages nested in it
        final List<Field> written = new ArrayList<>();
        while (written.size() < messages.size()) {
            final Field message = List.copyOf(messages.values()).get(written.size());
            written.add(message);
            text.append("message ").append(message.element().getQualifiedName()).append('\n');
            for (final Field field : message.fields()) {
                line(text, field, messages);
            }
        }
        return text.toString();
    }

    private static void line(final StringBuilder text, final Field field, final Map<String, Field> messages) {
        text.append("  ").append(field.name()).append(' ').append(field.kind().schemaWord);
        switch (field.kind()) {
            case FIXED_STRING, FIXED_BYTES -> text.append(':').append(field.fixed());
            case ENUM -> text.append(':').append(field.element().getQualifiedName()).append(':')
                    .append(String.join(",", field.constants()));
            case MESSAGE, MARSHALLABLE -> text.append(':').append(field.element().getQualifiedName());
            default -> {
            }
        }
        text.append('\n');
        if (field.kind() == Kind.MESSAGE) {
            messages.putIfAbsent(field.element().getQualifiedName().toString(), field);
        }
    }
}
