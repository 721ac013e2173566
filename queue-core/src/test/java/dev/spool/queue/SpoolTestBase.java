package dev.spool.queue;

import dev.spool.queue.tools.SpoolTool;

import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.io.AbstractReferenceCounted;
import net.openhft.chronicle.core.onoes.ExceptionKey;
import net.openhft.chronicle.core.onoes.LogLevel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every queue-core test runs in a fresh temporary directory and fails if it leaks a mapped file or store, or if
 * Chronicle or Spool logged a warning or error the test did not declare with {@link #expectWarning(String)}.
 */
public abstract class SpoolTestBase {
    protected Path tempDir;
    private Map<ExceptionKey, Integer> chronicleExceptions;
    private final List<String> expectedWarnings = new ArrayList<>();
    private final List<String> loggedWarnings = new ArrayList<>();
    private PrintStream originalErr;

    @BeforeEach
    void setUpBase(final TestInfo info) throws IOException {
        AbstractReferenceCounted.enableReferenceTracing();
        chronicleExceptions = Jvm.recordExceptions(false, false, true);
        originalErr = System.err;
        System.setErr(new PrintStream(new WarningTee(originalErr), true, StandardCharsets.UTF_8));
        tempDir = Files.createTempDirectory("spool-" + info.getTestMethod().map(m -> m.getName()).orElse("test") + "-");
    }

    @AfterEach
    void tearDownBase() throws IOException {
        try {
            AbstractReferenceCounted.assertReferencesReleased();
        } finally {
            System.setErr(originalErr);
            AbstractReferenceCounted.disableReferenceTracing();
            Jvm.resetExceptionHandlers();
            deleteRecursively(tempDir);
        }
        final List<String> unexpected = new ArrayList<>();
        chronicleExceptions.forEach((key, count) -> {
            if (key.level() == LogLevel.WARN || key.level() == LogLevel.ERROR) {
                unexpected.add(key.level() + " " + key.message() + (key.throwable() == null ? "" : " " + key.throwable()));
            }
        });
        synchronized (loggedWarnings) {
            unexpected.addAll(loggedWarnings);
        }
        unexpected.removeIf(message -> expectedWarnings.stream().anyMatch(message::contains));
        if (!unexpected.isEmpty()) {
            fail("unexpected warnings or errors logged: " + unexpected);
        }
    }

    /** Declares that a warning containing {@code fragment} is part of the behaviour under test. */
    protected void expectWarning(final String fragment) {
        expectedWarnings.add(fragment);
    }

    /**
     * @param fragment part of a log line.
     * @return true if a WARN or ERROR line containing it was logged in this test so far: for tests that await a
     * refusal that changes nothing else they can see.
     */
    protected boolean logged(final String fragment) {
        return countLogged(fragment) > 0;
    }

    /**
     * @param fragment part of a log line.
     * @return how many WARN and ERROR lines containing it were logged in this test so far: one failure, one line.
     */
    protected long countLogged(final String fragment) {
        synchronized (loggedWarnings) {
            return loggedWarnings.stream().filter(line -> line.contains(fragment)).count();
        }
    }

    /**
     * Runs the CLI's {@code verify} on a queue and fails unless it exits {@link SpoolTool#EXIT_OK} without reporting
     * damage.
     *
     * @param directory the queue's directory.
     * @return what verify printed, for further checks.
     */
    protected static String verify(final Path directory) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status;
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            status = SpoolTool.run(new String[]{"verify", directory.toString()}, print, print);
        }
        final String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(SpoolTool.EXIT_OK, status, text);
        assertFalse(text.contains("DAMAGE"), text);
        return text;
    }

    /** @return every file under {@code directory} by relative name, with its bytes: to show a call wrote nothing. */
    protected static Map<String, byte[]> contents(final Path directory) throws IOException {
        final Map<String, byte[]> files = new java.util.TreeMap<>();
        try (Stream<Path> walk = Files.walk(directory)) {
            for (final Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(directory.relativize(file).toString(), Files.readAllBytes(file));
            }
        }
        return files;
    }

    /** Asserts that {@code directory} holds exactly the files of {@code before}, byte for byte. */
    protected static void assertUnchanged(final Map<String, byte[]> before, final Path directory) throws IOException {
        final Map<String, byte[]> after = contents(directory);
        assertEquals(before.keySet(), after.keySet(), "no file was created or deleted in " + directory);
        before.forEach((name, bytes) -> org.junit.jupiter.api.Assertions.assertArrayEquals(bytes, after.get(name),
                name + " is unchanged"));
    }

    protected static void deleteRecursively(final Path path) throws IOException {
        if (path == null || !Files.exists(path)) {
            return;
        }
        try (Stream<Path> files = Files.walk(path)) {
            for (final Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(file);
            }
        }
    }

    /** Passes stderr through and keeps the WARN and ERROR lines slf4j-simple writes there. */
    private final class WarningTee extends OutputStream {
        private final PrintStream target;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        WarningTee(final PrintStream target) {
            this.target = target;
        }

        @Override
        public synchronized void write(final int b) {
            target.write(b);
            if (b == '\n') {
                final String text = line.toString(StandardCharsets.UTF_8);
                line.reset();
                if (text.contains("] WARN ") || text.contains("] ERROR ")) {
                    synchronized (loggedWarnings) {
                        loggedWarnings.add(text);
                    }
                }
            } else {
                line.write(b);
            }
        }

        @Override
        public void flush() {
            target.flush();
        }
    }
}
