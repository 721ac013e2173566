package dev.spool.ringbuffer;

import org.agrona.concurrent.NanoClock;

import java.util.concurrent.locks.LockSupport;

/**
 * A diagnostic {@link DrainHook} that stalls the drainer, part-way through a batch, for a set time once per
 * period, as a write-back or journal stall of the queue's files would; see
 * {@link AsyncQueueBuilder#diagnosticDrainStall}. The drainer's thread only.
 */
final class PeriodicDrainStall implements DrainHook {
    private final long periodNs;
    private final long stallNs;
    private final NanoClock nanoClock;
    private long nextNs;

    PeriodicDrainStall(final long periodNs, final long stallNs, final NanoClock nanoClock) {
        this.periodNs = periodNs;
        this.stallNs = stallNs;
        this.nanoClock = nanoClock;
        this.nextNs = nanoClock.nanoTime() + periodNs;
    }

    @Override
    public void afterAppend(final long position, final long index) {
        final long now = nanoClock.nanoTime();
        if (now - nextNs < 0) {
            return;
        }
        final long until = now + stallNs;
        long left;
        while ((left = until - nanoClock.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
        nextNs = until + periodNs;
    }
}
