package dev.spool.queue;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;

/**
 * How often a queue starts a new cycle file, and how the 64-bit index splits into cycle and sequence.
 * <p>
 * {@code index = cycle << sequenceBits | sequence}, where {@code cycle = floor((time - epoch) / length)}. The
 * sequence bits bound the excerpts one cycle can hold; the sparse index bounds them too (see
 * {@link SpoolQueue#cycleCapacity()}), and an appender that reaches the bound throws before it writes anything.
 * <table>
 * <caption>Roll cycles</caption>
 * <tr><th>cycle</th><th>file name (UTC of cycle start)</th><th>sequence bits</th><th>cycles until the index
 * overflows</th></tr>
 * <tr><td>SECONDLY</td><td>yyyyMMdd-HHmmss</td><td>31</td><td>2^32 seconds: 136 years from the epoch</td></tr>
 * <tr><td>MINUTELY</td><td>yyyyMMdd-HHmm</td><td>36</td><td>2^27 minutes: 255 years</td></tr>
 * <tr><td>HOURLY</td><td>yyyyMMdd-HH</td><td>40</td><td>2^23 hours: 957 years</td></tr>
 * <tr><td>DAILY</td><td>yyyyMMdd</td><td>42</td><td>2^21 days: 5,700 years</td></tr>
 * <tr><td>WEEKLY</td><td>yyyyMMdd</td><td>44</td><td>2^19 weeks: 10,000 years</td></tr>
 * </table>
 */
public enum RollCycle {
    /** One file a second: for tests and very fast rolls. */
    SECONDLY(1, 1_000L, "yyyyMMdd-HHmmss", 31),
    /** One file a minute. */
    MINUTELY(2, 60_000L, "yyyyMMdd-HHmm", 36),
    /** One file an hour. */
    HOURLY(3, 3_600_000L, "yyyyMMdd-HH", 40),
    /** One file a day. */
    DAILY(4, 86_400_000L, "yyyyMMdd", 42),
    /** One file a week, starting on the epoch's weekday. */
    WEEKLY(5, 604_800_000L, "yyyyMMdd", 44);

    /** Suffix of every cycle file. */
    public static final String FILE_SUFFIX = ".cycle";

    private final int id;
    private final long lengthMillis;
    private final DateTimeFormatter format;
    private final int sequenceBits;

    RollCycle(final int id, final long lengthMillis, final String pattern, final int sequenceBits) {
        this.id = id;
        this.lengthMillis = lengthMillis;
        this.format = DateTimeFormatter.ofPattern(pattern).withZone(ZoneOffset.UTC);
        this.sequenceBits = sequenceBits;
    }

    /** @return the number persisted in the queue's files for this roll cycle. */
    public int id() {
        return id;
    }

    /** @return the length of one cycle in milliseconds. */
    public long lengthMillis() {
        return lengthMillis;
    }

    /** @return bits of the index that hold the sequence within a cycle. */
    public int sequenceBits() {
        return sequenceBits;
    }

    /** @return the largest sequence count the index format allows in one cycle. */
    public long maxSequences() {
        return 1L << sequenceBits;
    }

    /**
     * @param cycle    the cycle number.
     * @param sequence the sequence within the cycle.
     * @return the 64-bit index.
     */
    public long toIndex(final long cycle, final long sequence) {
        return cycle << sequenceBits | sequence;
    }

    /**
     * @param index a 64-bit index.
     * @return its cycle.
     */
    public long toCycle(final long index) {
        return index >>> sequenceBits;
    }

    /**
     * @param index a 64-bit index.
     * @return its sequence within the cycle.
     */
    public long toSequence(final long index) {
        return index & ((1L << sequenceBits) - 1);
    }

    /**
     * @param timeMillis wall-clock time.
     * @param epochMillis the queue's epoch.
     * @return the cycle that time falls in.
     */
    public long cycle(final long timeMillis, final long epochMillis) {
        return Math.floorDiv(timeMillis - epochMillis, lengthMillis);
    }

    /**
     * @param cycle the cycle.
     * @param epochMillis the queue's epoch.
     * @return the file name of that cycle.
     */
    public String fileName(final long cycle, final long epochMillis) {
        return format.format(Instant.ofEpochMilli(epochMillis + cycle * lengthMillis)) + FILE_SUFFIX;
    }

    /**
     * @param fileName    a file name in the queue directory.
     * @param epochMillis the queue's epoch.
     * @return the cycle it names, or -1 if it is not a cycle file of this roll cycle.
     */
    public long parseCycle(final String fileName, final long epochMillis) {
        if (!fileName.endsWith(FILE_SUFFIX)) {
            return -1;
        }
        final String stem = fileName.substring(0, fileName.length() - FILE_SUFFIX.length());
        final long startMillis;
        try {
            final var parsed = format.parse(stem);
            final LocalDateTime time = LocalDateTime.of(
                    parsed.get(ChronoField.YEAR), parsed.get(ChronoField.MONTH_OF_YEAR), parsed.get(ChronoField.DAY_OF_MONTH),
                    parsed.isSupported(ChronoField.HOUR_OF_DAY) ? parsed.get(ChronoField.HOUR_OF_DAY) : 0,
                    parsed.isSupported(ChronoField.MINUTE_OF_HOUR) ? parsed.get(ChronoField.MINUTE_OF_HOUR) : 0,
                    parsed.isSupported(ChronoField.SECOND_OF_MINUTE) ? parsed.get(ChronoField.SECOND_OF_MINUTE) : 0);
            startMillis = time.toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException e) {
            return -1;
        }
        // The name is the cycle start truncated to the pattern's unit, which is never longer than the cycle.
        final long cycle = Math.floorDiv(startMillis - epochMillis + lengthMillis - 1, lengthMillis);
        return cycle >= 0 && fileName(cycle, epochMillis).equals(fileName) ? cycle : -1;
    }

    /**
     * @param id a persisted roll cycle id.
     * @return the roll cycle, or null if the id is unknown.
     */
    public static RollCycle ofId(final int id) {
        for (final RollCycle rollCycle : values()) {
            if (rollCycle.id == id) {
                return rollCycle;
            }
        }
        return null;
    }
}
