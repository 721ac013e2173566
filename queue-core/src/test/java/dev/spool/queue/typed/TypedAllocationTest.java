package dev.spool.queue.typed;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Zero garbage per message written or read, in steady state, measured on the thread that writes and reads. */
class TypedAllocationTest extends SpoolTestBase {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /**
     * Under one byte per message: one-offs of the JIT and the measuring itself. The smallest object is 16 bytes, so a
     * single allocation per message of one kind would be 20,000 x 16 = 320,000 bytes.
     */
    private static final long ONE_OFF_BYTES = 64 * 1024;
    private static final int MESSAGES = 20_000;

    @Test
    void shouldAllocateNothingPerMessageWrittenOrRead() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.DAILY).chunkLength(64 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender(); ExcerptTailer tailer = queue.createTailer()) {
            final OrderEvents writer = appender.methodWriter(OrderEvents.class);
            final Summing target = new Summing();
            final MethodReader reader = tailer.methodReader(target);
            final NewOrder order = TypedMessagesTest.order(1);
            final StringBuilder text = new StringBuilder("a note of some length");
            final Bytes<?> data = Bytes.allocateElasticOnHeap(16);
            data.writeLong(42);
            final byte[] key = {1, 2, 3, 4};
            final Price bid = new Price();
            round(writer, reader, order, text, data, key, bid, MESSAGES);
            final long before = THREADS.getCurrentThreadAllocatedBytes();
            round(writer, reader, order, text, data, key, bid, MESSAGES);
            final long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("bytes allocated writing and reading %,d typed messages of each kind: %d%n", MESSAGES, bytes);
            assertTrue(bytes <= ONE_OFF_BYTES, "writing and reading allocated " + bytes + " bytes");
            assertEquals(2L * MESSAGES * 5, target.calls);
        }
    }

    private static void round(final OrderEvents writer, final MethodReader reader, final NewOrder order,
                              final StringBuilder text, final Bytes<?> data, final byte[] key, final Price price,
                              final int count) {
        for (int i = 0; i < count; i++) {
            order.id = i;
            writer.newOrder(order);
            writer.cancel(i, CancelReason.USER);
            writer.note(text, "tag");
            writer.blob(data, key);
            writer.quote(price, price);
            for (int m = 0; m < 5; m++) {
                reader.readOne();
            }
        }
    }

    /** Touches every argument without allocating. */
    private static final class Summing implements OrderEvents {
        long calls;
        long sum;

        @Override
        public void newOrder(final NewOrder order) {
            calls++;
            sum += order.id + order.instrument.length() + order.side.ordinal() + order.account.name.length();
        }

        @Override
        public void cancel(final long orderId, final CancelReason why) {
            calls++;
            sum += orderId + why.ordinal();
        }

        @Override
        public void note(final CharSequence text, final CharSequence tag) {
            calls++;
            sum += text.length() + tag.length();
        }

        @Override
        public void blob(final Bytes<?> data, final byte[] key) {
            calls++;
            sum += data.readRemaining() + key[0];
        }

        @Override
        public void quote(final Price bid, final Price ask) {
            calls++;
            sum += bid.mantissa + ask.exponent;
        }

        @Override
        public void primitives(final boolean b, final byte y, final short s, final char c, final int i, final long l,
                               final float f, final double d) {
            calls++;
        }
    }
}
