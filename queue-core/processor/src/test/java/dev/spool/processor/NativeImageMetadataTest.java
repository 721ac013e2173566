package dev.spool.processor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The processor writes, beside the generated writer and reader of every {@code @Events} interface, the GraalVM
 * native-image reflection metadata that {@code TypedMessages} needs to create them: valid JSON, naming the classes by
 * their binary names. Compiles in memory with javac, against stand-ins for queue-core's annotations.
 */
class NativeImageMetadataTest {
    private static final String SINK = "dev.spool.queue.typed.ExcerptSink";

    @TempDir
    Path output;

    @Test
    void shouldNameTheWriterTheReaderAndTheInterfaceOfATopLevelInterface() throws IOException {
        assertEquals(List.of(), compile("app/OrderEvents", """
                package app;
                @dev.spool.queue.typed.Events
                public interface OrderEvents { void cancel(long orderId); }
                """));
        assertEquals(expected("app.OrderEvents", "app.OrderEventsSpoolWriter", "app.OrderEventsSpoolReader"),
                Json.parse(read("app.OrderEvents")));
    }

    @Test
    void shouldNameANestedInterfaceByItsBinaryName() throws IOException {
        assertEquals(List.of(), compile("app/Outer", """
                package app;
                public class Outer {
                    @dev.spool.queue.typed.Events
                    public interface Events { void cancel(long orderId); }
                }
                """));
        assertEquals(expected("app.Outer$Events", "app.Outer_EventsSpoolWriter", "app.Outer_EventsSpoolReader"),
                Json.parse(read("app.Outer$Events")));
    }

    @Test
    void shouldNameTheGeneratedClassesOfAnInterfaceInTheUnnamedPackage() throws IOException {
        assertEquals(List.of(), compile("Plain", """
                @dev.spool.queue.typed.Events
                public interface Plain { void cancel(long orderId); }
                """));
        assertEquals(expected("Plain", "PlainSpoolWriter", "PlainSpoolReader"), Json.parse(read("Plain")));
    }

    @Test
    void shouldWriteANameOutsideAsciiAsEscapesThatReadBackToTheName() throws IOException {
        assertEquals(List.of(), compile("app/Ordres", """
                package app;
                public class Ordres {
                    @dev.spool.queue.typed.Events
                    public interface \u00c9v\u00e9nements { void annuler(long id); }
                }
                """));
        final String json = read("app.Ordres$\u00c9v\u00e9nements");
        assertTrue(json.chars().allMatch(c -> c >= 0x20 && c <= 0x7E || c == '\n'), json);
        assertTrue(json.contains("\\u00c9v\\u00e9nements"), json);
        assertEquals(expected("app.Ordres$\u00c9v\u00e9nements", "app.Ordres_\u00c9v\u00e9nementsSpoolWriter",
                "app.Ordres_\u00c9v\u00e9nementsSpoolReader"), Json.parse(json));
    }

    @Test
    void shouldQuoteQuotesBackslashesAndControlCharactersAsJson() {
        final String text = "a\"b\\c\n\u0001\u00e9$";
        final String quoted = NativeImageMetadata.quote(text);
        assertEquals("\"a\\\"b\\\\c\\u000a\\u0001\\u00e9$\"", quoted);
        assertEquals(text, Json.parse(quoted));
    }

    @Test
    void shouldWriteNoMetadataForAnInterfaceThatFailsTheBuild() throws IOException {
        final List<String> errors = compile("app/Bad", """
                package app;
                @dev.spool.queue.typed.Events
                public interface Bad { long next(long id); }
                """);
        assertEquals(1, errors.size(), errors.toString());
        assertFalse(Files.exists(output.resolve("META-INF")), "no metadata for an interface with no writer");
    }

    @Test
    void shouldRefuseWhatIsNotJsonInTheTestsReader() {
        // the reader the tests above trust: it must fail where the generated text would be wrong
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[{\"name\": \"a\"},]"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"name\": \"a\\q\"}"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[\"a\"] ["));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"name\": \"a\", \"name\": \"b\"}"));
    }

    /** @return the metadata file's content, as {@code TypedMessages} must find it: per interface, by binary name. */
    private static List<Object> expected(final String events, final String writer, final String reader) {
        return List.of(
                Map.of("name", events),
                Map.of("name", writer,
                        "fields", List.of(Map.of("name", "SCHEMA")),
                        "methods", List.of(Map.of("name", "<init>", "parameterTypes", List.of(SINK)))),
                Map.of("name", reader,
                        "methods", List.of(Map.of("name", "<init>", "parameterTypes", List.of(events)))));
    }

    private String read(final String events) throws IOException {
        final Path file = output.resolve("META-INF/native-image/dev.spool/typed/" + events + "/reflect-config.json");
        try (Stream<Path> written = Files.walk(output.resolve("META-INF"))) {
            assertEquals(List.of(file), written.filter(Files::isRegularFile).toList(), "the one metadata file");
        }
        return Files.readString(file, StandardCharsets.US_ASCII);
    }

    /**
     * @return the errors of running the processor on {@code source}, writing what it generates to the output. Errors
     * in the generated code (which uses queue-core types that have no stand-ins here) are not the processor's.
     */
    private List<String> compile(final String name, final String source) throws IOException {
        final JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        final DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        final List<JavaFileObject> sources = List.of(
                new EventsProcessorTest.Source("dev/spool/queue/typed/Events", EventsProcessorTest.ANNOTATIONS),
                new EventsProcessorTest.Source("dev/spool/queue/typed/MethodId", EventsProcessorTest.METHOD_ID),
                new EventsProcessorTest.Source("dev/spool/queue/typed/Fixed", EventsProcessorTest.FIXED),
                new EventsProcessorTest.Source(name, source));
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            final JavaCompiler.CompilationTask task = compiler.getTask(null, files, diagnostics,
                    List.of("-proc:only", "-d", output.toString()), null, sources);
            task.setProcessors(List.of(new EventsProcessor()));
            task.call();
        }
        return diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR && sources.contains(d.getSource()))
                .map(d -> d.getMessage(Locale.ROOT)).toList();
    }
}
