package dev.spool.queue;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The library itself keeps Chronicle's INFO lines out of the log, with no flag on the command line, and leaves the
 * settings a user made alone. Runs child JVMs with slf4j-simple and none of the tests' logging configuration.
 */
class QuietLoggingTest extends SpoolTestBase {

    /** {@code dir}: opens a new queue, appends, closes; prints DONE. */
    public static final class OpenAppendClose {
        public static void main(final String[] args) {
            try (SpoolQueue queue = SpoolQueue.builder(Path.of(args[0])).chunkLength(1 << 20).openOrCreate();
                 ExcerptAppender appender = queue.createAppender()) {
                appender.append(new byte[8]);
            }
            System.out.println("DONE");
        }
    }

    @Test
    void shouldKeepChronicleInfoLinesOutOfTheLogWithoutAnyFlag() throws Exception {
        final String stderr = run();
        assertFalse(stderr.contains("Chronicle core loaded"), stderr);
        assertFalse(stderr.contains("INFO net.openhft"), stderr);
    }

    @Test
    void shouldLeaveChronicleLoggingAsTheUserSetIt() throws Exception {
        final String stderr = run("-Dorg.slf4j.simpleLogger.log.net.openhft=info");
        assertTrue(stderr.contains("Chronicle core loaded"), "a user's explicit level wins: " + stderr);
    }

    /** @param options JVM options for the child, given through JAVA_TOOL_OPTIONS as a user's command line would. */
    private String run(final String... options) throws IOException, InterruptedException {
        final Path stderr = tempDir.resolve("child.err");
        final List<String> prefix = new ArrayList<>(List.of("env"));
        if (options.length > 0) {
            prefix.add("JAVA_TOOL_OPTIONS=" + String.join(" ", options));
        }
        try (ChildJvm child = ChildJvm.startWrapped(prefix, classPathWithoutTestLogging(), OpenAppendClose.class,
                stderr, tempDir.resolve("q").toString())) {
            assertEquals("DONE", child.awaitLine("DONE", 60, TimeUnit.SECONDS));
            assertEquals(0, child.awaitExit(60, TimeUnit.SECONDS), child.stderrTail());
        }
        return Files.readString(stderr);
    }

    /** @return the class path with the test classes copied without their simplelogger.properties. */
    private String classPathWithoutTestLogging() throws IOException {
        final List<String> entries = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            final Path path = Path.of(entry);
            if (Files.isDirectory(path) && Files.exists(path.resolve("simplelogger.properties"))) {
                final Path copy = tempDir.resolve("classes-" + entries.size());
                try (Stream<Path> files = Files.walk(path)) {
                    for (final Path file : (Iterable<Path>) files::iterator) {
                        final Path target = copy.resolve(path.relativize(file).toString());
                        if (Files.isDirectory(file)) {
                            Files.createDirectories(target);
                        } else if (!file.getFileName().toString().equals("simplelogger.properties")) {
                            Files.copy(file, target);
                        }
                    }
                }
                entries.add(copy.toString());
            } else {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }
}
