package dev.spool.queue.tools;

import dev.spool.queue.SpoolException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static dev.spool.queue.format.TypedExcerptDescriptor.EVENTS_ID_OFFSET;
import static dev.spool.queue.format.TypedExcerptDescriptor.HEADER_LENGTH;
import static dev.spool.queue.format.TypedExcerptDescriptor.MAGIC;
import static dev.spool.queue.format.TypedExcerptDescriptor.METHOD_ID_OFFSET;
import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_FILE_SUFFIX;
import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_HEADER;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_BOOLEAN;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_BYTE;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_BYTES;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_CHAR;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_DOUBLE;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_ENUM;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_FIXED_BYTES;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_FIXED_STRING;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_FLOAT;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_INT;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_LONG;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_MARSHALLABLE;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_MESSAGE;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_SHORT;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_STRING;
import static dev.spool.queue.format.TypedExcerptDescriptor.tagName;

/**
 * The schemas of the typed excerpts in a queue directory (the {@code *.spool-schema} files method writers store
 * there), and the text {@code dump} and {@code tail} print for a typed excerpt:
 * {@code OrderEvents.newOrder(order={id=17, instrument="EURUSD", side=SELL})}. The payload's tags carry the types,
 * so an excerpt prints even without its schema (as {@code events#41166.method#7(#0=17)}) or with an older or newer
 * one (unknown fields by position); damage prints as {@code !!} and what was wrong.
 */
final class TypedSchemas {
    private final Map<Integer, Events> events = new HashMap<>();
    private final Map<String, List<Entry>> messages = new HashMap<>();

    private record Entry(String name, String type) {
        /** @return the part of the type word after its kind: a class name, or an enum's class and constants. */
        String argument() {
            final int colon = type.indexOf(':');
            return colon < 0 ? "" : type.substring(colon + 1);
        }
    }

    private record Events(String name, Map<Integer, String> methodNames, Map<Integer, List<Entry>> parameters) {
    }

    /**
     * @param directory a queue directory.
     * @return its schemas; none if it has no schema file.
     * @throws SpoolException naming the file if one cannot be read or parsed.
     */
    static TypedSchemas load(final Path directory) {
        final TypedSchemas schemas = new TypedSchemas();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + SCHEMA_FILE_SUFFIX)) {
            for (final Path file : files) {
                schemas.parse(file, Files.readAllLines(file, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new SpoolException("cannot read the typed schemas of " + directory + ": " + e, e);
        }
        return schemas;
    }

    /**
     * @param file  where the text came from, for errors.
     * @param lines the schema text's lines.
     */
    void parse(final Path file, final List<String> lines) {
        if (lines.isEmpty() || !lines.get(0).equals(SCHEMA_HEADER)) {
            throw new SpoolException("typed schema " + file + " does not start with \"" + SCHEMA_HEADER + "\"");
        }
        Events current = null;
        List<Entry> entries = null;
        for (int i = 1; i < lines.size(); i++) {
            final String[] words = lines.get(i).trim().split(" ");
            try {
                if (lines.get(i).startsWith("  ") && entries != null) {
                    entries.add(new Entry(words[0], words[1]));
                } else if (words[0].equals("events")) {
                    current = new Events(simpleName(words[1]), new HashMap<>(), new HashMap<>());
                    events.put(Integer.parseInt(words[2]), current);
                } else if (words[0].equals("method") && current != null) {
                    final int id = Integer.parseInt(words[1]);
                    current.methodNames().put(id, words[2]);
                    entries = new ArrayList<>();
                    current.parameters().put(id, entries);
                } else if (words[0].equals("message")) {
                    entries = new ArrayList<>();
                    messages.put(words[1], entries);
                } else if (!lines.get(i).isBlank()) {
                    throw new SpoolException("unexpected line");
                }
            } catch (RuntimeException e) {
                throw new SpoolException("typed schema " + file + " line " + (i + 1) + " cannot be parsed: \""
                        + lines.get(i) + "\" (" + e.getMessage() + ")", e);
            }
        }
    }

    /**
     * @param payload holds the excerpt's payload from 0.
     * @param length  its length.
     * @return the excerpt as text, or null if it is not a typed excerpt.
     */
    String format(final byte[] payload, final int length) {
        final ByteBuffer buffer = ByteBuffer.wrap(payload, 0, length).order(ByteOrder.LITTLE_ENDIAN);
        if (length < HEADER_LENGTH || Short.toUnsignedInt(buffer.getShort(0)) != MAGIC) {
            return null;
        }
        final int eventsId = Short.toUnsignedInt(buffer.getShort(EVENTS_ID_OFFSET));
        final int methodId = Short.toUnsignedInt(buffer.getShort(METHOD_ID_OFFSET));
        final Events known = events.get(eventsId);
        final String methodName = known == null ? null : known.methodNames().get(methodId);
        final StringBuilder text = new StringBuilder();
        text.append(known == null ? "events#" + eventsId : known.name()).append('.')
                .append(methodName == null ? "method#" + methodId : methodName).append('(');
        buffer.position(HEADER_LENGTH);
        try {
            fields(buffer, length, methodName == null ? List.of() : known.parameters().get(methodId), text);
            text.append(')');
        } catch (SpoolException | IllegalStateException | IndexOutOfBoundsException | java.nio.BufferUnderflowException e) {
            text.append(" !! ").append(e.getMessage() == null ? "cut short" : e.getMessage())
                    .append(" at offset ").append(buffer.position());
        }
        return text.toString();
    }

    private void fields(final ByteBuffer buffer, final int end, final List<Entry> entries, final StringBuilder text) {
        for (int i = 0; buffer.position() < end; i++) {
            final Entry entry = i < entries.size() ? entries.get(i) : null;
            if (i > 0) {
                text.append(", ");
            }
            text.append(entry == null ? "#" + i : entry.name()).append('=');
            value(buffer, entry, text);
        }
    }

    private void value(final ByteBuffer buffer, final Entry entry, final StringBuilder text) {
        final byte tag = buffer.get();
        switch (tag) {
            case TAG_BOOLEAN -> text.append(buffer.get() != 0);
            case TAG_BYTE -> text.append(buffer.get());
            case TAG_SHORT -> text.append(buffer.getShort());
            case TAG_CHAR -> text.append('\'').append(buffer.getChar()).append('\'');
            case TAG_INT -> text.append(buffer.getInt());
            case TAG_LONG -> text.append(buffer.getLong());
            case TAG_FLOAT -> text.append(buffer.getFloat());
            case TAG_DOUBLE -> text.append(buffer.getDouble());
            case TAG_ENUM -> {
                final int ordinal = Short.toUnsignedInt(buffer.getShort());
                final String[] constants = entry != null && entry.type().startsWith("enum:")
                        ? entry.argument().substring(entry.argument().indexOf(':') + 1).split(",") : new String[0];
                text.append(ordinal < constants.length ? constants[ordinal] : "ordinal " + ordinal);
            }
            case TAG_STRING -> text.append('"').append(new String(region(buffer, buffer.getInt()), StandardCharsets.UTF_8)).append('"');
            case TAG_FIXED_STRING -> {
                final String value = new String(region(buffer, Short.toUnsignedInt(buffer.getShort())), StandardCharsets.ISO_8859_1);
                final int zero = value.indexOf('\0');
                text.append('"').append(zero < 0 ? value : value.substring(0, zero)).append('"');
            }
            case TAG_BYTES, TAG_MARSHALLABLE -> text.append("0x").append(HexFormat.of().formatHex(region(buffer, buffer.getInt())));
            case TAG_FIXED_BYTES -> text.append("0x").append(HexFormat.of().formatHex(region(buffer, Short.toUnsignedInt(buffer.getShort()))));
            case TAG_MESSAGE -> {
                final int length = buffer.getInt();
                final int end = buffer.position() + length;
                if (length < 0 || end > buffer.limit()) {
                    throw new SpoolException("a message of length=" + length + " runs past the end");
                }
                final List<Entry> fields = entry != null && entry.type().startsWith("message:")
                        ? messages.getOrDefault(entry.argument(), List.of()) : List.of();
                text.append('{');
                fields(buffer, end, fields, text);
                text.append('}');
                buffer.position(end);
            }
            default -> throw new SpoolException("unknown " + tagName(tag));
        }
    }

    private static byte[] region(final ByteBuffer buffer, final int length) {
        if (length < 0 || length > buffer.remaining()) {
            throw new SpoolException("a field of length=" + length + " runs past the end");
        }
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }

    private static String simpleName(final String qualified) {
        return qualified.substring(qualified.lastIndexOf('.') + 1);
    }
}
