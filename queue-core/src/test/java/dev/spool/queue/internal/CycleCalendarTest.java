package dev.spool.queue.internal;

import dev.spool.queue.RollCycle;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;

import static org.junit.jupiter.api.Assertions.*;

class CycleCalendarTest {
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final long HOUR = Duration.ofHours(1).toMillis();

    @Test
    void shouldStartEveryCycleAtTheLocalRollTimeAndNameFilesInSortedOrderForAYear() {
        final CycleCalendar calendar = CycleCalendar.zoned(LocalTime.of(17, 0), NEW_YORK);
        final long first = LocalDate.of(2026, 1, 1).toEpochDay();
        String previousName = "";
        int shortDays = 0;
        int longDays = 0;
        for (long cycle = first; cycle < first + 365; cycle++) {
            final long start = calendar.startMillis(cycle);
            assertEquals(LocalTime.of(17, 0), Instant.ofEpochMilli(start).atZone(NEW_YORK).toLocalTime());
            final long length = calendar.startMillis(cycle + 1) - start;
            shortDays += length == 23 * HOUR ? 1 : 0;
            longDays += length == 25 * HOUR ? 1 : 0;
            assertTrue(length == 23 * HOUR || length == 24 * HOUR || length == 25 * HOUR, "cycle " + cycle + ": " + length);
            assertEquals(cycle, calendar.cycle(start));
            assertEquals(cycle, calendar.cycle(start + length - 1));
            assertEquals(cycle - 1, calendar.cycle(start - 1));
            final String name = calendar.fileName(cycle);
            assertTrue(name.compareTo(previousName) > 0, name + " sorts after " + previousName);
            assertEquals(cycle, calendar.parseCycle(name));
            previousName = name;
        }
        assertEquals(1, shortDays, "spring forward");
        assertEquals(1, longDays, "fall back");
        assertEquals("20260307-1700.cycle", calendar.fileName(LocalDate.of(2026, 3, 7).toEpochDay()));
    }

    @Test
    void shouldMoveARollTimeInsideTheSpringForwardGapByTheGap() {
        final CycleCalendar calendar = CycleCalendar.zoned(LocalTime.of(2, 30), NEW_YORK);
        final long sunday = LocalDate.of(2026, 3, 8).toEpochDay();
        assertEquals(Instant.parse("2026-03-08T07:30:00Z").toEpochMilli(), calendar.startMillis(sunday), "03:30 EDT");
        assertEquals("20260308-0330.cycle", calendar.fileName(sunday));
        assertEquals(sunday, calendar.parseCycle("20260308-0330.cycle"));
        assertEquals(-1, calendar.parseCycle("20260308-0230.cycle"), "no cycle started at a time that did not exist");
    }

    @Test
    void shouldRejectNamesOfOtherCalendars() {
        final CycleCalendar zoned = CycleCalendar.zoned(LocalTime.of(17, 0), NEW_YORK);
        assertEquals(-1, zoned.parseCycle("20260307.cycle"), "a DAILY name from the epoch");
        assertEquals(-1, zoned.parseCycle("20260307-1600.cycle"), "another roll time");
        assertEquals(-1, zoned.parseCycle("2026030x-1700.cycle"));
        assertEquals(-1, zoned.parseCycle("metadata.spool"));
        final CycleCalendar daily = CycleCalendar.of(RollCycle.DAILY, 0);
        assertEquals(-1, daily.parseCycle("20260307-1700.cycle"));
        assertEquals(daily.fileName(20_000), RollCycle.DAILY.fileName(20_000, 0), "unzoned calendars keep the old names");
    }
}
