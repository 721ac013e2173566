package dev.spool.queue.internal;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadFactory;

/**
 * Runs the background duties of Spool's modules (pretoucher, group commit, retention, the ring's drainer) as Agrona
 * agents on threads of their own: daemon threads named after the agent's role, whose failures are logged, not lost.
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

    /**
     * Starts {@code agent} on a thread of {@code threads}, named after its role.
     *
     * @param agent   the agent to run.
     * @param idle    how the thread waits after a duty cycle that did no work.
     * @param onError what to do with an exception from the agent.
     * @param threads the factory of the thread, {@link #daemon()} unless it pins the thread to a core.
     * @return the running runner; closing it stops the thread and closes the agent.
     */
    public static AgentRunner start(final Agent agent, final IdleStrategy idle, final ErrorHandler onError,
                                    final ThreadFactory threads) {
        final AgentRunner runner = new AgentRunner(idle, onError, null, agent);
        AgentRunner.startOnThread(runner, threads);
        return runner;
    }
}
