package dev.spool.benchmarks.latency.variants;

import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The second process of {@code floor-beside-disk-writer}: it writes at the rate asked for, and stops when told. */
class DiskWriterProcessTest {
    private static final int RATE = 20_000;
    private static final int LENGTH = 32;
    /** Half a second of messages at {@link #RATE}. */
    private static final int AWAITED = RATE / 2;

    @Test
    void shouldAppendMessagesOfTheLengthAtTheRateUntilClosed(@TempDir final Path directory) {
        final Path queueDirectory = directory.resolve("queue");
        final long started;
        final long[] read = {0};
        final int[] lengths = {0};
        final ExcerptHandler handler = (bytes, offset, length, index) -> {
            read[0]++;
            lengths[0] |= length;
        };
        try (DiskWriterProcess writer = DiskWriterProcess.start(queueDirectory, LENGTH, RATE)) {
            started = System.nanoTime();
            try (SpoolQueue queue = SpoolQueue.open(queueDirectory); ExcerptTailer tailer = queue.createTailer()) {
                while (read[0] < AWAITED) {
                    if (!tailer.read(handler)) {
                        Thread.onSpinWait();
                    }
                }
            }
        }
        final double seconds = (System.nanoTime() - started) / 1e9;
        assertEquals(LENGTH, lengths[0], "every message " + LENGTH + " bytes");
        // it had written one message when start returned: the rest took at least their share of a second
        assertTrue(seconds >= 0.8 * (AWAITED - 1) / RATE, AWAITED + " messages in " + seconds + " s: faster than "
                + RATE + " msg/s");
        try (SpoolQueue queue = SpoolQueue.open(queueDirectory); ExcerptTailer tailer = queue.createTailer()) {
            long total = 0;
            while (tailer.read(handler)) {
                total++;
            }
            // the child's start, before the clock above, is the second allowed for
            assertTrue(total >= AWAITED && total <= RATE * (seconds + 1), total + " messages in " + seconds + " s");
        }
    }
}
