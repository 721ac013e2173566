package dev.spool.queue.engine;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;

/**
 * Retention as an agent: while one exists for a queue instance, an appender's roll only raises its flag (a
 * volatile store) and the agent deletes the old files on its own thread or duty cycle. Without one, the appender
 * that rolls deletes them itself, as it always has; {@link QueueEngine#applyRetention()} deletes them synchronously
 * either way.
 */
final class RetentionAgent implements Agent {
    /** The role, and the thread name on a runner. */
    static final String ROLE_NAME = "spool-retention";

    private final Store store;
    /** Raised by a roll, lowered by the run it triggers; raised at first so that the first run catches up. */
    private volatile boolean pending = true;

    RetentionAgent(final Store store) {
        this.store = store;
    }

    /** Called by an appender's roll: the next {@link #doWork()} applies retention. */
    void rolled() {
        pending = true;
    }

    @Override
    public int doWork() {
        if (!pending) {
            return 0;
        }
        if (store.isClosed()) {
            throw new AgentTerminationException("queue " + store.directory() + " is closed: retention stops");
        }
        pending = false;
        return store.retention().apply();
    }

    /** Hands retention back to the appenders' rolls. */
    @Override
    public void onClose() {
        store.retentionClosed(this);
    }

    @Override
    public String roleName() {
        return ROLE_NAME;
    }
}
