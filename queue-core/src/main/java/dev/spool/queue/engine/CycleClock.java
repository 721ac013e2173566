package dev.spool.queue.engine;

import dev.spool.queue.RollCycle;
import dev.spool.queue.TimeProvider;

/**
 * One appender's exact view of which cycle it is now, for an injected {@link TimeProvider}: the time provider is
 * read on every call, the division only when the time leaves the cached cycle.
 */
final class CycleClock implements CycleSource {
    private final TimeProvider timeProvider;
    private final RollCycle rollCycle;
    private final long epochMillis;
    private long cycle = -1;
    private long cycleStartMillis = Long.MAX_VALUE;
    private long cycleEndMillis = Long.MIN_VALUE;

    CycleClock(final TimeProvider timeProvider, final RollCycle rollCycle, final long epochMillis) {
        this.timeProvider = timeProvider;
        this.rollCycle = rollCycle;
        this.epochMillis = epochMillis;
    }

    @Override
    public long currentCycle() {
        final long now = timeProvider.currentTimeMillis();
        if (now >= cycleStartMillis && now < cycleEndMillis) {
            return cycle;
        }
        cycle = rollCycle.cycle(now, epochMillis);
        cycleStartMillis = epochMillis + cycle * rollCycle.lengthMillis();
        cycleEndMillis = cycleStartMillis + rollCycle.lengthMillis();
        return cycle;
    }
}
