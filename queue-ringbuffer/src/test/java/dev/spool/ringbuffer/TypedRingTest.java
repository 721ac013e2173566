package dev.spool.ringbuffer;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.typed.Events;
import dev.spool.queue.typed.Fixed;
import dev.spool.queue.typed.MethodReader;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The typed layer through the ring: the same bytes, read from the ring before the drain and from the queue after. */
class TypedRingTest extends SpoolTestBase {
    /** An order as the benchmark has it. */
    static final class Order {
        long id;
        @Fixed(8)
        StringBuilder instrument = new StringBuilder();
        boolean buy;
        double price;
        long quantity;
    }

    @Events
    interface Orders {
        void order(Order order);

        void cancel(long id);
    }

    private static final class Recording implements Orders {
        final List<String> calls = new ArrayList<>();

        @Override
        public void order(final Order order) {
            calls.add(order.id + " " + order.instrument + " " + order.buy + " " + order.price + " " + order.quantity);
        }

        @Override
        public void cancel(final long id) {
            calls.add("cancel " + id);
        }
    }

    @Test
    void shouldWriteTypedCallsIntoTheRingAndReadThemFromTheRingThenTheQueue() {
        try (AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).build();
             AsyncAppender appender = async.createAppender(); AsyncTailer ringTailer = async.createTailer();
             ExcerptTailer queueTailer = async.queue().createTailer()) {
            final Orders writer = appender.methodWriter(Orders.class);
            final Order order = new Order();
            order.instrument.append("EURUSD");
            for (int i = 1; i <= 3; i++) {
                order.id = i;
                order.buy = i % 2 == 0;
                order.price = 1.08 + i;
                order.quantity = 100L * i;
                writer.order(order);
            }
            writer.cancel(2);
            final List<String> expected = List.of("1 EURUSD false 2.08 100", "2 EURUSD true 3.08 200",
                    "3 EURUSD false 4.08 300", "cancel 2");

            final Recording fromRing = new Recording();
            final MethodReader ringReader = ringTailer.methodReader(fromRing);
            while (ringReader.readOne()) {
                assertTrue(ringTailer.isReadingRing(), "read from the ring, before any drain");
            }
            assertEquals(expected, fromRing.calls);

            final Drainer drainer = async.createDrainer();
            while (drainer.doWork() > 0) {
                assertTrue(true);
            }
            final Recording fromQueue = new Recording();
            final MethodReader queueReader = queueTailer.methodReader(fromQueue);
            while (queueReader.readOne()) {
                assertTrue(true);
            }
            assertEquals(expected, fromQueue.calls, "the drainer copied the same bytes");
            assertFalse(queueReader.readOne());
        }
    }

    @Test
    void shouldGiveATypedWriteTheIndexAtWhichATailerReadsIt() throws InterruptedException {
        try (AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).build();
             AsyncAppender appender = async.createAppender(); ExcerptTailer tailer = async.queue().createTailer()) {
            final Orders writer = appender.methodWriter(Orders.class);
            assertEquals(-1, appender.lastPositionAppended(), "nothing committed yet");
            final SpoolException early = assertThrows(SpoolException.class, () -> appender.awaitIndex(-1, 1, TimeUnit.SECONDS));
            assertTrue(early.getMessage().contains("committed none yet"), early.getMessage());
            async.startDrainer();
            for (int i = 1; i <= 5; i++) {
                writer.cancel(i);
            }
            final long fifth = appender.lastPositionAppended();
            writer.cancel(42);
            final long position = appender.lastPositionAppended();
            assertTrue(position > fifth, "each typed write moves the position: " + fifth + " then " + position);
            final long index = appender.awaitIndex(position, 10, TimeUnit.SECONDS);

            final Recording read = new Recording();
            final MethodReader reader = tailer.methodReader(read);
            assertTrue(tailer.moveToIndex(index), "index 0x" + Long.toHexString(index));
            assertEquals(index, tailer.index());
            assertTrue(reader.readOne());
            assertEquals(List.of("cancel 42"), read.calls, "the tailer reads the message at the index awaited");
        }
    }

    @Test
    void shouldThrowRingFullRatherThanDropWhenThePolicyReturnsCodes() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             AsyncQueue async = AsyncQueue.builder(queue).ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 12)
                     .backPressure(BackPressure.returnCode()).build();
             AsyncAppender appender = async.createAppender()) {
            final Orders writer = appender.methodWriter(Orders.class);
            final RingFullException e = assertThrows(RingFullException.class, () -> {
                for (int i = 0; i < 1_000; i++) {
                    writer.cancel(i);
                }
            });
            assertTrue(e.getMessage().startsWith("Orders.cancel: the ring has no room for a message of 15 bytes"), e.getMessage());
            assertTrue(async.stats().backPressureEvents() > 0);
        }
    }
}
