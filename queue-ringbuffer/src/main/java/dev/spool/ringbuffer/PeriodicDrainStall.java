package dev.spool.ringbuffer;

import java.util.concurrent.locks.LockSupport;

/**
 * A diagnostic {@link DrainHook} that stalls the drainer, part-way through a batch, for a set time once per
 * period, as a write-back or journal stall of the queue's files would; see
 * {@link AsyncQueueBuilder#diagnosticDrainStall}. The drainer's thread only.
 */
final class PeriodicDrainStall implements DrainHook {
    private final long periodNs;
    private final long stallNs;
    private long nextNs;

    PeriodicDrainStall(final long periodNs, final long stallNs) {
        this.periodNs = periodNs;
        this.stallNs = stallNs;
        this.nextNs = System.nanoTime() + periodNs;
    }

    @Override
    public void afterAppend(final long position, final long index) {
        final long now = System.nanoTime();
        if (now - nextNs < 0) {
            return;
        }
        final long until = now + stallNs;
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
        nextNs = until + periodNs;
    }
}
