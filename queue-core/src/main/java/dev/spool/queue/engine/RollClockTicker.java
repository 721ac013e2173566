package dev.spool.queue.engine;

import dev.spool.queue.internal.AgentHost;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SystemEpochClock;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The agent that keeps the {@link RollClock}s of a JVM up to date, on one daemon thread of an {@link AgentHost},
 * {@value RollClock#THREAD_NAME}. Its {@link #doWork()} updates every clock once the earliest of their next
 * updates is due, and its idle strategy parks until then: the thread wakes twice per cycle, never in between, so it
 * takes no CPU from the application's hot threads. {@link #wake()} makes it update at once, when a clock comes or
 * goes; with none left it stops, and the next clock acquired starts another.
 */
final class RollClockTicker implements Agent {
    /** The clocks, guarded by the list itself: {@link RollClock#acquire} and {@link RollClock#release()} hold it. */
    private final List<RollClock> clocks;
    /** When the next clock is due an update, in ms since 1970; {@link Long#MIN_VALUE} to update at once. */
    private volatile long nextUpdateMillis = Long.MIN_VALUE;
    private volatile Thread thread;

    private RollClockTicker(final List<RollClock> clocks) {
        this.clocks = clocks;
    }

    /**
     * @param clocks the JVM's clocks; the caller holds their monitor.
     * @return a ticker running on its own daemon thread.
     */
    static RollClockTicker start(final List<RollClock> clocks) {
        final RollClockTicker ticker = new RollClockTicker(clocks);
        AgentHost.builder("roll clock (until it recovers, appends read the wall clock)", ticker)
                .threadFactory(AgentHost.daemonThreads())
                .start(new UntilDue(ticker));
        return ticker;
    }

    /** Makes the ticker update every clock now; the caller holds the clocks' monitor. */
    void wake() {
        nextUpdateMillis = Long.MIN_VALUE;
        final Thread runner = thread;
        if (runner != null) {
            LockSupport.unpark(runner);
        }
    }

    @Override
    public void onStart() {
        thread = Thread.currentThread();
    }

    /**
     * @return the clocks updated, 0 if none was due.
     * @throws AgentTerminationException once no clock is left: the thread ends.
     */
    @Override
    public int doWork() {
        final long now = SystemEpochClock.INSTANCE.time();
        if (now < nextUpdateMillis) {
            return 0;
        }
        synchronized (clocks) {
            final int count = clocks.size();
            if (count == 0) {
                RollClock.tickerStopped(this);
                throw new AgentTerminationException("no roll clock left", true);
            }
            long next = Long.MAX_VALUE;
            for (int i = 0; i < count; i++) {
                next = Math.min(next, clocks.get(i).update(now));
            }
            nextUpdateMillis = next;
            return count;
        }
    }

    @Override
    public String roleName() {
        return RollClock.THREAD_NAME;
    }

    /** Parks the ticker's thread until its next update is due, or until {@link #wake()}. */
    private static final class UntilDue implements IdleStrategy {
        private final RollClockTicker ticker;

        UntilDue(final RollClockTicker ticker) {
            this.ticker = ticker;
        }

        @Override
        public void idle(final int workCount) {
            if (workCount == 0) {
                idle();
            }
        }

        @Override
        public void idle() {
            final long delay = ticker.nextUpdateMillis - SystemEpochClock.INSTANCE.time();
            if (delay > 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(delay));
            }
        }

        @Override
        public void reset() {
            // no state: the due time is the ticker's
        }

        @Override
        public String alias() {
            return "until-due";
        }
    }
}
