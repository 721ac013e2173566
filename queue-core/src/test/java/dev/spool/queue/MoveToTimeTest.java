package dev.spool.queue;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** {@link ExcerptTailer#moveToTime}: the times index entries record, searched across files and writers. */
class MoveToTimeTest extends SpoolTestBase {
    private static final long START = Instant.parse("2026-03-02T09:00:00Z").toEpochMilli();
    private static final int SPACING = 4;

    private SpoolQueue open(final Path dir, final ManualClock clock) {
        return SpoolQueue.builder(dir).rollCycle(RollCycle.HOURLY).indexSpacing(SPACING).indexTimes(true)
                .chunkLength(1 << 20).epochClock(clock).openOrCreate();
    }

    /** Appends {@code count} excerpts, each holding its number, one every 10 ms. */
    private static void appendEvery10Ms(final ExcerptAppender appender, final ManualClock clock, final int from,
                                        final int count) {
        for (int i = from; i < from + count; i++) {
            appender.append(Integer.toString(i).getBytes());
            clock.advance(10);
        }
    }

    private static String readNext(final ExcerptTailer tailer) {
        final Bytes<?> into = Bytes.allocateElasticOnHeap();
        assertTrue(tailer.read(into) >= 0, "an excerpt to read");
        return into.toString();
    }

    @Test
    void shouldStartAtTheLastIndexedExcerptAppendedBeforeTheTime() {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = open(tempDir.resolve("q"), clock);
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appendEvery10Ms(appender, clock, 0, 100);
            // excerpt 50 at +500 ms, 51 at +510; entries every 4: entry 48 (+480) is the last before +505, and
            // excerpt 49 was appended after it was recorded
            tailer.moveToTime(Instant.ofEpochMilli(START + 505));
            assertEquals("49", readNext(tailer));
            // exactly on an indexed excerpt's time: that excerpt is not skipped
            tailer.moveToTime(Instant.ofEpochMilli(START + 520));
            assertEquals("49", readNext(tailer));
            tailer.moveToTime(Instant.ofEpochMilli(START + 521));
            assertEquals("53", readNext(tailer));
            // sub-millisecond times round down
            tailer.moveToTime(Instant.ofEpochMilli(START + 520).plusNanos(999_999));
            assertEquals("49", readNext(tailer));
            // backward, the last excerpt known to be appended before the time comes first
            tailer.direction(Direction.BACKWARD).moveToTime(Instant.ofEpochMilli(START + 505));
            assertEquals("48", readNext(tailer));
            assertEquals("47", readNext(tailer));
        }
    }

    @Test
    void shouldStartAtTheFirstExcerptForATimeBeforeAllAndNearTheEndForATimeAfterAll() {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = open(tempDir.resolve("q"), clock);
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            tailer.moveToTime(Instant.ofEpochMilli(START));
            assertFalse(tailer.read((bytes, offset, length, index) -> fail("an empty queue has nothing to read")));
            appendEvery10Ms(appender, clock, 0, 10);
            tailer.moveToTime(Instant.EPOCH);
            assertEquals("0", readNext(tailer));
            tailer.moveToTime(Instant.MIN);
            assertEquals("0", readNext(tailer));
            tailer.moveToTime(Instant.MAX);
            assertEquals("9", readNext(tailer), "after the last indexed excerpt: later ones are not indexed");
            assertFalse(tailer.read((bytes, offset, length, index) -> fail("nothing after the last")));
        }
    }

    @Test
    void shouldFindTheCycleAcrossRollsByBinarySearch() {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = open(tempDir.resolve("q"), clock);
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final List<Long> hourStarts = new ArrayList<>();
            for (int hour = 0; hour < 5; hour++) {
                hourStarts.add(clock.time());
                appendEvery10Ms(appender, clock, hour * 100, 20);
                clock.advance(RollCycle.HOURLY.lengthMillis());
            }
            assertEquals(5, queue.cycles().length, "one file an hour");
            for (int hour = 0; hour < 5; hour++) {
                // +55 ms: excerpt 5 of the hour at +50, entry 4 at +40 is the last before
                tailer.moveToTime(Instant.ofEpochMilli(hourStarts.get(hour) + 55));
                assertEquals(Integer.toString(hour * 100 + 5), readNext(tailer));
                // just before an hour's first excerpt: after the last entry of the hour before (or the very start)
                tailer.moveToTime(Instant.ofEpochMilli(hourStarts.get(hour)));
                assertEquals(hour == 0 ? "0" : Integer.toString((hour - 1) * 100 + 17), readNext(tailer));
            }
        }
    }

    @Test
    void shouldNeverRecordAnEarlierTimeThanTheEntryBeforeWhenTheClockGoesBack() {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = open(tempDir.resolve("q"), clock);
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appendEvery10Ms(appender, clock, 0, 8); // entries 0 (+0) and 4 (+40)
            clock.advance(-1000);
            appendEvery10Ms(appender, clock, 8, 8); // entries 8 and 12 would be -920 and -880 ms: recorded as +40
            tailer.moveToTime(Instant.ofEpochMilli(START + 41));
            assertEquals("13", readNext(tailer), "entries 8 and 12 hold +40, the time of the entry before them");
            tailer.moveToTime(Instant.ofEpochMilli(START + 40));
            assertEquals("1", readNext(tailer), "no entry is before +40 but entry 0");
        }
    }

    @Test
    void shouldAllocateNothingPerAppendWhenRecordingIndexTimesOnTheSystemClock() {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        // one 64 MiB chunk and one index block hold every append: no new mapping or block in the measured loop
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).indexTimes(true).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final byte[] message = new byte[32];
            for (int i = 0; i < 100_000; i++) {
                appender.append(message);
            }
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                appender.append(message);
            }
            final long bytes = threads.getCurrentThreadAllocatedBytes() - before;
            // a one-off the JIT may cause (a deoptimization re-creating an eliminated object), as BackgroundAgentsTest
            // allows; one allocation per indexed append would be 1,562 of them
            assertTrue(bytes <= 16 * 1024, "100,000 appends, 1,562 indexed with a time, allocated " + bytes + " bytes");
        }
    }

    @Test
    void shouldRefuseAQueueCreatedWithoutIndexTimesNamingTheOption() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             ExcerptTailer tailer = queue.createTailer()) {
            final SpoolException e = assertThrows(SpoolException.class, () -> tailer.moveToTime(Instant.EPOCH));
            assertTrue(e.getMessage().contains("indexTimes") && e.getMessage().contains(tempDir.resolve("q").toString()),
                    e.getMessage());
        }
    }

    @Test
    void shouldPersistIndexTimesAndRefuseReopeningWithoutThem() {
        final Path dir = tempDir.resolve("q");
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = open(dir, clock); ExcerptAppender appender = queue.createAppender()) {
            appendEvery10Ms(appender, clock, 0, 10);
        }
        final SpoolException e = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(dir).indexTimes(false).openOrCreate().close());
        assertTrue(e.getMessage().contains("indexTimes=true"), e.getMessage());
        try (SpoolQueue queue = SpoolQueue.builder(dir).epochClock(clock).openOrCreate();
             ExcerptTailer tailer = queue.createTailer()) {
            tailer.moveToTime(Instant.ofEpochMilli(START + 45));
            assertEquals("5", readNext(tailer), "reopened without the setting, the queue keeps its times");
        }
        final String verified = verify(dir);
        assertTrue(verified.startsWith("OK: 1 cycles, 10 excerpts"), "verify accepts the longer index blocks: " + verified);
    }

    @Test
    void shouldSkipNoExcerptAppendedAfterTheTimeWhenSeveralProcessesWrite() throws Exception {
        final Path dir = tempDir.resolve("q");
        final int writers = 3;
        final int perWriter = 20_000;
        try (SpoolQueue queue = SpoolQueue.builder(dir).indexTimes(true).chunkLength(1 << 20).openOrCreate()) {
            final List<ChildJvm> children = new ArrayList<>();
            try {
                for (int writer = 0; writer < writers; writer++) {
                    children.add(ChildJvm.start(ChildMains.TimedAppender.class, tempDir.resolve("children.stderr"),
                            dir.toString(), String.valueOf(perWriter)));
                }
                for (final ChildJvm child : children) {
                    child.awaitLine("READY", 60, TimeUnit.SECONDS);
                }
                for (final ChildJvm child : children) {
                    child.send("GO");
                }
                for (final ChildJvm child : children) {
                    child.awaitLine("DONE", 120, TimeUnit.SECONDS);
                    assertEquals(0, child.awaitExit(30, TimeUnit.SECONDS));
                }
            } finally {
                for (final ChildJvm child : children) {
                    child.close();
                }
            }
            final List<Long> times = new ArrayList<>();
            try (ExcerptTailer all = queue.createTailer()) {
                while (all.read((bytes, offset, length, index) -> times.add(bytes.readLong(offset)))) {
                    // the children wrote little-endian longs, which readLong reads on the machines Spool runs on
                }
            }
            assertEquals(writers * perWriter, times.size());
            final long first = times.get(0);
            final long last = times.get(times.size() - 1);
            try (ExcerptTailer tailer = queue.createTailer()) {
                for (long t = first; t <= last + 1; t += Math.max(1, (last - first) / 200)) {
                    tailer.moveToTime(Instant.ofEpochMilli(t));
                    final long start = queue.rollCycle().toSequence(tailer.index());
                    assertTrue(start == 0 || (start - 1) % SpoolQueueBuilder.DEFAULT_INDEX_SPACING == 0,
                            "the start, or just after an indexed excerpt: " + start);
                    for (int i = 0; i < start; i++) {
                        // read before the append, a payload's time is at most its append time
                        assertTrue(times.get(i) < t, "excerpt " + i + " read at " + times.get(i)
                                + " ms was skipped by moveToTime(" + t + ")");
                    }
                }
            }
        }
    }
}
