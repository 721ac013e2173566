package dev.spool.ringbuffer;

import net.openhft.affinity.AffinityLock;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * How {@link AsyncQueue#startDrainer()} runs the drainer's own thread on this machine: the idle strategy and the
 * thread factory, chosen from the count of CPUs and of the application's hot threads (the appender and the reader
 * that spin) unless the application chose them.
 * <ul>
 * <li>A core to spare (CPUs greater than hot threads): a dedicated drainer thread that backs off from spinning
 * through yielding to parking up to 1 ms ({@link BackoffIdleStrategy}); pinned to a core of its own with
 * OpenHFT's {@link AffinityLock} if asked.</li>
 * <li>No core to spare: a low-duty thread ({@link LowDutyIdleStrategy}) that parks {@value #LOW_DUTY_PERIOD_MS} ms
 * after every batch that was not full, so it takes a hot thread's CPU only for a short burst a millisecond, never
 * spins or yields, and spends its disk stalls blocked, not on a hot thread's core.</li>
 * </ul>
 */
final class DrainerThreading {
    /** How long the low-duty drainer parks after a batch that was not full. */
    static final long LOW_DUTY_PERIOD_MS = 1;

    private final int availableProcessors;
    private final int hotThreads;
    private final boolean pinned;
    private final Supplier<IdleStrategy> idleStrategy;
    private final ThreadFactory threads;

    /**
     * @param availableProcessors the CPUs the JVM may use.
     * @param hotThreads          the application's threads that must never be preempted.
     * @param pinned              whether the drainer's thread is pinned to a core of its own.
     * @param idleStrategy        the application's choice, or null for the machine's default.
     * @param threads             the queue's factory of threads for its duties.
     */
    DrainerThreading(final int availableProcessors, final int hotThreads, final boolean pinned,
                     final Supplier<IdleStrategy> idleStrategy, final ThreadFactory threads) {
        this.availableProcessors = availableProcessors;
        this.hotThreads = hotThreads;
        this.pinned = pinned;
        this.idleStrategy = idleStrategy;
        this.threads = threads;
    }

    /** @return true if the machine has a CPU beyond the hot threads for the drainer. */
    boolean hasSpareCore() {
        return availableProcessors > hotThreads;
    }

    /**
     * @param drainer the idle strategy of the drainer's own thread, or null if it has none (drained by the caller).
     * @return what to warn of when the threads that spin (the hot threads, plus the drainer if its idle strategy
     * never parks) are more than the CPUs, or null when each has a CPU.
     */
    String oversubscription(final IdleStrategy drainer) {
        final boolean drainerSpins = drainer instanceof BusySpinIdleStrategy || drainer instanceof NoOpIdleStrategy
                || drainer instanceof YieldingIdleStrategy;
        final int spinning = hotThreads + (drainerSpins ? 1 : 0);
        if (spinning <= availableProcessors) {
            return null;
        }
        return spinning + " threads spin (hotThreads=" + hotThreads + (drainerSpins ? " and the drainer's "
                + drainer.alias() + " idle strategy" : "") + ") on " + availableProcessors + " CPUs: the kernel will"
                + " preempt one of them for a scheduler slice at a time, milliseconds of latency each; give the drainer"
                + " the default idle strategy, or run on a machine with a CPU for each";
    }

    /**
     * @param drainBatch the most records the drainer copies per batch: a full batch means a backlog.
     * @return a new idle strategy for the drainer's own thread.
     */
    IdleStrategy idleStrategy(final int drainBatch) {
        if (idleStrategy != null) {
            return idleStrategy.get();
        }
        return hasSpareCore() ? new BackoffIdleStrategy()
                : new LowDutyIdleStrategy(drainBatch, TimeUnit.MILLISECONDS.toNanos(LOW_DUTY_PERIOD_MS));
    }

    /** @return the factory of the drainer's thread: the queue's, pinned to a core of its own if asked. */
    ThreadFactory threads() {
        if (!pinned) {
            return threads;
        }
        return runnable -> threads.newThread(() -> {
            // a reserved CPU if the machine has any (isolcpus), else any CPU no other AffinityLock holds
            final AffinityLock lock = AffinityLock.acquireLock();
            try {
                runnable.run();
            } finally {
                lock.release();
            }
        });
    }
}
