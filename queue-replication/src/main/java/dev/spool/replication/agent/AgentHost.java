package dev.spool.replication.agent;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.Doorbell;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

/**
 * How one of this module's services runs its agent: on a daemon thread of its own, through Agrona's {@link AgentRunner} with an idle strategy; or invoked, by the
 * application's threads through the service's public {@code doWork()}, which this host keeps from overlapping.
 */
public final class AgentHost {
    private final String what;
    private final AgentRunner runner;
    private final SelectorIdleStrategy sleeper;
    private final Doorbell doorbell;
    /** Invoked: true while a caller is inside {@code doWork()}, and for good once closed. */
    private final AtomicBoolean busy = new AtomicBoolean();
    private volatile boolean closed;

    private AgentHost(final String what, final AgentRunner runner, final SelectorIdleStrategy sleeper,
                      final Doorbell doorbell) {
        this.what = what;
        this.runner = runner;
        this.sleeper = sleeper;
        this.doorbell = doorbell;
    }

    /**
     * @param what names the service in errors, e.g. "the source of /data/primary".
     * @return a host for a service whose agent the application runs.
     */
    public static AgentHost invoked(final String what) {
        return new AgentHost(what, null, null, null);
    }

    /**
     * Starts {@code agent} on its own thread. An exception that escapes its {@code doWork} is logged and the loop
     * goes on, unless it is an {@link AgentTerminationException}: the agent threw it after recording why it stops.
     *
     * @param what     names the service in errors.
     * @param name     the thread's name.
     * @param idle     what the thread does after a pass with no work; null for {@code sleeper}.
     * @param sleeper  the service's own selector strategy, used when {@code idle} is null; woken when the host closes.
     * @param doorbell what rings the sleeper, closed with the host; null if none.
     * @param log      where unexpected errors go.
     * @return the host of the running agent.
     */
    public static AgentHost onOwnThread(final String what, final String name, final Agent agent, final IdleStrategy idle,
                                 final SelectorIdleStrategy sleeper, final Doorbell doorbell, final Logger log) {
        final AgentRunner runner = new AgentRunner(idle != null ? idle : sleeper, error -> {
            if (!(error instanceof AgentTerminationException)) {
                log.error("{}: unexpected error in {}, going on", what, agent.roleName(), error);
            }
        }, null, agent);
        AgentRunner.startOnThread(runner, task -> {
            final Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        return new AgentHost(what, runner, idle != null ? null : sleeper, doorbell);
    }

    /** @return true if the application runs the agent. */
    public boolean isInvoked() {
        return runner == null;
    }

    /**
     * Runs one invoked pass of the service unless another caller is inside one or the service is closed.
     *
     * @param pass the service's pass, held in a final field so that a call allocates nothing.
     * @return the work the pass did; 0 if it did not run.
     * @throws SpoolException if the agent runs on its own thread.
     */
    public int invoke(final IntSupplier pass) {
        if (!enter()) {
            return 0;
        }
        try {
            return pass.getAsInt();
        } finally {
            exit();
        }
    }

    /**
     * Before an invoked pass; {@link #exit()} after it.
     *
     * @return true if the caller may run the pass, false if another caller is inside one or the service is closed.
     * @throws SpoolException if the agent runs on its own thread.
     */
    private boolean enter() {
        if (runner != null) {
            throw new SpoolException(what + " runs on its own thread; build it invoked() to run it from the"
                    + " caller's");
        }
        return !busy.get() && busy.compareAndSet(false, true);
    }

    /** After an invoked pass. */
    private void exit() {
        busy.set(false);
    }

    /** @return true while the own thread sleeps in the service's selector. */
    public boolean isSleeping() {
        return sleeper != null && sleeper.isSleeping();
    }

    /**
     * Stops the agent once: on its own thread, stops the thread, whose runner calls the agent's
     * {@link Agent#onClose()}; invoked, waits for a pass in progress and calls it here. Closing again does nothing.
     */
    public void close(final Agent agent) {
        if (runner != null) {
            if (doorbell != null) {
                doorbell.close();
            }
            if (sleeper != null) {
                sleeper.close();
            }
            runner.close();
            return;
        }
        while (!busy.compareAndSet(false, true)) {
            if (closed) {
                return;
            }
            Thread.onSpinWait();
        }
        // busy stays set: later passes return at once
        closed = true;
        agent.onClose();
    }
}
