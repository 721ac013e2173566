package dev.spool.queue.typed;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damaged typed payloads (bytes flipped, cut short, or both), decoded from native memory, where a generated reader
 * reads a fixed layout at constant offsets without a bound per field: every one is read (with whatever values it
 * now holds) or refused with a {@link TypedExcerptException}; nothing else is ever thrown.
 */
class TypedDamageFuzzTest extends SpoolTestBase {
    private static final long SEED = 14;
    private static final int TRIALS = 20_000;

    @Test
    void shouldReadOrRefuseEveryDamagedPayloadWithATypedExcerptException() {
        final List<byte[]> payloads = payloads();
        final FixedLayouts_FillsSpoolReader fills = new FixedLayouts_FillsSpoolReader(new IgnoringFills());
        final OrderEventsSpoolReader orders = new OrderEventsSpoolReader(new IgnoringOrders());
        final Bytes<?> direct = Bytes.allocateDirect(512);
        try {
            final BytesStore<?, ?> store = direct.bytesStore();
            assertTrue(store.isDirectMemory());
            final Random random = new Random(SEED);
            int refused = 0;
            for (int trial = 0; trial < TRIALS; trial++) {
                final byte[] damaged = payloads.get(random.nextInt(payloads.size())).clone();
                final int damage = random.nextInt(3);
                int length = damaged.length;
                if (damage != 1) {
                    for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                        damaged[random.nextInt(damaged.length)] ^= (byte) (1 << random.nextInt(8));
                    }
                }
                if (damage != 0) {
                    length = random.nextInt(damaged.length);
                }
                store.write(0, damaged, 0, damaged.length);
                for (final TypedDecoder decoder : new TypedDecoder[]{fills, orders}) {
                    try {
                        decoder.decode(store, 0, length, trial);
                    } catch (TypedExcerptException e) {
                        refused++;
                    } catch (RuntimeException e) {
                        throw new AssertionError("trial " + trial + " (seed " + SEED + "), " + length + " of "
                                + HexFormat.of().formatHex(damaged) + ": " + e, e);
                    }
                }
            }
            assertTrue(refused > TRIALS / 10, "the damage was detected in " + refused + " decodes");
        } finally {
            direct.releaseLast();
        }
    }

    /** @return the payload of one call of every method of the two test interfaces, as the queue holds them. */
    private List<byte[]> payloads() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.DAILY).chunkLength(1 << 20)
                .openOrCreate(); ExcerptAppender appender = queue.createAppender(); ExcerptTailer tailer = queue.createTailer()) {
            final FixedLayouts.Fills fills = appender.methodWriter(FixedLayouts.Fills.class);
            fills.fill(FixedLayoutTest.fill(1), new byte[]{1, 2, 3, 4}, "EUR", Side.BUY, 5);
            fills.flags(true, (byte) 1, (short) 2, 'c', 3, 4, 5f, 6d);
            final OrderEvents orders = appender.methodWriter(OrderEvents.class);
            orders.newOrder(TypedMessagesTest.order(7));
            orders.cancel(8, CancelReason.RISK);
            orders.note("a note", "tag");
            final Bytes<?> data = Bytes.allocateElasticOnHeap(8);
            data.writeLong(9);
            orders.blob(data, new byte[]{1, 2, 3, 4});
            final Price price = new Price();
            price.mantissa = 10;
            orders.quote(price, price);
            orders.primitives(false, (byte) 1, (short) 2, 'd', 3, 4, 5f, 6d);
            final List<byte[]> payloads = new ArrayList<>();
            final Bytes<?> payload = Bytes.allocateElasticOnHeap(256);
            while (tailer.read(payload) >= 0) {
                payloads.add(payload.toByteArray());
                payload.clear();
            }
            assertEquals(8, payloads.size());
            return payloads;
        }
    }

    /** Takes every call and keeps nothing. */
    private static final class IgnoringFills implements FixedLayouts.Fills {
        @Override
        public void fill(final FixedLayouts.Fill fill, final byte[] venue, final CharSequence currency, final Side side,
                         final int quantity) {
            assertEquals(4, venue.length);
        }

        @Override
        public void flags(final boolean b, final byte y, final short s, final char c, final int i, final long l,
                          final float f, final double d) {
            assertTrue(true);
        }
    }

    /** Takes every call and keeps nothing. */
    private static final class IgnoringOrders implements OrderEvents {
        @Override
        public void newOrder(final NewOrder order) {
            assertTrue(order.instrument.length() <= 12);
        }

        @Override
        public void cancel(final long orderId, final CancelReason why) {
            assertTrue(true);
        }

        @Override
        public void note(final CharSequence text, final CharSequence tag) {
            assertTrue(tag.length() <= 8);
        }

        @Override
        public void blob(final Bytes<?> data, final byte[] key) {
            assertEquals(4, key.length);
        }

        @Override
        public void quote(final Price bid, final Price ask) {
            assertTrue(true);
        }

        @Override
        public void primitives(final boolean b, final byte y, final short s, final char c, final int i, final long l,
                               final float f, final double d) {
            assertTrue(true);
        }
    }
}
