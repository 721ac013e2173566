package dev.spool.queue.engine;

import dev.spool.queue.TimeProvider;
import dev.spool.queue.internal.CycleCalendar;

/**
 * One appender's exact view of which cycle it is now, for an injected {@link TimeProvider}: the time provider is
 * read on every call, the calendar only when the time leaves the cached cycle.
 */
final class CycleClock implements CycleSource {
    private final TimeProvider timeProvider;
    private final CycleCalendar calendar;
    private long cycle = -1;
    private long cycleStartMillis = Long.MAX_VALUE;
    private long cycleEndMillis = Long.MIN_VALUE;

    CycleClock(final TimeProvider timeProvider, final CycleCalendar calendar) {
        this.timeProvider = timeProvider;
        this.calendar = calendar;
    }

    @Override
    public long currentCycle() {
        final long now = timeProvider.currentTimeMillis();
        if (now >= cycleStartMillis && now < cycleEndMillis) {
            return cycle;
        }
        cycle = calendar.cycle(now);
        cycleStartMillis = calendar.startMillis(cycle);
        cycleEndMillis = calendar.startMillis(cycle + 1);
        return cycle;
    }
}
