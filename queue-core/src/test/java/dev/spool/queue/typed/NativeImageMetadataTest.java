package dev.spool.queue.typed;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.SchemaFiles;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GraalVM native-image metadata the processor generated for the test interfaces names exactly what
 * {@link TypedMessages} looks up by reflection: every class resolves, and the constructors and field it names exist
 * with those parameter types on the classes {@code TypedMessages} really creates. No native image is built here (no
 * GraalVM on the build machines): this checks the metadata against the reflective calls instead, and fails if
 * {@code TypedMessages} starts making a reflective call the metadata does not cover.
 */
class NativeImageMetadataTest {
    /**
     * Every call {@code TypedMessages} makes on {@link Class} and {@code java.lang.reflect}, and what makes it work in
     * a native image. A call added to {@code TypedMessages} fails {@link #shouldCoverEveryReflectiveCallTypedMessagesMakes}
     * until it is listed here, with the metadata entry (or the reason none is needed) that covers it.
     */
    private static final Map<String, String> REFLECTIVE_CALLS = Map.ofEntries(
            Map.entry("Class.forName", "the writer's and the reader's entries (\"name\")"),
            Map.entry("Class.getConstructor", "the writer's and the reader's \"methods\": <init>"),
            Map.entry("reflect/Constructor.newInstance", "the same <init> entries: registered to be invoked"),
            Map.entry("Class.getField", "the writer's \"fields\": SCHEMA"),
            Map.entry("reflect/Field.get", "the same field entry"),
            Map.entry("Class.isAnnotationPresent", "the interface's entry"),
            Map.entry("reflect/InvocationTargetException.getCause", "none: an exception's cause"),
            Map.entry("Class.getInterfaces", "none: a class's supertypes are in every native image"),
            Map.entry("Class.getSuperclass", "none: likewise"),
            Map.entry("Class.isInterface", "none: likewise"),
            Map.entry("Class.isInstance", "none: likewise"),
            Map.entry("Class.cast", "none: likewise"),
            Map.entry("Class.getName", "none: names are in every native image"),
            Map.entry("Class.getPackageName", "none: likewise"),
            Map.entry("Class.getCanonicalName", "none: likewise"),
            Map.entry("Class.getClassLoader", "none: works on every class in a native image"));

    @TempDir
    Path directory;

    @Test
    void shouldNameExactlyWhatTypedMessagesLooksUpForATopLevelInterface() {
        assertNamesWhatTypedMessagesCreates(OrderEvents.class);
    }

    @Test
    void shouldNameExactlyWhatTypedMessagesLooksUpForANestedInterface() {
        assertEquals("dev.spool.queue.typed.Evolution$V2", Evolution.V2.class.getName());
        assertNamesWhatTypedMessagesCreates(Evolution.V2.class);
    }

    @Test
    void shouldCoverEveryReflectiveCallTypedMessagesMakes() {
        assertEquals(new TreeSet<>(REFLECTIVE_CALLS.keySet()), reflectiveCalls(TypedMessages.class),
                "TypedMessages' reflective calls changed: list each new one in REFLECTIVE_CALLS with what covers it "
                        + "in a native image, and have the processor's NativeImageMetadata generate that");
    }

    private void assertNamesWhatTypedMessagesCreates(final Class<?> events) {
        final Object writer = TypedMessages.writer(events, new UnusedSink(), schemaFiles());
        final String writerName = writer.getClass().getName();
        assertTrue(writerName.endsWith(TypedMessages.WRITER_SUFFIX), writerName);
        final String readerName = writerName.substring(0, writerName.length() - TypedMessages.WRITER_SUFFIX.length())
                + TypedMessages.READER_SUFFIX;
        final Object target = Proxy.newProxyInstance(events.getClassLoader(), new Class<?>[]{events}, (p, m, a) -> null);
        assertNotNull(TypedMessages.reader(handler -> false, events, target), "TypedMessages created the reader");

        // the exact text: its JSON is checked by the processor's own test, with a parser
        assertEquals("[\n"
                + "  {\n"
                + "    \"name\": \"" + events.getName() + "\"\n"
                + "  },\n"
                + "  {\n"
                + "    \"name\": \"" + writerName + "\",\n"
                + "    \"fields\": [{\"name\": \"" + TypedMessages.SCHEMA_FIELD + "\"}],\n"
                + "    \"methods\": [{\"name\": \"<init>\", \"parameterTypes\": [\"" + ExcerptSink.class.getName() + "\"]}]\n"
                + "  },\n"
                + "  {\n"
                + "    \"name\": \"" + readerName + "\",\n"
                + "    \"methods\": [{\"name\": \"<init>\", \"parameterTypes\": [\"" + events.getName() + "\"]}]\n"
                + "  }\n"
                + "]\n", metadata(events));

        final Class<?> named = resolve(events.getName(), events);
        assertSame(events, named);
        assertTrue(named.isAnnotationPresent(Events.class));
        final Class<?> writerClass = resolve(writerName, events);
        assertSame(writer.getClass(), writerClass, "the metadata names the writer TypedMessages creates");
        assertField(writerClass, TypedMessages.SCHEMA_FIELD);
        assertConstructor(writerClass, ExcerptSink.class);
        final Class<?> readerClass = resolve(readerName, events);
        assertTrue(TypedDecoder.class.isAssignableFrom(readerClass), readerClass + " decodes");
        assertConstructor(readerClass, events);
    }

    /** The constructor the metadata names exists, public (as getConstructor needs), with exactly this parameter. */
    private static void assertConstructor(final Class<?> type, final Class<?> parameter) {
        try {
            assertTrue(Modifier.isPublic(type.getConstructor(parameter).getModifiers()));
        } catch (NoSuchMethodException e) {
            throw new AssertionError(type.getName() + " has no public constructor(" + parameter.getName() + ")", e);
        }
    }

    private static void assertField(final Class<?> type, final String name) {
        try {
            final int modifiers = type.getField(name).getModifiers();
            assertTrue(Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers), name + " is public static");
        } catch (NoSuchFieldException e) {
            throw new AssertionError(type.getName() + " has no public field " + name, e);
        }
    }

    /** @return the class a metadata name denotes, as native-image resolves it: by binary name. */
    private static Class<?> resolve(final Object name, final Class<?> context) {
        try {
            return Class.forName((String) name, false, context.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError("the metadata names " + name + ", which is no class", e);
        }
    }

    /** @return the metadata of {@code events} from the class path, where native-image reads it. */
    private static String metadata(final Class<?> events) {
        final String path = "META-INF/native-image/dev.spool/typed/" + events.getName() + "/reflect-config.json";
        final URL resource = events.getClassLoader().getResource(path);
        assertNotNull(resource, "no " + path + " on the class path: did spool-processor run?");
        try (InputStream in = resource.openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + resource, e);
        }
    }

    /**
     * @return the methods of {@code Class} and {@code java.lang.reflect} that {@code type}'s bytecode calls, as
     * {@code Class.forName} or {@code reflect/Field.get}, read with javap.
     */
    private static Set<String> reflectiveCalls(final Class<?> type) {
        final URL classFile = type.getResource(type.getSimpleName() + ".class");
        assertNotNull(classFile);
        final ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow(() -> new AssertionError("no javap"));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        assertEquals(0, javap.run(new PrintWriter(out), new PrintWriter(err), "-c", "-p", classFile.toString()),
                err.toString());
        final Set<String> calls = new TreeSet<>();
        final Matcher call = Pattern.compile("// (?:Interface)?Method java/lang/(Class|reflect/\\w+)\\.(\\w+)")
                .matcher(out.toString());
        while (call.find()) {
            calls.add(call.group(1) + "." + call.group(2));
        }
        return calls;
    }

    /** @return the schema files of the test's directory, counted in memory. */
    private SchemaFiles schemaFiles() {
        return new SchemaFiles(directory, PosixFilePermissions.fromString("rw-r-----"), new SchemaFiles.Generation() {
            private long generation;

            @Override
            public long schemaGeneration() {
                return generation;
            }

            @Override
            public void incrementSchemaGeneration() {
                generation++;
            }

            @Override
            public void checkWritable(final String what) {
                // a directory of the test's own: always writable
            }
        });
    }

    /** A sink the writer is created over and never called on. */
    private static final class UnusedSink implements ExcerptSink {
        @Override
        public long claim(final int length, final String method) {
            throw new SpoolException("not written to");
        }

        @Override
        public BytesStore<?, ?> bytes() {
            throw new SpoolException("not written to");
        }

        @Override
        public boolean commit(final int length) {
            throw new SpoolException("not written to");
        }

        @Override
        public void rollback() {
            throw new SpoolException("not written to");
        }
    }
}
