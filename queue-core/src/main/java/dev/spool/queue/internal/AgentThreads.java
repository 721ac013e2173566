package dev.spool.queue.internal;

import org.agrona.ErrorHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadFactory;

/**
 * What the runners of Spool's background duties (pretoucher, group commit, the ring's drainer) share: daemon
 * threads (the runner names each after its agent's role), and failures logged, not lost.
 */
public final class AgentThreads {
    private static final Logger LOG = LoggerFactory.getLogger(AgentThreads.class);
    private static final ThreadFactory DAEMON = runnable -> {
        final Thread thread = new Thread(runnable);
        thread.setDaemon(true);
        return thread;
    };

    private AgentThreads() {
    }

    /** @return a factory of daemon threads: a duty's thread never keeps the JVM alive. */
    public static ThreadFactory daemon() {
        return DAEMON;
    }

    /**
     * @param what what failed, as the log line says it: the agent and what its failure means for the application.
     * @return an error handler that logs each failure at error level; the runner goes on with the next duty cycle.
     */
    public static ErrorHandler logErrors(final String what) {
        return failure -> LOG.error("{}", what, failure);
    }
}
