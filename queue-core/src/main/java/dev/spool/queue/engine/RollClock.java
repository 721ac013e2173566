package dev.spool.queue.engine;

import dev.spool.queue.internal.CycleCalendar;

import org.agrona.concurrent.SystemEpochClock;

import java.util.ArrayList;
import java.util.List;

/**
 * Which cycle it is now on the system clock, for the price of a volatile read: reading the wall clock costs about
 * as much as the rest of an append on the machines Spool is measured on (about 20 ns).
 * <p>
 * One agent per JVM, the {@link RollClockTicker} on its daemon thread {@value #THREAD_NAME}, parks between cycle
 * boundaries and keeps a volatile
 * {@link #cycle} up to date. From {@link #guardMillis} before a boundary to {@link #guardMillis} after it the
 * field holds {@link #CHECK_CLOCK} and every caller reads the wall clock, so the roll happens at the exact
 * millisecond unless the daemon wakes more than the guard (50 ms, or a tenth of a short cycle) late. If it does,
 * appends in that window go to the previous cycle until it wakes; a writer in another process that already
 * rolled makes every writer follow. It serves only the queues whose epoch clock is {@link SystemEpochClock#INSTANCE},
 * and reads that clock; a queue built with another clock reads it on every append instead.
 */
final class RollClock implements CycleSource {
    static final String THREAD_NAME = "spool-roll-clock";
    private static final long CHECK_CLOCK = Long.MIN_VALUE;
    private static final long MAX_GUARD_MILLIS = 50;
    private static final List<RollClock> CLOCKS = new ArrayList<>();
    /** The running ticker, guarded by {@link #CLOCKS}; null when none runs. */
    private static RollClockTicker ticker;

    private final CycleCalendar calendar;
    private final long guardMillis;
    /** The current cycle's bounds, for the ticker's thread: the calendar is asked again only after a roll. */
    private long startMillis = Long.MAX_VALUE;
    private long endMillis = Long.MIN_VALUE;
    private long boundsCycle;
    private int references;
    private volatile long cycle = CHECK_CLOCK;

    RollClock(final CycleCalendar calendar) {
        this.calendar = calendar;
        this.guardMillis = Math.min(MAX_GUARD_MILLIS, calendar.rollCycle().lengthMillis() / 10);
    }

    /** @return the shared clock of this calendar; {@link #release()} it when done. */
    static RollClock acquire(final CycleCalendar calendar) {
        synchronized (CLOCKS) {
            RollClock clock = null;
            for (final RollClock candidate : CLOCKS) {
                if (candidate.calendar.equals(calendar)) {
                    clock = candidate;
                }
            }
            if (clock == null) {
                clock = new RollClock(calendar);
                clock.update(SystemEpochClock.INSTANCE.time());
                CLOCKS.add(clock);
            }
            clock.references++;
            if (ticker == null) {
                ticker = RollClockTicker.start(CLOCKS);
            } else {
                ticker.wake();
            }
            return clock;
        }
    }

    void release() {
        synchronized (CLOCKS) {
            if (--references == 0) {
                CLOCKS.remove(this);
                ticker.wake();
            }
        }
    }

    @Override
    public long currentCycle() {
        final long current = cycle;
        return current != CHECK_CLOCK ? current : calendar.cycle(SystemEpochClock.INSTANCE.time());
    }

    /** @return the cycle cached for callers, or {@link Long#MIN_VALUE} inside a guard window. */
    long cachedCycle() {
        return cycle;
    }

    /** @return when this clock next needs an update, in ms since 1970. */
    long update(final long now) {
        if (now < startMillis || now >= endMillis) {
            boundsCycle = calendar.cycle(now);
            startMillis = calendar.startMillis(boundsCycle);
            endMillis = calendar.startMillis(boundsCycle + 1);
        }
        final long start = startMillis;
        final long end = endMillis;
        if (now < start + guardMillis) {
            cycle = CHECK_CLOCK;
            return start + guardMillis;
        }
        if (now >= end - guardMillis) {
            cycle = CHECK_CLOCK;
            return end + guardMillis;
        }
        cycle = boundsCycle;
        return end - guardMillis;
    }

    /** Called by {@code stopped}, holding {@link #CLOCKS}, when it found no clock left: the next acquire starts one. */
    static void tickerStopped(final RollClockTicker stopped) {
        if (ticker == stopped) {
            ticker = null;
        }
    }
}
