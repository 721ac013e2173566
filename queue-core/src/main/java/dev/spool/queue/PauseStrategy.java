package dev.spool.queue;

import java.util.concurrent.locks.LockSupport;

/**
 * What a thread does while it waits for something it cannot have yet: an excerpt to read, the write lock.
 * Instances hold the state of one wait and belong to one thread; {@link #reset()} starts a new wait.
 */
public interface PauseStrategy {
    /** Pauses once; called repeatedly while the condition is not met. */
    void pause();

    /** Starts a new wait: the next {@link #pause()} is the first one. */
    void reset();

    /** @return a strategy that spins on the CPU: the lowest latency, and one core burned while waiting. */
    static PauseStrategy busySpin() {
        return new BackoffPause(Long.MAX_VALUE, 0, 0, 0);
    }

    /** @return a strategy that yields the CPU on every pause. */
    static PauseStrategy yielding() {
        return new BackoffPause(0, Long.MAX_VALUE, 0, 0);
    }

    /**
     * @return spins a little, yields a little, then parks from 1 µs doubling up to 1 ms: latency of a few
     * microseconds while traffic flows and next to no CPU when idle.
     */
    static PauseStrategy backoff() {
        return new BackoffPause(100, 100, 1_000, 1_000_000);
    }

    /**
     * @param spins       pauses that spin before yielding.
     * @param yields      pauses that yield before parking.
     * @param minParkNs   the first park.
     * @param maxParkNs   the longest park; each park doubles up to it.
     * @return a strategy that spins, then yields, then parks with exponential backoff.
     */
    static PauseStrategy backoff(final long spins, final long yields, final long minParkNs, final long maxParkNs) {
        return new BackoffPause(spins, yields, minParkNs, maxParkNs);
    }

    /** Spin, then yield, then park with doubling durations. */
    final class BackoffPause implements PauseStrategy {
        private final long spins;
        private final long yields;
        private final long minParkNs;
        private final long maxParkNs;
        private long count;
        private long parkNs;

        BackoffPause(final long spins, final long yields, final long minParkNs, final long maxParkNs) {
            if (spins < 0 || yields < 0 || minParkNs < 0 || maxParkNs < minParkNs) {
                throw new SpoolException("bad backoff: spins=" + spins + " yields=" + yields
                        + " minParkNs=" + minParkNs + " maxParkNs=" + maxParkNs);
            }
            this.spins = spins;
            this.yields = yields;
            this.minParkNs = minParkNs;
            this.maxParkNs = maxParkNs;
            reset();
        }

        @Override
        public void pause() {
            if (count < spins) {
                count++;
                Thread.onSpinWait();
            } else if (count - spins < yields) {
                count++;
                Thread.yield();
            } else {
                LockSupport.parkNanos(parkNs);
                parkNs = Math.min(parkNs << 1, maxParkNs);
            }
        }

        @Override
        public void reset() {
            count = 0;
            parkNs = Math.max(1, minParkNs);
        }
    }
}
