package dev.spool.replication.agent;

import dev.spool.queue.internal.Doorbell;

/**
 * The phases of one thread's idle wait, the Disruptor's phased back-off with a blocking fallback: spin, then
 * yield, then arm the doorbell and look once more, then sleep until the doorbell's event wakes the thread (or its
 * bounded sleep ends). A thread whose next event comes within microseconds never pays for a wake-up; an idle one
 * uses no CPU. The owner's thread only; allocates nothing.
 */
public final class IdleBackoff {
    private final Doorbell doorbell;
    private final int spins;
    private final int checks;
    private int idle;
    private boolean armed;

    /**
     * @param doorbell what wakes the sleeping thread; null if only the sleep's own events (a selector's sockets) and
     *                 its bound wake it: then there is no arming pass.
     * @param spins    idle passes that spin.
     * @param yields   idle passes that yield the CPU after the spins, before the thread sleeps.
     */
    public IdleBackoff(final Doorbell doorbell, final int spins, final int yields) {
        this.doorbell = doorbell;
        this.spins = spins;
        this.checks = spins + yields;
    }

    /**
     * Called after a pass that found nothing to do.
     *
     * @return true if the thread is to sleep now: the doorbell is armed, and the pass after arming found nothing,
     * so an event from now on rings it. Call {@link #afterSleep()} when it wakes.
     */
    public boolean idle() {
        if (idle < checks) {
            if (idle++ < spins) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
            return false;
        }
        if (!armed && doorbell != null) {
            // one more pass with the doorbell armed: an event before it is seen by that pass, one after it rings
            doorbell.arm();
            armed = true;
            return false;
        }
        return true;
    }

    /** After a sleep: the next pass looks again before sleeping again. */
    public void afterSleep() {
        if (armed) {
            doorbell.disarm();
            armed = false;
        }
    }

    /** After a pass that did something, or before a new wait: the next idle pass starts spinning again. */
    public void reset() {
        idle = 0;
        afterSleep();
    }
}
