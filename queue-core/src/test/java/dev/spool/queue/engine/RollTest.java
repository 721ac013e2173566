package dev.spool.queue.engine;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.ManualClock;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.EpochClock;

import static org.junit.jupiter.api.Assertions.*;

class RollTest extends SpoolTestBase {
    private static final long START = 1_700_000_000_000L;

    private SpoolQueue open(final EpochClock clock) {
        return SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.SECONDLY).chunkLength(1 << 20)
                .epochClock(clock).openOrCreate();
    }

    @Test
    void shouldRollToANewFileEachCycleAndReadAcrossRolls() {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = open(clock);
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final List<Long> indices = new ArrayList<>();
            for (int cycle = 0; cycle < 4; cycle++) {
                for (int i = 0; i < 10; i++) {
                    indices.add(appender.append(new byte[]{(byte) cycle, (byte) i}));
                }
                clock.advance(cycle == 1 ? 5_000 : 1_000);
            }
            assertEquals(4, queue.cycles().length, "one file per cycle that was written, none for skipped cycles");
            final long firstCycle = RollCycle.SECONDLY.cycle(START, 0);
            assertEquals(RollCycle.SECONDLY.toIndex(firstCycle, 0), indices.get(0));
            assertEquals(RollCycle.SECONDLY.toIndex(firstCycle + 1, 0), indices.get(10));
            assertEquals(RollCycle.SECONDLY.toIndex(firstCycle + 6, 0), indices.get(20), "cycles 2-5 were skipped");
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            for (final long expected : indices) {
                into.clear();
                assertEquals(expected, tailer.read(into));
            }
            assertEquals(-1, tailer.read(into));
        }
    }

    @Test
    void shouldLetALiveTailerFollowTheRoll() {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = open(clock);
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appender.append(new byte[]{1});
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertTrue(tailer.read(into) >= 0);
            assertEquals(-1, tailer.read(into), "caught up");
            clock.advance(3_000);
            final long rolled = appender.append(new byte[]{2});
            assertEquals(rolled, tailer.read(into), "the tailer crossed the end-of-cycle marker into the new file");
        }
    }

    @Test
    void shouldMakeALateWriterFollowTheRollInsteadOfWritingToAnEndedCycle() {
        final ManualClock early = new ManualClock(START);
        final ManualClock late = new ManualClock(START + 2_000);
        try (SpoolQueue slowClockQueue = open(early);
             SpoolQueue queue = open(late);
             ExcerptAppender slow = slowClockQueue.createAppender();
             ExcerptAppender fast = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final long first = slow.append(new byte[]{1});
            final long second = fast.append(new byte[]{2});
            final long third = slow.append(new byte[]{3});
            assertTrue(RollCycle.SECONDLY.toCycle(second) > RollCycle.SECONDLY.toCycle(first));
            assertEquals(second + 1, third, "the writer whose clock is behind appends to the newest cycle");
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(first, tailer.read(into));
            assertEquals(second, tailer.read(into));
            assertEquals(third, tailer.read(into));
        }
    }

    @Test
    void shouldNameCycleFilesByTheirStartAndParseThemBack() {
        for (final RollCycle rollCycle : RollCycle.values()) {
            for (final long epoch : new long[]{0, 17 * 3_600_000L + 123}) {
                final long cycle = rollCycle.cycle(START, epoch);
                final String name = rollCycle.fileName(cycle, epoch);
                assertEquals(cycle, rollCycle.parseCycle(name, epoch), rollCycle + " " + name);
                assertEquals(cycle + 1, rollCycle.parseCycle(rollCycle.fileName(cycle + 1, epoch), epoch));
            }
            assertEquals(-1, rollCycle.parseCycle("metadata.spool", 0));
            assertEquals(-1, rollCycle.parseCycle("garbage" + RollCycle.FILE_SUFFIX, 0));
        }
    }

    @Test
    void shouldRefuseToReopenWithAnotherRollCycle() {
        try (SpoolQueue queue = open(new ManualClock(START))) {
            assertEquals(RollCycle.SECONDLY, queue.rollCycle());
        }
        final SpoolException e = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.HOURLY).openOrCreate());
        assertTrue(e.getMessage().contains("rollCycle=SECONDLY") && e.getMessage().contains("rollCycle=HOURLY"), e.getMessage());
        try (SpoolQueue reopened = SpoolQueue.open(tempDir.resolve("q"))) {
            assertEquals(RollCycle.SECONDLY, reopened.rollCycle(), "without an explicit setting the persisted one is adopted");
        }
    }

    @Test
    void shouldRejectAFullCycleBeforeWritingAndContinueInTheNextCycle() {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.SECONDLY).chunkLength(1 << 20)
                .indexSpacing(1).indexBlockEntries(8).epochClock(clock).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final long capacity = queue.cycleCapacity();
            assertEquals((1 << 15) * 8, capacity);
            final byte[] payload = new byte[4];
            for (long i = 0; i < capacity; i++) {
                appender.append(payload);
            }
            final long last = appender.lastIndexAppended();
            final SpoolException e = assertThrows(SpoolException.class, () -> appender.append(payload));
            assertTrue(e.getMessage().contains("is full") && e.getMessage().contains(String.valueOf(capacity)), e.getMessage());
            assertEquals(last, queue.lastIndex(), "nothing was written");
            clock.advance(1_000);
            final long next = appender.append(payload);
            assertEquals(RollCycle.SECONDLY.toCycle(last) + 1, RollCycle.SECONDLY.toCycle(next));
            try (ExcerptTailer tailer = queue.createTailer()) {
                assertTrue(tailer.moveToIndex(last));
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                assertEquals(last, tailer.read(into));
                assertEquals(next, tailer.read(into));
            }
        }
    }

    @Test
    void shouldKeepNoFileOpenForCyclesNoLongerInUse() throws Exception {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = open(clock);
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            for (int i = 0; i < 200; i++) {
                appender.append(new byte[]{(byte) i});
                into.clear();
                assertTrue(tailer.read(into) >= 0);
                clock.advance(1_000);
            }
            assertEquals(200, queue.cycles().length);
            assertTrue(Stores.of(queue).openCycleFiles() <= 2, "open cycle files: " + Stores.of(queue).openCycleFiles());
            try (var files = Files.list(tempDir.resolve("q"))) {
                assertEquals(202, files.count(), "200 cycles, the metadata file and the lock file");
            }
        }
    }
}
