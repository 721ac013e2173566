package dev.spool.queue.typed;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.typed.FixedLayouts.Fill;
import dev.spool.queue.typed.FixedLayouts.Fills;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The generated reader's fast path: excerpts with exactly the layout of the reader's build are read at constant
 * offsets, anything else field by field, with the same values, defaults and errors.
 */
class FixedLayoutTest extends SpoolTestBase {
    private SpoolQueue open() {
        return SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.DAILY).chunkLength(1 << 20).openOrCreate();
    }

    static Fill fill(final long id) {
        final Fill fill = new Fill();
        fill.id = id;
        fill.instrument.append("EURUSD");
        fill.flags[0] = 7;
        fill.flags[1] = -1;
        fill.leg.ratio = -3;
        fill.leg.kind = 'ü';
        fill.side = Side.SELL;
        fill.price = 1.0842;
        fill.trader = "ÅSA";
        return fill;
    }

    /** Records every call as text. */
    private static final class Recording implements Fills {
        final List<String> calls = new ArrayList<>();

        @Override
        public void fill(final Fill fill, final byte[] venue, final CharSequence currency, final Side side,
                         final int quantity) {
            calls.add(fill.id + " " + fill.instrument + " " + Arrays.toString(fill.flags) + " " + fill.leg.ratio + "/"
                    + fill.leg.kind + " " + fill.side + " " + fill.price + " [" + fill.trader + "] "
                    + Arrays.toString(venue) + " " + currency + " " + side + " " + quantity);
        }

        @Override
        public void flags(final boolean b, final byte y, final short s, final char c, final int i, final long l,
                          final float f, final double d) {
            calls.add(b + " " + y + " " + s + " " + c + " " + i + " " + l + " " + f + " " + d);
        }
    }

    @Test
    void shouldReadEveryFixedLengthKindAtConstantOffsetsWhenTheLayoutIsThisBuilds() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final Fills writer = appender.methodWriter(Fills.class);
            writer.fill(fill(1), new byte[]{1, 2, 3, 4}, "EUR", Side.BUY, 500);
            writer.flags(true, (byte) -2, Short.MIN_VALUE, '\uFFFF', Integer.MAX_VALUE, -7, -0.5f, 1e300);
            final Fill shorter = fill(2);
            shorter.instrument.setLength(0);
            shorter.trader = "";
            writer.fill(shorter, new byte[4], "", Side.SELL, 0);

            final Recording recording = new Recording();
            final MethodReader reader = tailer.methodReader(recording);
            TypedMessagesTest.readAll(reader);
            assertEquals(List.of(
                    "1 EURUSD [7, -1] -3/ü SELL 1.0842 [ÅSA] [1, 2, 3, 4] EUR BUY 500",
                    "true -2 -32768 \uFFFF 2147483647 -7 -0.5 1.0E300",
                    "2  [7, -1] -3/ü SELL 1.0842 [] [0, 0, 0, 0]  SELL 0"), recording.calls);
            assertEquals(0, reader.layoutMismatches(), "every excerpt had this build's layout");
        }
    }

    @Test
    void shouldReadAPayloadHeldOnTheHeapFieldByFieldWithoutCountingAMismatch() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appender.methodWriter(Fills.class).fill(fill(4), new byte[]{4, 3, 2, 1}, "CHF", Side.BUY, 40);
            final Bytes<?> heap = Bytes.allocateElasticOnHeap(128);
            final long index = tailer.read(heap);
            assertFalse(heap.isDirectMemory());
            final Recording recording = new Recording();
            final FixedLayouts_FillsSpoolReader decoder = new FixedLayouts_FillsSpoolReader(recording);
            assertTrue(decoder.decode(heap.bytesStore(), heap.readPosition(), (int) heap.readRemaining(), index));
            assertEquals(List.of("4 EURUSD [7, -1] -3/ü SELL 1.0842 [ÅSA] [4, 3, 2, 1] CHF BUY 40"), recording.calls);
            assertEquals(0, decoder.layoutMismatches(), "the constant offsets are for native memory; the heap is no mismatch");
        }
    }

    @Test
    void shouldReadAnotherBuildsLayoutFieldByFieldAndCountIt() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final FixedLayouts.WideFill wide = new FixedLayouts.WideFill();
            wide.id = 9;
            wide.instrument.append("EURUSD.SPOT");
            wide.side = Side.BUY;
            wide.trader = "BOB";
            appender.methodWriter(FixedLayouts.WiderFills.class).fill(wide, new byte[]{5, 5, 5, 5}, "USD", Side.SELL, 1);
            appender.methodWriter(Fills.class).fill(fill(10), new byte[4], "GBP", Side.BUY, 2);

            final Recording recording = new Recording();
            final MethodReader reader = tailer.methodReader(recording);
            TypedMessagesTest.readAll(reader);
            assertEquals(List.of(
                    "9 EURUSD.SPOT [0, 0] 0/\u0000 BUY 0.0 [BOB] [5, 5, 5, 5] USD SELL 1",
                    "10 EURUSD [7, -1] -3/ü SELL 1.0842 [ÅSA] [0, 0, 0, 0] GBP BUY 2"), recording.calls,
                    "a @Fixed(12) string is read whole by a @Fixed(8) reader's field by field path");
            assertEquals(1, reader.layoutMismatches(), "only the wider build's excerpt");
        }
    }

    @Test
    void shouldNameTheFieldOfAnEnumOrdinalTheReaderDoesNotHave() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appender.methodWriter(FixedLayouts.MoreSides.class)
                    .fill(fill(3), new byte[4], "EUR", FixedLayouts.ThreeSides.CROSS, 1);
            final long index = appender.lastIndexAppended();
            final MethodReader reader = tailer.methodReader(new Recording());
            final TypedExcerptException e = assertThrows(TypedExcerptException.class, reader::readOne);
            assertEquals(index, e.index());
            assertTrue(e.getMessage().contains("Fills.fill") && e.getMessage().contains("field side")
                    && e.getMessage().contains("enum ordinal 2 is not one of the reader's 2 constants"), e.getMessage());
            assertFalse(reader.readOne());
        }
    }

    @Test
    void shouldRefuseAFixedStringCharacterOutsideLatin1WithoutAppending() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final Fills writer = appender.methodWriter(Fills.class);
            writer.fill(fill(1), new byte[4], "EUR", Side.BUY, 1);
            final long last = appender.lastIndexAppended();
            final SpoolException e = assertThrows(SpoolException.class,
                    () -> writer.fill(fill(2), new byte[4], "€UR", Side.BUY, 1));
            assertEquals("Fills.fill: currency has character U+20AC at 0, outside the ISO-8859-1 of a @Fixed string",
                    e.getMessage());
            assertEquals(last, appender.lastIndexAppended(), "the claim was rolled back");
            writer.fill(fill(3), new byte[4], "JPY", Side.SELL, 3);

            final Recording recording = new Recording();
            final MethodReader reader = tailer.methodReader(recording);
            TypedMessagesTest.readAll(reader);
            assertEquals(2, recording.calls.size(), recording.calls.toString());
            assertTrue(recording.calls.get(1).startsWith("3 ") && recording.calls.get(1).endsWith("JPY SELL 3"),
                    recording.calls.toString());
        }
    }
}
