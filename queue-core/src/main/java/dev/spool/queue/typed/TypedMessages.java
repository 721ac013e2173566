package dev.spool.queue.typed;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.SchemaFiles;

import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_FILE_SUFFIX;

/**
 * Finds the writer and reader the {@code spool-processor} generated for an {@link Events} interface, by name, once
 * per writer or reader created: for {@code com.example.OrderEvents} they are {@code com.example.OrderEventsSpoolWriter}
 * and {@code com.example.OrderEventsSpoolReader} (a nested interface {@code Outer.Events} gives
 * {@code Outer_EventsSpoolWriter}). No reflection after creation. Used by the appenders' and tailers'
 * {@code methodWriter} and {@code methodReader}; public for the ring's async appender and tailer.
 */
public final class TypedMessages {
    /** Suffix of a generated writer's class name. */
    public static final String WRITER_SUFFIX = "SpoolWriter";
    /** Suffix of a generated reader's class name. */
    public static final String READER_SUFFIX = "SpoolReader";
    /** Name of the generated writer's static field that holds the interface's schema text. */
    public static final String SCHEMA_FIELD = "SCHEMA";

    private TypedMessages() {
    }

    /**
     * Creates the generated writer of {@code events} over {@code sink}, and stores its schema among the queue's
     * schema files for {@code dump}, {@code tail} and replicas, if the file there differs.
     *
     * @param events  an interface annotated {@link Events}.
     * @param sink    where the writer's excerpts go.
     * @param schemas the schema files of the queue's directory.
     * @param <T>       the interface.
     * @return an implementation of {@code events} whose every call appends one excerpt.
     * @throws SpoolException if {@code events} is not an {@link Events} interface or has no generated writer.
     */
    public static <T> T writer(final Class<T> events, final ExcerptSink sink, final SchemaFiles schemas) {
        final Class<?> type = generated(events, WRITER_SUFFIX);
        try {
            schemas.store(events.getCanonicalName() + SCHEMA_FILE_SUFFIX,
                    ((String) type.getField(SCHEMA_FIELD).get(null)).getBytes(StandardCharsets.UTF_8));
            return events.cast(type.getConstructor(ExcerptSink.class).newInstance(sink));
        } catch (NoSuchMethodException | NoSuchFieldException | IllegalAccessException | InstantiationException e) {
            throw new SpoolException(type.getName() + " is not a writer the spool-processor generates: " + e, e);
        } catch (InvocationTargetException e) {
            throw new SpoolException("cannot create " + type.getName() + ": " + e.getCause(), e.getCause());
        }
    }

    /**
     * @param source reads the excerpts.
     * @param target implements exactly one {@link Events} interface.
     * @return a reader calling {@code target}.
     * @throws SpoolException if {@code target} implements no {@link Events} interface, or several.
     */
    public static MethodReader reader(final ExcerptSource source, final Object target) {
        final List<Class<?>> found = new ArrayList<>();
        for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
            collectEvents(type, found);
        }
        if (found.size() != 1) {
            throw new SpoolException(target.getClass().getName() + " implements " + (found.isEmpty()
                    ? "no @Events interface" : "several @Events interfaces " + found
                    + ": pass the one to read, as methodReader(Events.class, impl)"));
        }
        return reader(source, found.get(0), target);
    }

    /**
     * @param source reads the excerpts.
     * @param events the {@link Events} interface to read.
     * @param target its implementation.
     * @param <T>    the interface.
     * @return a reader calling {@code target}.
     */
    public static <T> MethodReader reader(final ExcerptSource source, final Class<T> events, final Object target) {
        final Class<?> type = generated(events, READER_SUFFIX);
        if (!events.isInstance(target)) {
            throw new SpoolException(target.getClass().getName() + " does not implement " + events.getName());
        }
        try {
            return new MethodReader(source, (TypedDecoder) type.getConstructor(events).newInstance(target));
        } catch (NoSuchMethodException | IllegalAccessException | InstantiationException | ClassCastException e) {
            throw new SpoolException(type.getName() + " is not a reader the spool-processor generates: " + e, e);
        } catch (InvocationTargetException e) {
            throw new SpoolException("cannot create " + type.getName() + ": " + e.getCause(), e.getCause());
        }
    }

    private static void collectEvents(final Class<?> type, final List<Class<?>> found) {
        for (final Class<?> implemented : type.getInterfaces()) {
            if (implemented.isAnnotationPresent(Events.class) && !found.contains(implemented)) {
                found.add(implemented);
            }
            collectEvents(implemented, found);
        }
    }

    private static Class<?> generated(final Class<?> events, final String suffix) {
        if (!events.isInterface() || !events.isAnnotationPresent(Events.class)) {
            throw new SpoolException(events.getName() + " is not an interface annotated @Events");
        }
        final String packageName = events.getPackageName();
        final String simple = events.getName().substring(packageName.isEmpty() ? 0 : packageName.length() + 1)
                .replace('$', '_');
        final String name = (packageName.isEmpty() ? "" : packageName + ".") + simple + suffix;
        try {
            return Class.forName(name, true, events.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new SpoolException("no generated " + name + " for " + events.getName()
                    + ": is spool-processor on the compiler's annotation processor path? (see docs/operations/typed-messages.md)", e);
        }
    }
}
