package dev.spool.processor;

import org.junit.jupiter.api.Test;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The processor fails the build, on the offending element, with a message naming the method and why, for every
 * interface it cannot encode. Compiles in memory with javac, against stand-ins for queue-core's annotations (the
 * processor knows them by name only).
 */
class EventsProcessorTest {
    static final String ANNOTATIONS = """
            package dev.spool.queue.typed;
            import java.lang.annotation.*;
            @Retention(RetentionPolicy.RUNTIME) @Target(ElementType.TYPE) public @interface Events { int id() default 0; }
            """;
    static final String METHOD_ID = """
            package dev.spool.queue.typed;
            public @interface MethodId { int value(); }
            """;
    static final String FIXED = """
            package dev.spool.queue.typed;
            public @interface Fixed { int value(); }
            """;

    @Test
    void shouldFailTheBuildNamingTheMethodAndTheParameterThatCannotBeEncoded() {
        final List<String> errors = errors("""
                package app;
                @dev.spool.queue.typed.Events
                interface Bad { void orders(java.util.List<String> items); }
                """);
        assertEquals(List.of("Bad.orders: parameter items of type java.util.List<java.lang.String> cannot be encoded: "
                + "not a primitive, enum, CharSequence/StringBuilder, byte[], Bytes<?>, concrete message class or "
                + "BytesMarshallable"), errors);
    }

    @Test
    void shouldRefuseAStringBecauseItWouldBeAllocatedOnEveryRead() {
        final List<String> errors = errors("""
                package app;
                @dev.spool.queue.typed.Events
                interface Bad { void note(String text); }
                """);
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("Bad.note: parameter text of type java.lang.String cannot be encoded without "
                + "garbage: a String would be allocated on every read; declare CharSequence"), errors.get(0));
    }

    @Test
    void shouldRefuseAMethodThatReturnsAValue() {
        assertEquals(List.of("Bad.next: returns long: a method writer appends and cannot return a value; declare it void"),
                errors("""
                        package app;
                        @dev.spool.queue.typed.Events
                        interface Bad { long next(long id); }
                        """));
    }

    @Test
    void shouldRefuseTwoMethodsWithOneId() {
        assertEquals(List.of("Bad.b: method id 3 is also the id of Bad.a; pin distinct ids with @MethodId"), errors("""
                package app;
                import dev.spool.queue.typed.MethodId;
                @dev.spool.queue.typed.Events
                interface Bad { @MethodId(3) void a(int x); @MethodId(3) void b(int x); }
                """));
    }

    @Test
    void shouldRefuseOverloadsWithoutPinnedIds() {
        final List<String> errors = errors("""
                package app;
                @dev.spool.queue.typed.Events
                interface Bad { void a(int x); void a(long x); }
                """);
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("Bad.a: method id ") && errors.get(0).endsWith("pin distinct ids with @MethodId"),
                errors.get(0));
    }

    @Test
    void shouldRefuseAByteArrayWithoutFixedLength() {
        final List<String> errors = errors("""
                package app;
                @dev.spool.queue.typed.Events
                interface Bad { void blob(byte[] data); }
                """);
        assertEquals(List.of("Bad.blob: parameter data of type byte[] needs @Fixed(length): a byte[] of varying length "
                + "would be allocated on every read; use Bytes<?> for varying lengths"), errors);
    }

    @Test
    void shouldRefuseAPrivateOrFinalMessageFieldNamingItsPath() {
        final List<String> errors = errors("""
                package app;
                @dev.spool.queue.typed.Events
                interface Bad { void order(Order order); }
                class Order { long id; private long quantity; }
                """);
        assertEquals(List.of("Bad.order: field order.quantity of app.Order is private or final: the generated code "
                + "writes and reads message fields directly; make it non-private and non-final, or transient to leave it out"),
                errors);
    }

    @Test
    void shouldRefuseAMessageThatContainsItself() {
        final List<String> errors = errors("""
                package app;
                @dev.spool.queue.typed.Events
                interface Bad { void node(Node node); }
                class Node { long id; Node next; }
                """);
        assertEquals(List.of("Bad.node: field node.next of type app.Node cannot be encoded: message app.Node contains itself"),
                errors);
    }

    @Test
    void shouldRefuseAMessageWithoutANoArgumentConstructor() {
        final List<String> errors = errors("""
                package app;
                @dev.spool.queue.typed.Events
                interface Bad { void order(Order order); }
                class Order { long id; Order(long id) { this.id = id; } }
                """);
        assertEquals(List.of("Bad.order: parameter order of type app.Order: app.Order needs a non-private no-argument "
                + "constructor, for the one instance the reader reuses"), errors);
    }

    /** @return the error messages of compiling {@code source} (plus the annotations) with the processor only. */
    private static List<String> errors(final String source) {
        final JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        final DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        final List<JavaFileObject> sources = List.of(
                new Source("dev/spool/queue/typed/Events", ANNOTATIONS),
                new Source("dev/spool/queue/typed/MethodId", METHOD_ID),
                new Source("dev/spool/queue/typed/Fixed", FIXED),
                new Source("app/Bad", source));
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            final JavaCompiler.CompilationTask task = compiler.getTask(null, files, diagnostics,
                    List.of("-proc:only"), null, sources);
            task.setProcessors(List.of(new EventsProcessor()));
            assertEquals(false, task.call(), "the build fails");
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        final List<String> errors = new ArrayList<>();
        for (final Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
            if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                errors.add(diagnostic.getMessage(Locale.ROOT));
            }
        }
        return errors;
    }

    /** A source file held in memory. */
    static final class Source extends SimpleJavaFileObject {
        private final String text;

        Source(final String name, final String text) {
            super(URI.create("string:///" + name + Kind.SOURCE.extension), Kind.SOURCE);
            this.text = text;
        }

        @Override
        public CharSequence getCharContent(final boolean ignoreEncodingErrors) {
            return text;
        }
    }
}
