package dev.spool.queue;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every call that would write a queue opened read-only is refused before anything is written: run in a child JVM,
 * where a write to the read-only mapping would kill the child rather than the test, and checked against the bytes of
 * every file of the directory.
 */
class ReadOnlyWritesTest extends SpoolTestBase {

    @Test
    void shouldRefuseEveryWriteOnAReadOnlyQueueAndLeaveEveryFileAsItWas() throws Exception {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).create();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < 100; i++) {
                appender.append(("message-" + i).getBytes());
            }
        }
        final Map<String, byte[]> before = contents(directory);
        final Path stderr = tempDir.resolve("child.err");
        final List<String> lines = new ArrayList<>();
        try (ChildJvm child = ChildJvm.start(ReadOnlyMains.EveryWrite.class, stderr, directory.toString())) {
            String line;
            while ((line = child.nextLine(60, TimeUnit.SECONDS)) != null) {
                lines.add(line);
            }
            assertEquals(0, child.awaitExit(60, TimeUnit.SECONDS), "the child died: " + lines + " " + child.stderrTail());
        }
        assertEquals("DONE", lines.get(lines.size() - 1), "the child did not finish: " + lines);
        final long tried = lines.stream().filter(line -> line.startsWith("TRY ")).count();
        final List<String> refused = lines.stream().filter(line -> line.startsWith("REFUSED ")).toList();
        assertEquals(tried, refused.size(), "every write is refused as read-only: " + lines);
        assertTrue(refused.stream().allMatch(line -> line.contains(directory.toString())), refused.toString());
        assertUnchanged(before, directory);
    }
}
