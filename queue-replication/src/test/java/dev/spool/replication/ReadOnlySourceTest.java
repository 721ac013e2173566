package dev.spool.replication;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
        assertUnchanged(before, primary);
    }
}
