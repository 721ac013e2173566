package dev.spool.queue;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.agrona.concurrent.EpochClock;

import static org.junit.jupiter.api.Assertions.*;

/** Rolls at a time of day in a time zone, across daylight-saving changes, on an injected clock. */
class ZonedRollTest extends SpoolTestBase {
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final ZoneId LONDON = ZoneId.of("Europe/London");

    private static final class SetClock implements EpochClock {
        private long millis;

        void set(final String instant) {
            millis = Instant.parse(instant).toEpochMilli();
        }

        @Override
        public long time() {
            return millis;
        }
    }

    private static long dayOf(final int year, final int month, final int day) {
        return LocalDate.of(year, month, day).toEpochDay();
    }

    private static List<String> cycleFileNames(final Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(RollCycle.FILE_SUFFIX))
                    .sorted().toList();
        }
    }

    private static List<String> readAll(final SpoolQueue queue) {
        final List<String> read = new ArrayList<>();
        try (ExcerptTailer tailer = queue.createTailer()) {
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            while (tailer.read(into) >= 0) {
                read.add(into.toString());
                into.clear();
            }
        }
        return read;
    }

    @Test
    void shouldRollAt1700NewYorkBeforeAndAfterSpringForward() throws IOException {
        final Path dir = tempDir.resolve("q");
        final SetClock clock = new SetClock();
        try (SpoolQueue queue = SpoolQueue.builder(dir).rollTime(LocalTime.of(17, 0), NEW_YORK).epochClock(clock)
                .chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final RollCycle daily = queue.rollCycle();
            clock.set("2026-03-06T21:59:59.999Z"); // Friday 16:59:59.999 EST
            assertEquals(dayOf(2026, 3, 5), daily.toCycle(appender.append("a".getBytes())));
            clock.set("2026-03-06T22:00:00Z"); // Friday 17:00 EST
            assertEquals(dayOf(2026, 3, 6), daily.toCycle(appender.append("b".getBytes())));
            clock.set("2026-03-08T20:59:59.999Z"); // Sunday 16:59:59.999 EDT: Saturday's cycle lasts 23 hours
            assertEquals(dayOf(2026, 3, 7), daily.toCycle(appender.append("c".getBytes())));
            clock.set("2026-03-08T21:00:00Z"); // Sunday 17:00 EDT
            assertEquals(dayOf(2026, 3, 8), daily.toCycle(appender.append("d".getBytes())));
            assertEquals(List.of("a", "b", "c", "d"), readAll(queue));
        }
        assertEquals(List.of("20260305-1700.cycle", "20260306-1700.cycle", "20260307-1700.cycle", "20260308-1700.cycle"),
                cycleFileNames(dir), "names sort as the cycles do");
        assertTrue(verify(dir).startsWith("OK: 4 cycles, 4 excerpts"), verify(dir));
    }

    @Test
    void shouldMakeTheCycleBeforeFallBackTwentyFiveHoursLongAt2200London() {
        final SetClock clock = new SetClock();
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).rollTime(LocalTime.of(22, 0), LONDON)
                .epochClock(clock).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final RollCycle daily = queue.rollCycle();
            clock.set("2026-10-24T21:00:00Z"); // Saturday 22:00 BST
            assertEquals(dayOf(2026, 10, 24), daily.toCycle(appender.append("a".getBytes())));
            clock.set("2026-10-25T21:59:59.999Z"); // Sunday 21:59:59.999 GMT, 25 hours on
            assertEquals(dayOf(2026, 10, 24), daily.toCycle(appender.append("b".getBytes())));
            clock.set("2026-10-25T22:00:00Z"); // Sunday 22:00 GMT
            assertEquals(dayOf(2026, 10, 25), daily.toCycle(appender.append("c".getBytes())));
        }
    }

    @Test
    void shouldPersistTheRollTimeAndRefuseReopeningWithAnother() throws IOException {
        final Path dir = tempDir.resolve("q");
        final SetClock clock = new SetClock();
        clock.set("2026-06-01T20:59:00Z"); // 16:59 EDT
        try (SpoolQueue queue = SpoolQueue.builder(dir).rollTime(LocalTime.of(17, 0), NEW_YORK).epochClock(clock)
                .chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            appender.append("a".getBytes());
        }
        clock.set("2026-06-01T21:00:00Z"); // 17:00 EDT
        try (SpoolQueue queue = SpoolQueue.builder(dir).epochClock(clock).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            assertEquals(dayOf(2026, 6, 1), queue.rollCycle().toCycle(appender.append("b".getBytes())),
                    "reopened without the setting, the queue keeps rolling at 17:00 New York");
        }
        assertEquals(List.of("20260531-1700.cycle", "20260601-1700.cycle"), cycleFileNames(dir));
        final SpoolException other = assertThrows(SpoolException.class, () -> SpoolQueue.builder(dir)
                .rollTime(LocalTime.of(22, 0), LONDON).openOrCreate().close());
        assertTrue(other.getMessage().contains("DAILY at 17:00 America/New_York")
                && other.getMessage().contains("rollTime=22:00 Europe/London"), other.getMessage());
    }

    @Test
    void shouldRefuseAtBuildARollTimeWithSecondsNamingOptionAndValue() {
        final Path dir = tempDir.resolve("q");
        final SpoolException seconds = assertThrows(SpoolException.class, () -> SpoolQueue.builder(dir)
                .rollTime(LocalTime.of(17, 0, 30), NEW_YORK).openOrCreate().close());
        assertEquals("rollTime=17:00:30 America/New_York must be a whole minute", seconds.getMessage());
        assertFalse(Files.exists(dir.resolve("metadata.spool")), "nothing was created");
    }

    @Test
    void shouldTakeTheLastRollSettingOfEitherKindAndClearTheOther() {
        try (SpoolQueue zoned = SpoolQueue.builder(tempDir.resolve("zoned")).rollCycle(RollCycle.HOURLY).epochMillis(1000)
                .rollTime(LocalTime.of(17, 0), NEW_YORK).openOrCreate()) {
            assertEquals(RollCycle.DAILY, zoned.rollCycle(), "the roll time clears the roll cycle");
            assertEquals(0, zoned.epochMillis(), "and the epoch");
        }
        try (SpoolQueue plain = SpoolQueue.builder(tempDir.resolve("plain")).rollTime(LocalTime.of(17, 0), NEW_YORK)
                .rollCycle(RollCycle.HOURLY).epochMillis(1000).openOrCreate()) {
            assertEquals(RollCycle.HOURLY, plain.rollCycle(), "a roll cycle clears the roll time");
            assertEquals(1000, plain.epochMillis());
        }
        try (SpoolQueue plain = SpoolQueue.builder(tempDir.resolve("epoch")).rollTime(LocalTime.of(17, 0), NEW_YORK)
                .epochMillis(1000).openOrCreate()) {
            assertEquals(1000, plain.epochMillis(), "an epoch clears the roll time");
        }
    }
}
