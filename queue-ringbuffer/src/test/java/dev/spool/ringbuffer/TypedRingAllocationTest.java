package dev.spool.ringbuffer;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Zero garbage per typed message written through the ring and asked for its queue index, in steady state,
 * measured on the thread that writes, drains and asks.
 */
class TypedRingAllocationTest extends SpoolTestBase {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /**
     * Under one byte per message: one-offs of the JIT and the measuring itself. The smallest object is 16 bytes, so a
     * single allocation per message would be 20,000 x 16 = 320,000 bytes.
     */
    private static final long ONE_OFF_BYTES = 64 * 1024;
    private static final int MESSAGES = 20_000;

    @Test
    void shouldAllocateNothingPerTypedWriteAndItsIndex() throws InterruptedException {
        try (AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(64 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).build();
             AsyncAppender appender = async.createAppender()) {
            final TypedRingTest.Orders writer = appender.methodWriter(TypedRingTest.Orders.class);
            final Drainer drainer = async.createDrainer();
            long expected = round(writer, appender, drainer, MESSAGES, -1);
            final long before = THREADS.getCurrentThreadAllocatedBytes();
            expected = round(writer, appender, drainer, MESSAGES, expected);
            final long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("bytes allocated writing %,d typed messages through the ring and awaiting each index: %d%n",
                    MESSAGES, bytes);
            assertTrue(bytes <= ONE_OFF_BYTES, "writing and awaiting indices allocated " + bytes + " bytes");
            assertEquals(expected, async.queue().lastIndex(), "the last index awaited is the queue's last");
        }
    }

    /** @return the index of the round's last message, having checked that each follows the one before. */
    private static long round(final TypedRingTest.Orders writer, final AsyncAppender appender, final Drainer drainer,
                              final int count, final long previous) throws InterruptedException {
        long last = previous;
        for (int i = 0; i < count; i++) {
            writer.cancel(i);
            drainer.doWork();
            final long index = appender.awaitIndex(appender.lastPositionAppended(), 10, TimeUnit.SECONDS);
            if (last >= 0 && index != last + 1) {
                throw new AssertionError("index 0x" + Long.toHexString(index) + " does not follow 0x" + Long.toHexString(last));
            }
            last = index;
        }
        return last;
    }
}
