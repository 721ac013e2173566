package dev.spool.queue.engine;

import dev.spool.queue.internal.CycleCalendar;

import org.agrona.concurrent.EpochClock;

/**
 * One appender's exact view of which cycle it is now, for an injected {@link EpochClock}: the clock is
 * read on every call, the calendar only when the time leaves the cached cycle.
 */
final class CycleClock implements CycleSource {
    private final EpochClock clock;
    private final CycleCalendar calendar;
    private long cycle = -1;
    private long cycleStartMillis = Long.MAX_VALUE;
    private long cycleEndMillis = Long.MIN_VALUE;

    CycleClock(final EpochClock clock, final CycleCalendar calendar) {
        this.clock = clock;
        this.calendar = calendar;
    }

    @Override
    public long currentCycle() {
        final long now = clock.time();
        if (now >= cycleStartMillis && now < cycleEndMillis) {
            return cycle;
        }
        cycle = calendar.cycle(now);
        cycleStartMillis = calendar.startMillis(cycle);
        cycleEndMillis = calendar.startMillis(cycle + 1);
        return cycle;
    }
}
