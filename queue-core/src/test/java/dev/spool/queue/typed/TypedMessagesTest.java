package dev.spool.queue.typed;

import dev.spool.queue.SpoolException;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TypedMessagesTest extends SpoolTestBase {
    private SpoolQueue open() {
        return SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.DAILY).chunkLength(1 << 20).openOrCreate();
    }

    static NewOrder order(final long id) {
        final NewOrder order = new NewOrder();
        order.id = id;
        order.instrument.append("EURUSD");
        order.side = Side.SELL;
        order.price = 1.0842;
        order.quantity = 1_000_000;
        order.account.name.append("désk-7 \uD83D\uDE80");
        order.account.region = 44;
        return order;
    }

    /** @return how many excerpts {@code reader} read until there were none left. */
    static int readAll(final MethodReader reader) {
        int read = 0;
        while (reader.readOne()) {
            read++;
        }
        return read;
    }

    @Test
    void shouldWriteEachCallAsOneExcerptAndCallTheMatchingMethodOnRead() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final OrderEvents writer = appender.methodWriter(OrderEvents.class);
            writer.newOrder(order(17));
            writer.cancel(17, CancelReason.RISK);
            writer.note(new StringBuilder("hello, wörld"), "TAG");
            final Bytes<?> data = Bytes.allocateElasticOnHeap(8);
            data.writeInt(0x01020304);
            writer.blob(data, new byte[]{9, 8, 7, 6});
            final Price bid = new Price();
            bid.mantissa = 10841;
            bid.exponent = -4;
            final Price ask = new Price();
            ask.mantissa = 10843;
            ask.exponent = -4;
            writer.quote(bid, ask);
            writer.primitives(true, (byte) -1, (short) 300, 'é', -5, Long.MIN_VALUE, 1.5f, Math.PI);
            assertEquals(5, data.readRemaining() + 1, "writing left the Bytes argument's read position alone");

            final Recorder recorder = new Recorder();
            final MethodReader reader = tailer.methodReader(recorder);
            assertEquals(6, readAll(reader));
            assertEquals(List.of(
                    "newOrder 17 EURUSD SELL 1.0842 1000000 désk-7 \uD83D\uDE80/44",
                    "cancel 17 RISK",
                    "note hello, wörld [TAG]",
                    "blob 4 bytes 0x1020304 key=[9, 8, 7, 6]",
                    "quote 10841e-4 10843e-4",
                    "primitives true -1 300 é -5 -9223372036854775808 1.5 3.141592653589793"), recorder.calls);
            assertEquals(0, reader.unknownMethods());
            assertEquals(6, appender.lastIndexAppended() - queue.firstIndex() + 1, "one excerpt per call");
        }
    }

    @Test
    void shouldReuseOneInstancePerMessageParameter() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final OrderEvents writer = appender.methodWriter(OrderEvents.class);
            writer.newOrder(order(1));
            writer.note("a", "x");
            writer.newOrder(order(2));
            writer.note("b", "y");
            final Recorder recorder = new Recorder();
            final MethodReader reader = tailer.methodReader(recorder);
            readAll(reader);
            assertEquals(4, recorder.instances.size());
            assertSame(recorder.instances.get(0), recorder.instances.get(2), "one NewOrder for every newOrder");
            assertSame(recorder.instances.get(1), recorder.instances.get(3), "one StringBuilder for every note");
        }
    }

    @Test
    void shouldStoreTheSchemaInTheQueueDirectory() throws Exception {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender()) {
            appender.methodWriter(OrderEvents.class);
            final String schema = Files.readString(queue.directory().resolve("dev.spool.queue.typed.OrderEvents.spool-schema"),
                    StandardCharsets.UTF_8);
            assertEquals(OrderEventsSpoolWriter.SCHEMA, schema);
            assertTrue(schema.contains("method 7 primitives\n"), schema);
            assertTrue(schema.contains("  instrument fixed-string:12\n"), schema);
        }
    }

    @Test
    void shouldIgnoreFieldsAndMethodsANewerWriterAdded() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final Evolution.V2 writer = appender.methodWriter(Evolution.V2.class);
            final Evolution.OrderV2 order = new Evolution.OrderV2();
            order.id = 5;
            order.quantity = 70;
            order.venue.append("XLON");
            order.side = Side.BUY;
            writer.order(order);
            writer.amend(5, 80);
            order.id = 6;
            writer.order(order);
            final List<String> seen = new ArrayList<>();
            final MethodReader reader = tailer.methodReader((Evolution.V1) o -> seen.add(o.id + "x" + o.quantity));
            readAll(reader);
            assertEquals(List.of("5x70", "6x70"), seen);
            assertEquals(1, reader.unknownMethods(), "amend, which V1 does not know, is skipped and counted");
        }
    }

    @Test
    void shouldGiveDefaultsToFieldsAnOlderWriterDidNotHave() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final Evolution.OrderV1 old = new Evolution.OrderV1();
            old.id = 9;
            old.quantity = 10;
            final Evolution.V2 newer = appender.methodWriter(Evolution.V2.class);
            final Evolution.OrderV2 full = new Evolution.OrderV2();
            full.id = 8;
            full.venue.append("XPAR");
            full.side = Side.SELL;
            newer.order(full);
            appender.methodWriter(Evolution.V1.class).order(old);
            final List<String> seen = new ArrayList<>();
            final MethodReader reader = tailer.methodReader(new Evolution.V2() {
                @Override
                public void order(final Evolution.OrderV2 order) {
                    seen.add(order.id + " " + order.quantity + " [" + order.venue + "] " + order.side);
                }

                @Override
                public void amend(final long id, final long quantity) {
                    seen.add("amend");
                }
            });
            readAll(reader);
            assertEquals(List.of("8 0 [XPAR] SELL", "9 10 [] null"), seen, "the reused instance's new fields are reset");
        }
    }

    @Test
    void shouldNameTheMethodFieldAndIndexWhenAFieldTypeChangedAndMoveOn() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final Evolution.OrderV1 order = new Evolution.OrderV1();
            order.id = 3;
            final Evolution.V1 writer = appender.methodWriter(Evolution.V1.class);
            writer.order(order);
            final long bad = appender.lastIndexAppended();
            writer.order(order);
            final List<Double> seen = new ArrayList<>();
            final MethodReader reader = tailer.methodReader((Evolution.Changed) o -> seen.add(o.quantity));
            final TypedExcerptException e = assertThrows(TypedExcerptException.class, reader::readOne);
            assertEquals(bad, e.index());
            assertTrue(e.getMessage().contains("excerpt 0x" + Long.toHexString(bad) + " ") && e.getMessage().contains("Changed.order")
                    && e.getMessage().contains("field order.quantity") && e.getMessage().contains("expected a double field, found a long"),
                    e.getMessage());
            assertThrows(TypedExcerptException.class, reader::readOne, "the second excerpt is read, and fails alike");
            assertFalse(reader.readOne());
            assertTrue(seen.isEmpty());
        }
    }

    @Test
    void shouldRejectANullArgumentOrFieldWithoutAppending() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender()) {
            final OrderEvents writer = appender.methodWriter(OrderEvents.class);
            writer.cancel(1, CancelReason.USER);
            final long last = appender.lastIndexAppended();
            NullPointerException e = assertThrows(NullPointerException.class, () -> writer.newOrder(null));
            assertEquals("OrderEvents.newOrder: order is null; a typed message has no nulls", e.getMessage());
            final NewOrder order = order(1);
            order.side = null;
            e = assertThrows(NullPointerException.class, () -> writer.newOrder(order));
            assertEquals("OrderEvents.newOrder: order.side is null; a typed message has no nulls", e.getMessage());
            e = assertThrows(NullPointerException.class, () -> writer.cancel(2, null));
            assertTrue(e.getMessage().startsWith("OrderEvents.cancel: why is null"), e.getMessage());
            final SpoolException tooLong = assertThrows(SpoolException.class,
                    () -> writer.note("x", "123456789"));
            assertEquals("OrderEvents.note: tag has 9 characters, more than its @Fixed(8)", tooLong.getMessage());
            assertEquals(last, appender.lastIndexAppended(), "nothing appended");
            writer.cancel(3, CancelReason.USER);
            assertEquals(last + 1, appender.lastIndexAppended(), "the writer still works");
        }
    }

    @Test
    void shouldRejectAMessageLargerThanTheQueueAcceptsWithoutAppending() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).maxMessageLength(64).openOrCreate();
             ExcerptAppender appender = queue.createAppender(); ExcerptTailer tailer = queue.createTailer()) {
            final OrderEvents writer = appender.methodWriter(OrderEvents.class);
            writer.note("short", "t");
            final SpoolException e = assertThrows(SpoolException.class,
                    () -> writer.note("x".repeat(100), "t"));
            assertTrue(e.getMessage().startsWith("OrderEvents.note: a message of 122 bytes cannot be appended"), e.getMessage());
            writer.note("again", "t");
            final Recorder recorder = new Recorder();
            final MethodReader reader = tailer.methodReader(recorder);
            readAll(reader);
            assertEquals(List.of("note short [t]", "note again [t]"), recorder.calls);
        }
    }

    @Test
    void shouldRejectACorruptTypedExcerptByIndexAndReadTheNext() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final OrderEvents writer = appender.methodWriter(OrderEvents.class);
            appender.append("not typed".getBytes(StandardCharsets.UTF_8));
            final long raw = appender.lastIndexAppended();
            // a typed excerpt cut short: its note's string claims more bytes than the excerpt holds
            final Bytes<?> cut = Bytes.allocateElasticOnHeap(32);
            cut.writeShort((short) 0x7954).writeShort((short) OrderEventsSpoolWriter.EVENTS_ID).writeShort((short) 45042)
                    .writeByte((byte) 10).writeInt(1000).writeByte((byte) 'a');
            appender.append(cut);
            final long truncated = appender.lastIndexAppended();
            writer.cancel(4, CancelReason.EXPIRED);
            final Recorder recorder = new Recorder();
            final MethodReader reader = tailer.methodReader(recorder);
            TypedExcerptException e = assertThrows(TypedExcerptException.class, reader::readOne);
            assertEquals("excerpt 0x" + Long.toHexString(raw) + " is not a typed excerpt: magic 0x6f6e, expected 0x7954", e.getMessage());
            e = assertThrows(TypedExcerptException.class, reader::readOne);
            assertEquals("excerpt 0x" + Long.toHexString(truncated) + " (OrderEvents.note), field text: a string of length=1000 runs "
                    + "past the end at offset 6 of a 12-byte payload", e.getMessage());
            assertTrue(reader.readOne());
            assertEquals(List.of("cancel 4 EXPIRED"), recorder.calls);
        }
    }

    @Test
    void shouldReadOneOfTwoInterfacesOfATargetWhenNamedAndSkipTheOther() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appender.methodWriter(OrderEvents.class).cancel(1, CancelReason.USER);
            appender.methodWriter(Unprocessed.Audit.class).audit(2);
            final Unprocessed.Both both = new Unprocessed.Both();
            final SpoolException ambiguous = assertThrows(SpoolException.class, () -> tailer.methodReader(both));
            assertTrue(ambiguous.getMessage().contains("implements several @Events interfaces")
                    && ambiguous.getMessage().contains("methodReader(Events.class, impl)"), ambiguous.getMessage());
            final MethodReader audits = tailer.methodReader(Unprocessed.Audit.class, both);
            while (audits.readOne()) {
                assertTrue(true);
            }
            assertEquals(List.of(2L), both.audits);
            assertEquals(1, audits.unknownMethods(), "the OrderEvents excerpt is another interface's");
        }
    }

    @Test
    void shouldRefuseAnInterfaceWithoutGeneratedCode() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            SpoolException e = assertThrows(SpoolException.class,
                    () -> appender.methodWriter(Unprocessed.Plain.class));
            assertEquals("dev.spool.queue.typed.Unprocessed$Plain is not an interface annotated @Events", e.getMessage());
            e = assertThrows(SpoolException.class, () -> tailer.methodReader((Unprocessed.Plain) id -> { }));
            assertTrue(e.getMessage().endsWith("implements no @Events interface"), e.getMessage());
        }
    }
}
