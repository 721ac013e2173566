package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;

/**
 * The drainer's idle strategy on a machine with no core to spare: it parks for a period after every batch that was
 * not full, not only after one that drained nothing. Agrona's strategies idle only after no work, so under a steady
 * stream of records a drainer that finds a few new ones at every call never idles and takes a hot thread's core;
 * this one wakes once a period, drains what has come in one short burst, and parks again. A full batch means a
 * backlog: it drains on without parking until it catches up.
 */
public final class LowDutyIdleStrategy implements IdleStrategy {
    /** What {@link #alias()} returns. */
    public static final String ALIAS = "low-duty";

    private final int fullBatch;
    private final long periodNs;

    /**
     * @param fullBatch a batch of this many records or more is a backlog: no parking after it; the drainer's batch
     *                  ({@link AsyncQueueBuilder#drainBatch(int)}).
     * @param periodNs  how long to park after any other batch, in nanoseconds.
     * @throws SpoolException if either is not positive.
     */
    public LowDutyIdleStrategy(final int fullBatch, final long periodNs) {
        if (fullBatch <= 0 || periodNs <= 0) {
            throw new SpoolException("low-duty idle strategy: fullBatch=" + fullBatch + " and periodNs="
                    + periodNs + " must both be positive");
        }
        this.fullBatch = fullBatch;
        this.periodNs = periodNs;
    }

    @Override
    public void idle(final int workCount) {
        if (workCount < fullBatch) {
            LockSupport.parkNanos(periodNs);
        }
    }

    @Override
    public void idle() {
        LockSupport.parkNanos(periodNs);
    }

    @Override
    public void reset() {
        // no state: every batch decides alone
    }

    @Override
    public String alias() {
        return ALIAS;
    }
}
