package dev.spool.queue.internal;

import dev.spool.queue.AgentMXBean;
import dev.spool.queue.SpoolException;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Not API: the one place that runs a background duty of Spool (an Agrona {@link Agent}: a group commit, a pretoucher,
 * the roll clock, a ring's drainer, a replication service), either on a thread of its own, through Agrona's
 * {@link AgentRunner} with the owner's {@link IdleStrategy} and {@link ThreadFactory}, or invoked, by the
 * application's threads through {@link #invoke()}, whose calls never overlap. Either way one error policy applies.
 * <p>
 * Every error that escapes the duty's {@code doWork} is
 * <ol>
 * <li>counted, in {@link #errorCount()} and the agent's {@link AgentMXBean}, and kept as the
 * {@linkplain #lastError() last error} in one line;</li>
 * <li>logged without flooding: the first of a kind (same class, message and throwing frame) with its stack trace,
 * its repeats as one line with their count at most once a {@linkplain Builder#logInterval(Duration) log interval}
 * (1 s unless set);</li>
 * <li>handed to the owner's Agrona {@link ErrorHandler}, if one is configured;</li>
 * <li>and then the duty goes on with its next pass, except in these cases, where it stops:
 * <ul>
 * <li>an {@link AgentTerminationException}: the duty threw it after recording why it stops (its owner reports that
 * reason, as the drainer's and the replication services' {@code failure()} do). Its cause, if any, is counted and
 * handed to the error handler but not logged again; one without a cause is a planned stop (no roll clock left) and
 * is not an error;</li>
 * <li>a {@link VirtualMachineError} (out of memory, stack overflow, an internal error of the JVM): the JVM may not be
 * able to run the duty any more. It is logged at once, with no rate limit; invoked, it is rethrown to the caller;</li>
 * <li>on its own thread, any error while that thread is interrupted: the runner interrupts a duty that does not stop
 * when closed.</li>
 * </ul></li>
 * </ol>
 * A stopped duty's own thread ends, after the duty's {@link Agent#onClose()}; a stopped invoked duty's later passes
 * return 0 and do nothing, and {@link #close()} closes it. {@link #isRunning()} says which.
 */
public final class AgentHost implements AutoCloseable {
    /** The shortest time between two log lines about one kind of error, unless the builder sets another. */
    public static final Duration DEFAULT_LOG_INTERVAL = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(AgentHost.class);
    private static final ThreadFactory DAEMON_THREADS = runnable -> {
        final Thread thread = new Thread(runnable);
        thread.setDaemon(true);
        return thread;
    };

    private final String what;
    private final String role;
    private final Agent duty;
    private final ErrorHandler errorHandler;
    private final DistinctErrorLog log;
    private final AtomicLong errors = new AtomicLong();
    /** The runner of a duty on its own thread; null if invoked. */
    private final AgentRunner runner;
    private final IdleStrategy idle;
    private final Runnable wake;
    /** Invoked: true while a caller is inside a pass, and for good once closed. */
    private final AtomicBoolean busy = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ObjectName mbeanName;
    private volatile String lastError = "";
    private volatile boolean stopped;
    private volatile Thread thread;

    private AgentHost(final Builder builder, final IdleStrategy idle, final boolean ownThread) {
        this.what = builder.what;
        this.role = builder.role != null ? builder.role : builder.duty.roleName();
        this.duty = builder.duty;
        this.errorHandler = builder.errorHandler;
        this.log = new DistinctErrorLog(LOG, what, builder.nanoClock, builder.logInterval.toNanos());
        this.idle = idle;
        this.wake = builder.wake;
        this.runner = ownThread ? new AgentRunner(idle, this::onRunnerError, null, new OwnThread()) : null;
        ObjectName registered = null;
        try {
            registered = builder.mbeanOwner == null ? null
                    : MBeans.registerAgent(builder.mbeanOwner, role, new Metrics());
            if (ownThread) {
                thread = AgentRunner.startOnThread(runner, builder.threadFactory);
            }
        } catch (RuntimeException e) {
            // the host owns the duty from its builder on: a host that cannot be made closes it
            if (registered != null) {
                MBeans.unregister(registered);
            }
            duty.onClose();
            throw e;
        }
        this.mbeanName = registered;
    }

    /**
     * @param what names the duty and what it serves in log lines and errors, e.g. {@code "group commit of /data/q"}.
     * @param duty the agent.
     * @return a builder of the duty's host.
     */
    public static Builder builder(final String what, final Agent duty) {
        return new Builder(what, duty);
    }

    /** @return a factory of daemon threads: a duty's thread never keeps the JVM alive. The runner names each. */
    public static ThreadFactory daemonThreads() {
        return DAEMON_THREADS;
    }

    /**
     * Runs one invoked pass of the duty unless another caller is inside one, the duty stopped or the host is closed;
     * an error that escapes it is dealt with as the class comment says.
     *
     * @return the work the pass did; 0 if it did not run or failed.
     * @throws SpoolException if the duty runs on its own thread.
     * @throws VirtualMachineError if the pass threw one: the duty stops.
     */
    public int invoke() {
        if (runner != null) {
            throw new SpoolException(what + " runs on its own thread, " + role + "; build it invoked() to run it"
                    + " from the caller's");
        }
        if (busy.get() || !busy.compareAndSet(false, true)) {
            return 0;
        }
        try {
            if (stopped) {
                return 0;
            }
            return duty.doWork();
        } catch (VirtualMachineError e) {
            onError(e);
            throw e;
        } catch (Throwable e) {
            onError(e);
            return 0;
        } finally {
            busy.set(false);
        }
    }

    /** @return true if the application runs the duty through {@link #invoke()}. */
    public boolean isInvoked() {
        return runner == null;
    }

    /** @return true until the duty stopped on an error (see the class comment) or the host closed. */
    public boolean isRunning() {
        return !stopped && !closed.get();
    }

    /** @return the errors that escaped the duty's passes so far, each repeat counted; any thread may read it. */
    public long errorCount() {
        return errors.get();
    }

    /** @return the last of those errors in one line (class, message, throwing frame); empty if none. */
    public String lastError() {
        return lastError;
    }

    /** @return the duty's own thread once started; null if invoked. */
    public Thread thread() {
        return thread;
    }

    /** @return the idle strategy of the duty's own thread; null if invoked. */
    public IdleStrategy idleStrategy() {
        return idle;
    }

    /** @return the duty's role: its thread's name. */
    public String role() {
        return role;
    }

    /**
     * Stops the duty once. On its own thread: runs the builder's {@link Builder#wakeOnClose(Runnable) wake}, then
     * stops the thread after the pass in hand, and the runner calls the duty's {@link Agent#onClose()} on it; called
     * from that thread itself, the thread stops after the pass that called; from any other thread, returns once the
     * thread has ended. Invoked: waits for a pass in progress and
     * calls {@link Agent#onClose()} here. Closing again does nothing.
     */
    @Override
    public void close() {
        if (runner != null) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            if (wake != null) {
                wake.run();
            }
            if (Thread.currentThread() != thread) {
                runner.close();
                // the runner returns once the duty's onClose ran, a moment before its thread ends
                awaitEnd(thread);
            }
        } else {
            while (!busy.compareAndSet(false, true)) {
                if (closed.get()) {
                    return;
                }
                Thread.onSpinWait();
            }
            // busy stays set: later passes return at once
            closed.set(true);
            duty.onClose();
        }
        log.flush();
        unregister();
    }

    private static void awaitEnd(final Thread thread) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (final InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void unregister() {
        if (mbeanName != null) {
            MBeans.unregister(mbeanName);
        }
    }

    /**
     * Deals with an error that escaped a pass, as the class comment says.
     *
     * @return true if the duty stops.
     */
    private boolean onError(final Throwable error) {
        if (error instanceof AgentTerminationException) {
            final Throwable cause = error.getCause();
            if (cause != null) {
                // the duty recorded and reported why it stops: counted and handed over, not logged twice
                count(cause);
                handOver(cause);
            }
            stopped = true;
            return true;
        }
        count(error);
        final boolean stops = error instanceof VirtualMachineError
                || runner != null && Thread.currentThread().isInterrupted();
        if (stops) {
            LOG.error("{}: {}, stopping", what, DistinctErrorLog.describe(error), error);
            stopped = true;
        } else {
            log.log(error);
        }
        handOver(error);
        return stops;
    }

    private void count(final Throwable error) {
        errors.incrementAndGet();
        lastError = DistinctErrorLog.describe(error);
    }

    private void handOver(final Throwable error) {
        if (errorHandler == null) {
            return;
        }
        try {
            errorHandler.onError(error);
        } catch (RuntimeException e) {
            LOG.error("{}: the error handler failed on {}", what, DistinctErrorLog.describe(error), e);
        }
    }

    /** What the runner catches outside a pass: the duty's onStart or onClose failed. */
    private void onRunnerError(final Throwable error) {
        if (error instanceof AgentTerminationException) {
            // thrown by this host's own pass to stop the runner: dealt with already
            return;
        }
        count(error);
        LOG.error("{}: {}", what, DistinctErrorLog.describe(error), error);
        handOver(error);
    }

    /** The duty as the runner sees it: each pass under the error policy. */
    private final class OwnThread implements Agent {
        @Override
        public void onStart() {
            thread = Thread.currentThread();
            duty.onStart();
        }

        @Override
        public int doWork() {
            if (closed.get()) {
                // closed from this thread itself, which cannot wait for its own end
                throw new AgentTerminationException("closed");
            }
            try {
                return duty.doWork();
            } catch (Throwable e) {
                if (onError(e)) {
                    throw e instanceof AgentTerminationException stop ? stop : new AgentTerminationException(e);
                }
                return 0;
            }
        }

        @Override
        public void onClose() {
            stopped = true;
            duty.onClose();
        }

        @Override
        public String roleName() {
            return role;
        }
    }

    /** The agent's MXBean: reads the host's counters. */
    private final class Metrics implements AgentMXBean {
        @Override
        public String getRole() {
            return role;
        }

        @Override
        public String getOwner() {
            return what;
        }

        @Override
        public long getErrorCount() {
            return errors.get();
        }

        @Override
        public String getLastError() {
            return lastError;
        }

        @Override
        public boolean isRunning() {
            return AgentHost.this.isRunning();
        }
    }

    /**
     * The settings of a host: the owner's error handler and thread factory (from its configuration), and what only
     * some duties need. {@link #start(IdleStrategy)} or {@link #invoked()} makes the host.
     */
    public static final class Builder {
        private final String what;
        private final Agent duty;
        private String role;
        private ErrorHandler errorHandler;
        private ThreadFactory threadFactory = DAEMON_THREADS;
        private NanoClock nanoClock = SystemNanoClock.INSTANCE;
        private Duration logInterval = DEFAULT_LOG_INTERVAL;
        private Runnable wake;
        private String mbeanOwner;

        private Builder(final String what, final Agent duty) {
            this.what = Objects.requireNonNull(what, "what");
            this.duty = Objects.requireNonNull(duty, "duty");
        }

        /**
         * @param role the name of the duty's thread and MBean, instead of its agent's {@code roleName()}.
         * @return this builder.
         */
        public Builder role(final String role) {
            this.role = role;
            return this;
        }

        /**
         * @param errorHandler the owner's handler, given every error after it is counted and logged; null for none.
         * @return this builder.
         */
        public Builder errorHandler(final ErrorHandler errorHandler) {
            this.errorHandler = errorHandler;
            return this;
        }

        /**
         * @param threadFactory makes the duty's own thread, which the runner names after the role; default
         *                      {@link #daemonThreads()}.
         * @return this builder.
         */
        public Builder threadFactory(final ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * @param nanoClock measures the log interval; default the system's.
         * @return this builder.
         */
        public Builder nanoClock(final NanoClock nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        /**
         * @param logInterval the shortest time between two log lines about one kind of error; default
         *                    {@link #DEFAULT_LOG_INTERVAL}.
         * @return this builder.
         */
        public Builder logInterval(final Duration logInterval) {
            this.logInterval = Objects.requireNonNull(logInterval, "logInterval");
            return this;
        }

        /**
         * @param wake run by {@link AgentHost#close()} before it stops the duty's own thread, to end a sleep the
         *             idle strategy cannot end by itself (a selector, a doorbell); short and non-blocking.
         * @return this builder.
         */
        public Builder wakeOnClose(final Runnable wake) {
            this.wake = wake;
            return this;
        }

        /**
         * @param ownerName the name key of the owner's MBean (the queue's directory, the ring's path), to register
         *                  the agent's {@link AgentMXBean} beside it until the host closes; null for none.
         * @return this builder.
         */
        public Builder mbeanBeside(final String ownerName) {
            this.mbeanOwner = ownerName;
            return this;
        }

        /**
         * Starts the duty on a thread of its own. If the agent's MBean cannot be registered or the thread cannot
         * start, the duty is closed ({@link Agent#onClose()}) and the error thrown.
         *
         * @param idle what the thread does after a pass that did no work.
         * @return the host of the running duty.
         */
        public AgentHost start(final IdleStrategy idle) {
            return new AgentHost(this, Objects.requireNonNull(idle, "idle"), true);
        }

        /**
         * @return the host of a duty that the application runs through {@link AgentHost#invoke()}. If the agent's
         * MBean cannot be registered, the duty is closed and the error thrown.
         */
        public AgentHost invoked() {
            return new AgentHost(this, null, false);
        }
    }
}
