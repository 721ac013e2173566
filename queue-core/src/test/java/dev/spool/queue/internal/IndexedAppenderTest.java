package dev.spool.queue.internal;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.ManualClock;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

/** An indexed appender on a primary: what the ring buffer's drainer writes through. */
class IndexedAppenderTest extends SpoolTestBase {
    /** 2024-01-01T00:00Z. */
    private static final long START_MILLIS = 1_704_067_200_000L;
    private static final RollCycle ROLL = RollCycle.HOURLY;

    private final ManualClock clock = new ManualClock(START_MILLIS);
    private final long firstCycle = ROLL.cycle(START_MILLIS, 0);

    private SpoolQueue open() {
        return SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).rollCycle(ROLL).epochMillis(0)
                .epochClock(clock).openOrCreate();
    }

    private static byte[] utf8(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static long appendAt(final IndexedAppender appender, final long index, final String text) {
        final byte[] payload = utf8(text);
        return appender.appendAt(index, payload, 0, payload.length);
    }

    private static void assertContent(final SpoolQueue queue, final long[] indices, final String... texts) {
        try (ExcerptTailer tailer = queue.createTailer()) {
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            for (int i = 0; i < texts.length; i++) {
                into.clear();
                assertEquals(indices[i], tailer.read(into));
                assertEquals(texts[i], into.toString());
            }
            into.clear();
            assertEquals(-1, tailer.read(into), "nothing after the last excerpt");
            into.releaseLast();
        }
    }

    @Test
    void shouldAppendAtTheNextIndexOfThePrimarysCurrentCycle() {
        try (SpoolQueue queue = open();
             ExcerptAppender appender = queue.createAppender();
             IndexedAppender indexed = queue.unwrap(QueueInternals.class).createIndexedAppender()) {
            final long first = appender.append(utf8("a"));
            assertEquals(ROLL.toIndex(firstCycle, 0), first);
            assertEquals(first + 1, appendAt(indexed, first + 1, "b"));
            assertEquals(first + 2, appendAt(indexed, first + 2, "c"));
            assertEquals(first + 2, queue.lastIndex());
            assertContent(queue, new long[]{first, first + 1, first + 2}, "a", "b", "c");
        }
    }

    @Test
    void shouldStartALaterCycleAtItsFirstSequenceAsARollWould() {
        try (SpoolQueue queue = open();
             IndexedAppender indexed = queue.unwrap(QueueInternals.class).createIndexedAppender()) {
            final long first = ROLL.toIndex(firstCycle, 0);
            appendAt(indexed, first, "a");
            final long later = ROLL.toIndex(firstCycle + 3, 0);
            assertEquals(later, appendAt(indexed, later, "b"), "the clock still says the first cycle: the index decides");
            assertArrayEquals(new long[]{firstCycle, firstCycle + 3}, queue.cycles());
            try (ExcerptAppender appender = queue.createAppender()) {
                assertEquals(later + 1, appender.append(utf8("c")), "an appender follows the highest cycle");
            }
            assertEquals(later + 2, appendAt(indexed, later + 2, "d"));
            assertContent(queue, new long[]{first, later, later + 1, later + 2}, "a", "b", "c", "d");
        }
        verify(tempDir.resolve("q"));
    }

    @Test
    void shouldRefuseAGapNamingBothIndicesAndTheDirectory() {
        try (SpoolQueue queue = open();
             IndexedAppender indexed = queue.unwrap(QueueInternals.class).createIndexedAppender()) {
            final long first = ROLL.toIndex(firstCycle, 0);
            appendAt(indexed, first, "a");
            final SpoolException gap = assertThrows(SpoolException.class, () -> appendAt(indexed, first + 4, "x"));
            assertTrue(gap.getMessage().contains("expected index " + IndexFormat.format((first + 1), ROLL)), gap.getMessage());
            assertTrue(gap.getMessage().contains("given index " + IndexFormat.format((first + 4), ROLL)), gap.getMessage());
            assertTrue(gap.getMessage().contains("a gap of 3 excerpts"), gap.getMessage());
            assertTrue(gap.getMessage().contains(queue.directory().toString()), gap.getMessage());
            final long laterGap = ROLL.toIndex(firstCycle + 1, 2);
            final SpoolException cycleGap = assertThrows(SpoolException.class, () -> appendAt(indexed, laterGap, "x"));
            assertTrue(cycleGap.getMessage().contains("expected index " + IndexFormat.format(ROLL.toIndex(firstCycle + 1, 0), ROLL)),
                    cycleGap.getMessage());
            assertTrue(cycleGap.getMessage().contains("a gap of 2 excerpts"), cycleGap.getMessage());
            assertArrayEquals(new long[]{firstCycle}, queue.cycles(), "a refused later cycle is not started");
            assertEquals(first + 1, appendAt(indexed, first + 1, "b"), "a refused index leaves the tail as it was");
            assertContent(queue, new long[]{first, first + 1}, "a", "b");
        }
    }

    @Test
    void shouldRefuseAnEarlierIndexOrCycle() {
        try (SpoolQueue queue = open();
             IndexedAppender indexed = queue.unwrap(QueueInternals.class).createIndexedAppender()) {
            final long first = ROLL.toIndex(firstCycle, 0);
            appendAt(indexed, first, "a");
            appendAt(indexed, first + 1, "b");
            final SpoolException earlier = assertThrows(SpoolException.class, () -> appendAt(indexed, first, "x"));
            assertTrue(earlier.getMessage().contains("expected index " + IndexFormat.format((first + 2), ROLL)), earlier.getMessage());
            assertTrue(earlier.getMessage().contains("given index " + IndexFormat.format(first, ROLL)), earlier.getMessage());
            assertTrue(earlier.getMessage().contains("written already"), earlier.getMessage());
            final long before = ROLL.toIndex(firstCycle - 1, 0);
            final SpoolException earlierCycle = assertThrows(SpoolException.class, () -> appendAt(indexed, before, "x"));
            assertTrue(earlierCycle.getMessage().contains("highest cycle is already " + firstCycle),
                    earlierCycle.getMessage());
            assertTrue(earlierCycle.getMessage().contains(queue.directory().toString()), earlierCycle.getMessage());
            assertContent(queue, new long[]{first, first + 1}, "a", "b");
        }
    }

    @Test
    void shouldRefuseTheIndexAnotherAppenderTookMeanwhile() {
        try (SpoolQueue queue = open();
             ExcerptAppender appender = queue.createAppender();
             IndexedAppender indexed = queue.unwrap(QueueInternals.class).createIndexedAppender()) {
            final long first = ROLL.toIndex(firstCycle, 0);
            appendAt(indexed, first, "a");
            assertEquals(first + 1, appender.append(utf8("b")));
            final SpoolException taken = assertThrows(SpoolException.class, () -> appendAt(indexed, first + 1, "x"));
            assertTrue(taken.getMessage().contains("expected index " + IndexFormat.format((first + 2), ROLL)), taken.getMessage());
            assertTrue(taken.getMessage().contains("another writer appended it"), taken.getMessage());
            assertEquals(first + 2, appendAt(indexed, first + 2, "c"), "the indexed appender found the new tail");
            assertEquals(first + 3, appender.append(utf8("d")));
            assertContent(queue, new long[]{first, first + 1, first + 2, first + 3}, "a", "b", "c", "d");
        }
    }

    @Test
    void shouldRingTheAppendDoorbell() {
        final AtomicInteger rung = new AtomicInteger();
        try (SpoolQueue queue = open();
             IndexedAppender indexed = queue.unwrap(QueueInternals.class).createIndexedAppender();
             Doorbell doorbell = queue.unwrap(QueueInternals.class).appendDoorbell(rung::incrementAndGet)) {
            doorbell.arm();
            appendAt(indexed, ROLL.toIndex(firstCycle, 0), "a");
            assertEquals(1, rung.get());
        }
    }

    @Test
    void shouldBeRefusedOnAFencedQueue() {
        try (SpoolQueue queue = open();
             IndexedAppender before = queue.unwrap(QueueInternals.class).createIndexedAppender()) {
            final long first = ROLL.toIndex(firstCycle, 0);
            appendAt(before, first, "a");
            queue.unwrap(QueueInternals.class).fence(1);
            final SpoolException refused = assertThrows(SpoolException.class,
                    () -> queue.unwrap(QueueInternals.class).createIndexedAppender());
            assertTrue(refused.getMessage().contains("was fenced by term 1"), refused.getMessage());
            final SpoolException write = assertThrows(SpoolException.class,
                    () -> appendAt(before, first + 1, "x"));
            assertTrue(write.getMessage().contains("was fenced by term 1"), write.getMessage());
            assertEquals(first, queue.lastIndex());
        }
    }
}
