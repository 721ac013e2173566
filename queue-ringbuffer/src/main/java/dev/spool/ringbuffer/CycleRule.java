package dev.spool.ringbuffer;

import dev.spool.queue.RollCycle;
import dev.spool.queue.internal.CycleCalendar;

/**
 * The rule that gives a record its queue index from the one before it, shared by the drainer and the ring readers
 * so that they agree: the record's time is its claim time, clamped to be no earlier than the time of the record
 * before; its cycle is that time's; its index is the previous index plus one in the same cycle, or sequence 0 of
 * a later cycle. The queue follows the rule because the drainer appends each record at the index the rule gives.
 * Allocation-free; one instance per thread.
 */
final class CycleRule {
    private final RollCycle rollCycle;
    private final CycleCalendar calendar;
    private long lastIndex;
    private long lastTime;
    private long cycleEndMillis;

    CycleRule(final CycleCalendar calendar) {
        this.rollCycle = calendar.rollCycle();
        this.calendar = calendar;
        reset(-1, 0);
    }

    /**
     * @param lastIndex the index of the last record, -1 if none.
     * @param lastTime  its time; raised to the start of its cycle if earlier.
     */
    void reset(final long lastIndex, final long lastTime) {
        this.lastIndex = lastIndex;
        if (lastIndex < 0) {
            this.lastTime = lastTime;
            this.cycleEndMillis = Long.MIN_VALUE;
        } else {
            final long cycle = rollCycle.toCycle(lastIndex);
            this.lastTime = Math.max(lastTime, calendar.startMillis(cycle));
            this.cycleEndMillis = calendar.startMillis(cycle + 1);
        }
    }

    /**
     * @param claimTime the next record's claim time.
     * @return the next record's index; {@link #lastTime()} is then its time.
     */
    long next(final long claimTime) {
        final long time = Math.max(claimTime, lastTime);
        if (time < cycleEndMillis) {
            lastIndex++;
        } else {
            final long cycle = calendar.cycle(time);
            cycleEndMillis = calendar.startMillis(cycle + 1);
            lastIndex = rollCycle.toIndex(cycle, 0);
        }
        lastTime = time;
        return lastIndex;
    }

    long lastIndex() {
        return lastIndex;
    }

    long lastTime() {
        return lastTime;
    }
}
