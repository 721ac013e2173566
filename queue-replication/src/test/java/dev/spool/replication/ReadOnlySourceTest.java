package dev.spool.replication;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replication source records what its replicas acknowledge in the queue's metadata, so a queue opened read-only
 * cannot have one: it is refused when built, in a child JVM where a write to the read-only mapping would kill the
 * child rather than the test, and the primary's files stay byte for byte as they were.
 */
class ReadOnlySourceTest extends SpoolTestBase {

    @Test
    void shouldRefuseASourceOnAReadOnlyQueueBeforeAnythingIsWritten() throws Exception {
        final Path primary = tempDir.resolve("primary");
        try (SpoolQueue queue = Replicas.open(primary); ExcerptAppender appender = queue.createAppender()) {
            Replicas.append(appender, 0, 100);
        }
        final Map<String, byte[]> before = contents(primary);
        final List<String> lines = new ArrayList<>();
        try (ChildJvm child = ChildJvm.start(ReplicationMains.ReadOnlySource.class, tempDir.resolve("child.err"),
                primary.toString(), tempDir.resolve("replica").toString())) {
            String line;
            while ((line = child.nextLine(60, TimeUnit.SECONDS)) != null) {
                lines.add(line);
            }
            assertEquals(0, child.awaitExit(60, TimeUnit.SECONDS), "the child died: " + lines + " " + child.stderrTail());
        }
        assertEquals(List.of("DONE"), lines.subList(lines.size() - 1, lines.size()), lines.toString());
        final String refused = lines.stream().filter(line -> line.startsWith("REFUSED ")).findFirst()
                .orElseThrow(() -> new AssertionError("the source was not refused: " + lines));
        assertTrue(refused.contains("is open read-only") && refused.contains(primary.toString())
                && refused.contains("replication source"), refused);
        final Map<String, byte[]> after = contents(primary);
        assertEquals(before.keySet(), after.keySet(), "no file was created or deleted");
        before.forEach((name, bytes) -> assertArrayEquals(bytes, after.get(name), name + " is unchanged"));
    }

    /** @return every file under {@code directory} by relative name, with its bytes. */
    private static Map<String, byte[]> contents(final Path directory) throws IOException {
        final Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(directory)) {
            for (final Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(directory.relativize(file).toString(), Files.readAllBytes(file));
            }
        }
        return files;
    }
}
