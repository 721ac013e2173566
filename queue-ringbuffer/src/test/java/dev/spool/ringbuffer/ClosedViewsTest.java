package dev.spool.ringbuffer;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every live view of an async queue's mapped memory (the ring's stats, head, tail and emptiness, its claims and
 * reads, its appenders and tailers, the queue's getters, metrics, internals and named tailers, the MBeans) is
 * refused with a SpoolException once the async queue is closed, and a metrics thread reading them while it closes
 * never reads unmapped memory: run in a child JVM, which such a read would kill.
 */
class ClosedViewsTest extends SpoolTestBase {

    @Test
    void shouldRefuseEveryViewAfterCloseAndSurviveAMetricsThreadReadingThroughTheClose() throws Exception {
        final List<String> lines = new ArrayList<>();
        try (ChildJvm child = ChildJvm.start(RingChildMains.ViewsAfterClose.class, tempDir.resolve("child.err"),
                tempDir.resolve("q").toString(), tempDir.resolve("q.ring").toString())) {
            String line;
            while ((line = child.nextLine(60, TimeUnit.SECONDS)) != null) {
                lines.add(line);
            }
            assertEquals(0, child.awaitExit(60, TimeUnit.SECONDS), "the child died: " + lines + " " + child.stderrTail());
        }
        assertEquals("DONE", lines.get(lines.size() - 1), "the child did not finish: " + lines);
        final String hammered = lines.stream().filter(line -> line.startsWith("HAMMERED ")).findFirst()
                .orElseThrow(() -> new AssertionError("no metrics thread result: " + lines));
        final String[] counts = hammered.split(" ");
        assertTrue(Long.parseLong(counts[1]) >= 1_000 && Long.parseLong(counts[2]) > 0, "the metrics thread read"
                + " before the close and was refused after it: " + hammered);
        assertEquals("0", counts[3], "nothing but SpoolException reached the metrics thread: " + lines);
        final List<String> afterClose = lines.subList(lines.indexOf(hammered) + 1, lines.size() - 1);
        assertEquals(Integer.parseInt(counts[4]), afterClose.size(), "one line per view: " + afterClose);
        assertTrue(afterClose.stream().allMatch(line -> line.startsWith("REFUSED ")),
                "every view after close throws a SpoolException saying what is closed: " + afterClose);
    }
}
