package dev.spool.queue;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class ConcurrentAppendersTest extends SpoolTestBase {
    private static final int THREADS = 4;
    private static final int PER_THREAD = 50_000;

    @Test
    void shouldSerialiseAppendersOfManyThreadsWithoutLossOrTearing() throws Exception {
        final ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             ExcerptTailer tailer = queue.createTailer()) {
            final CyclicBarrier start = new CyclicBarrier(THREADS);
            final List<Future<?>> writers = new ArrayList<>();
            for (int thread = 0; thread < THREADS; thread++) {
                final int writer = thread;
                writers.add(pool.submit(() -> {
                    try (ExcerptAppender appender = queue.createAppender()) {
                        final byte[] message = new byte[300];
                        start.await();
                        for (int sequence = 0; sequence < PER_THREAD; sequence++) {
                            final int length = Messages.lengthOf(writer, sequence, message.length);
                            Messages.encode(message, length, writer, sequence);
                            if (sequence % 3 == 0) {
                                final long offset = appender.claim(length);
                                appender.claimedBytes().write(offset, message, 0, length);
                                appender.commit(length);
                            } else {
                                appender.append(message, 0, length);
                            }
                        }
                    }
                    return null;
                }));
            }
            final int[] next = new int[THREADS];
            final long[] previous = {-1};
            int read = 0;
            while (read < THREADS * PER_THREAD) {
                assertTrue(tailer.await(30, TimeUnit.SECONDS), "read only " + read);
                assertTrue(tailer.read((bytes, offset, length, index) -> {
                    final int[] decoded = Messages.decode(bytes, offset, length, index);
                    assertEquals(next[decoded[0]]++, decoded[1]);
                    assertTrue(previous[0] < 0 || index == previous[0] + 1, "consecutive indices");
                    previous[0] = index;
                }));
                read++;
            }
            for (final Future<?> writer : writers) {
                writer.get(30, TimeUnit.SECONDS);
            }
            assertFalse(tailer.read((bytes, offset, length, index) -> fail("nothing extra")));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldRefuseToAppendWhileTheSameThreadHoldsAClaimInAnotherAppender() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender first = queue.createAppender();
             ExcerptAppender second = queue.createAppender()) {
            first.claim(8);
            final SpoolException e = assertThrows(SpoolException.class, () -> second.append(new byte[8]));
            assertTrue(e.getMessage().contains("already holds the write lock"), e.getMessage());
            first.commit(8);
            second.append(new byte[8]);
            assertEquals(first.lastIndexAppended() + 1, second.lastIndexAppended());
        }
    }
}
