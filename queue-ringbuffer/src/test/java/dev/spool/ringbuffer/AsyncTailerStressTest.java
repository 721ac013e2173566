package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.Soak;
import dev.spool.queue.SpoolQueue;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A producer thread, the drainer's parking thread and a reader thread on an async tailer race over a small ring
 * that the producer laps many times: the reader sees every record once, in order, whether it reads it from the
 * ring or, after the drainer released records it had not read, from the queue and back into the ring; with no
 * reserve (released at once) and with one (the drainer's lead absorbed).
 */
class AsyncTailerStressTest extends SpoolTestBase {

    @ParameterizedTest
    @ValueSource(ints = {0, 1 << 14})
    void shouldReadEveryRecordOnceInOrderWhileTheDrainerOvertakesTheReader(final int ringReserve) throws Exception {
        final int total = Soak.count(300_000, 3_000_000);
        try (AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).ringReserve(ringReserve)
                .drainerIdleStrategy(() -> new BackoffIdleStrategy(0, 10, 10_000, 1_000_000)).build();
             AsyncAppender appender = async.createAppender()) {
            async.startDrainer();
            final long[] failure = {-1, -1, -1};
            final String[] message = new String[1];
            final Thread reader = new Thread(() -> {
                try (AsyncTailer tailer = async.createTailer()) {
                    final long[] next = {0};
                    final long[] previousIndex = {-1};
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                    while (next[0] < total && message[0] == null && System.nanoTime() < deadline) {
                        final boolean ring = tailer.isReadingRing();
                        tailer.read((bytes, offset, length, index) -> {
                            final long value = bytes.readLong(offset);
                            if (value != next[0] || index <= previousIndex[0]) {
                                message[0] = "expected " + next[0] + " got " + value + " at index " + Long.toHexString(index)
                                        + " after " + Long.toHexString(previousIndex[0]) + (ring ? " from the ring" : " from the queue")
                                        + ", ring reads " + tailer.ringReads() + ", " + async.stats();
                            }
                            next[0]++;
                            previousIndex[0] = index;
                        });
                    }
                    failure[0] = next[0];
                }
            }, "stress-reader");
            reader.start();
            final byte[] payload = new byte[140];
            for (long i = 0; i < total; i++) {
                for (int b = 0; b < 8; b++) {
                    payload[b] = (byte) (i >>> (8 * b));
                }
                appender.append(payload);
            }
            reader.join();
            assertNull(message[0], message[0]);
            assertEquals(total, failure[0], "every record read");
        }
    }
}
