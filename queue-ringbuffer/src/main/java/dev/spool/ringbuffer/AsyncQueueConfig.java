package dev.spool.ringbuffer;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadFactory;

/**
 * The settings of one {@link AsyncQueue}, validated and resolved by {@link AsyncQueueBuilder}'s conclude step: the
 * ring's path and reserve, the drainer's threading and hook, and the clocks, error handler and thread factory of the
 * queue in front of which the ring sits. Immutable: the async queue, its drainer and its tailers read it, and nothing
 * reads the builder again.
 *
 * @param ringPath          the ring file.
 * @param ringCapacity      the ring's bytes of records.
 * @param ringFileMode      the ring file's permissions when created.
 * @param registerMBean     whether the ring's MBean (and its drainer's agent MBean) are registered.
 * @param backPressure      what an appender does when the ring is full.
 * @param claimTimeout      how long a live producer's claim may stay uncommitted.
 * @param blockedClaimTimeout how long the drainer waits at a claim whose header was never written.
 * @param drainBatch        the most records the drainer copies per batch.
 * @param ringReserve       bytes of drained records the drainer keeps in the ring.
 * @param drainerThreading  the drainer's own thread: its idle strategy and thread factory for the machine.
 * @param drainHook         what the drainer calls at the points of its batch.
 * @param epochClock        the queue's wall clock: each claim's time, so the drainer picks the cycle a direct append
 *                          would.
 * @param nanoClock         the queue's monotonic clock: claim timeouts, and the waits of appenders, tailers and close.
 * @param errorHandler      the queue's error handler, given the drainer's errors; null for none.
 */
record AsyncQueueConfig(Path ringPath, int ringCapacity, Set<PosixFilePermission> ringFileMode, boolean registerMBean,
                        BackPressure backPressure, Duration claimTimeout, Duration blockedClaimTimeout,
                        int drainBatch, int ringReserve, DrainerThreading drainerThreading, DrainHook drainHook,
                        EpochClock epochClock, NanoClock nanoClock, ErrorHandler errorHandler) {
    /** @return a new idle strategy for a started drainer's thread. */
    IdleStrategy drainerIdleStrategy() {
        return drainerThreading.idleStrategy(drainBatch);
    }

    /** @return the factory of a started drainer's thread. */
    ThreadFactory drainerThreads() {
        return drainerThreading.threads();
    }
}
