package dev.spool.queue.internal;

import dev.spool.queue.RollCycle;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * Not API: when each cycle of a queue starts and what its file is called. Either a {@link RollCycle}'s fixed-length
 * cycles from the queue's epoch, or a daily roll at a time of day in a time zone (a trading day ending 17:00 in New
 * York): cycle {@code c} then starts on local date {@code LocalDate.ofEpochDay(c)} at the roll time, as the zone's
 * rules place it on that date, so a cycle lasts 23 or 25 hours across a daylight-saving change; its file is named
 * {@code yyyyMMdd-HHmm} of that local start, which sorts as the cycles do. The engine, the tools and the ring
 * buffer's index rule all ask this class, so they agree. Immutable; the zoned arithmetic allocates, and callers
 * cache a cycle's bounds so that it runs once a roll.
 */
public final class CycleCalendar {
    private static final DateTimeFormatter ZONED_FILE_NAME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmm");
    private static final int DATE_LENGTH = "yyyyMMdd".length();

    private final RollCycle rollCycle;
    private final long epochMillis;
    private final LocalTime rollTime;
    private final ZoneId zone;

    private CycleCalendar(final RollCycle rollCycle, final long epochMillis, final LocalTime rollTime,
                          final ZoneId zone) {
        this.rollCycle = Objects.requireNonNull(rollCycle, "rollCycle");
        this.epochMillis = epochMillis;
        this.rollTime = rollTime;
        this.zone = zone;
    }

    /**
     * @param rollCycle   the roll cycle.
     * @param epochMillis when cycle 0 starts.
     * @return fixed-length cycles from the epoch.
     */
    public static CycleCalendar of(final RollCycle rollCycle, final long epochMillis) {
        return new CycleCalendar(rollCycle, epochMillis, null, null);
    }

    /**
     * @param rollTime the local time of day each cycle starts, a whole minute.
     * @param zone     the zone whose rules place it.
     * @return {@link RollCycle#DAILY} cycles, each starting at {@code rollTime} in {@code zone}.
     */
    public static CycleCalendar zoned(final LocalTime rollTime, final ZoneId zone) {
        return new CycleCalendar(RollCycle.DAILY, 0, Objects.requireNonNull(rollTime, "rollTime"),
                Objects.requireNonNull(zone, "zone"));
    }

    /** @return the roll cycle, which splits indices into cycle and sequence. */
    public RollCycle rollCycle() {
        return rollCycle;
    }

    /** @return the local time of day cycles start, or null for fixed-length cycles from the epoch. */
    public LocalTime rollTime() {
        return rollTime;
    }

    /** @return the zone of {@link #rollTime()}, or null. */
    public ZoneId zone() {
        return zone;
    }

    /**
     * @param timeMillis wall-clock time, ms since 1970.
     * @return the cycle that time falls in.
     */
    public long cycle(final long timeMillis) {
        if (zone == null) {
            return rollCycle.cycle(timeMillis, epochMillis);
        }
        long day = Instant.ofEpochMilli(timeMillis).atZone(zone).toLocalDate().toEpochDay();
        if (startMillis(day) > timeMillis) {
            // before today's roll: still the cycle that started yesterday
            day--;
        }
        return day;
    }

    /**
     * @param cycle a cycle.
     * @return when it starts, ms since 1970; it ends when {@code cycle + 1} starts.
     */
    public long startMillis(final long cycle) {
        return zone == null ? epochMillis + cycle * rollCycle.lengthMillis() : localStart(cycle).toInstant().toEpochMilli();
    }

    /**
     * @param cycle a cycle.
     * @return the name of its file.
     */
    public String fileName(final long cycle) {
        return zone == null ? rollCycle.fileName(cycle, epochMillis)
                : ZONED_FILE_NAME.format(localStart(cycle)) + RollCycle.FILE_SUFFIX;
    }

    /**
     * @param fileName a file name in the queue directory.
     * @return the cycle it names, or -1 if it is not the name of a cycle file of this calendar.
     */
    public long parseCycle(final String fileName) {
        if (zone == null) {
            return rollCycle.parseCycle(fileName, epochMillis);
        }
        if (fileName.length() < DATE_LENGTH) {
            return -1;
        }
        final long cycle;
        try {
            cycle = LocalDate.parse(fileName.substring(0, DATE_LENGTH), DateTimeFormatter.BASIC_ISO_DATE).toEpochDay();
        } catch (DateTimeParseException e) {
            return -1;
        }
        return cycle >= 0 && fileName(cycle).equals(fileName) ? cycle : -1;
    }

    private ZonedDateTime localStart(final long cycle) {
        // a roll time inside a spring-forward gap moves forward by the gap, as ZonedDateTime.of resolves it
        return ZonedDateTime.of(LocalDate.ofEpochDay(cycle), rollTime, zone);
    }

    @Override
    public boolean equals(final Object other) {
        return other instanceof CycleCalendar that && rollCycle == that.rollCycle && epochMillis == that.epochMillis
                && Objects.equals(rollTime, that.rollTime) && Objects.equals(zone, that.zone);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rollCycle, epochMillis, rollTime, zone);
    }

    @Override
    public String toString() {
        return zone == null ? rollCycle + " from epoch=" + epochMillis : rollCycle + " at " + rollTime + " " + zone;
    }
}
