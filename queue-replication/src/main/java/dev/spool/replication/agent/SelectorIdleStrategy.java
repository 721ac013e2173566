package dev.spool.replication.agent;

import dev.spool.queue.internal.Doorbell;
import dev.spool.replication.protocol.Connection;
import org.agrona.concurrent.IdleStrategy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Selector;
import java.util.function.BooleanSupplier;

/**
 * The idle strategy of a service's own thread, the phased back-off of {@link IdleBackoff} ending in its selector:
 * spin, yield, arm the doorbell and let the agent look once more, then sleep in {@link Selector#select(long)} until a
 * socket of the service, the doorbell's event (an append through this process's queue) or the bound wakes it. A
 * service whose next event comes within microseconds never pays for a wake-up; an idle one uses no CPU. Once
 * A service that expects nothing soon (a gateway with no commit pending) can skip the phases and sleep long, woken
 * by its sockets. Once {@link #close() closed} it no longer sleeps, so the runner's thread sees its stop at once. The runner's thread
 * only, but {@link #close()}; allocates nothing.
 */
public final class SelectorIdleStrategy implements IdleStrategy {
    private final Selector selector;
    private final IdleBackoff backoff;
    private final long maxSleepMs;
    private final BooleanSupplier expecting;
    private final long quietSleepMs;
    private volatile boolean closed;
    /** True while the thread sleeps in the selector: tests wait for it to prove that an event wakes it. */
    private volatile boolean sleeping;

    /**
     * @param selector   the service's selector, with its sockets registered.
     * @param doorbell   wakes the selector on the event the service waits for besides its sockets; null if none.
     * @param spins      idle passes that spin.
     * @param yields     idle passes that yield the CPU after the spins, before the thread sleeps.
     * @param maxSleepMs the longest sleep, at least 1: what an event that rings no doorbell may wait.
     */
    public SelectorIdleStrategy(final Selector selector, final Doorbell doorbell, final int spins, final int yields,
                         final long maxSleepMs) {
        this(selector, doorbell, spins, yields, maxSleepMs, null, maxSleepMs);
    }

    /**
     * @param expecting    false while the service expects no event but its sockets': then it sleeps at once.
     * @param quietSleepMs the longest such sleep.
     */
    public SelectorIdleStrategy(final Selector selector, final Doorbell doorbell, final int spins, final int yields,
                         final long maxSleepMs, final BooleanSupplier expecting, final long quietSleepMs) {
        this.selector = selector;
        this.backoff = new IdleBackoff(doorbell, spins, yields);
        this.maxSleepMs = maxSleepMs;
        this.expecting = expecting;
        this.quietSleepMs = quietSleepMs;
    }

    @Override
    public void idle(final int workCount) {
        if (workCount > 0) {
            backoff.reset();
        } else {
            idle();
        }
    }

    @Override
    public void idle() {
        if (expecting != null && !expecting.getAsBoolean()) {
            backoff.reset();
            sleep(quietSleepMs);
        } else if (backoff.idle()) {
            sleep(maxSleepMs);
            backoff.afterSleep();
        }
    }

    @Override
    public void reset() {
        backoff.reset();
    }

    @Override
    public String alias() {
        return "selector";
    }

    private void sleep(final long ms) {
        if (closed) {
            return;
        }
        sleeping = true;
        try {
            // the consumer form: the selected-key set would allocate a node per key; the next pass reads them
            selector.select(Connection.IGNORE_KEY, ms);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot wait in the selector", e);
        } finally {
            sleeping = false;
        }
    }

    /** @return true while the thread sleeps in the selector. */
    public boolean isSleeping() {
        return sleeping;
    }

    /** From any thread, before the runner is stopped: no sleep starts any more, and the current one ends. */
    public void close() {
        closed = true;
        // after the flag: a thread that read it false before is woken by this, in its select or at its start
        selector.wakeup();
    }
}
