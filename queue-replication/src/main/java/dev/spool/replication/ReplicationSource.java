package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.QueueRole;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * The sending end of replication: tails a primary queue and ships its excerpts to a {@link ReplicationSink}, in DATA
 * frames of whatever is available up to the frame limit, and records the sink's acknowledgements in the queue's
 * metadata ({@link Failover#lastAckedIndex}), where {@link CommitWaiter} and other processes see them.
 * <p>
 * It connects to the sink, and after a handshake (protocol version, queue identity, roll cycle, term, the sink's
 * last index and the checksum of its last excerpt, a shared-secret challenge both ways) resumes after the sink's
 * last index: no gap, no duplicate; every later frame carries a MAC of the session. A lost connection, and a sink
 * that did not prove the secret (whatever it says), is retried with exponential backoff; a mismatch said by a sink
 * that proved it (another queue, a sink ahead of the source or with a different excerpt at its last index) stops
 * the source with {@link #failure()} set, and such a sink of a later term fences this queue (its
 * {@link Failover#role role} becomes {@link ReplicationRole#FENCED}).
 * <p>
 * An {@link Agent} (Agrona's): each {@link #doWork()} does what can be done without blocking (a step of the
 * connection or the handshake, the sink's acknowledgements read, a batch sent, a heartbeat) and returns the work
 * done; the reconnect back-off is a deadline that a pass checks. It runs in one of two ways:
 * <ul>
 * <li>On its own thread, {@value #THREAD_NAME} (the default), through an {@link AgentRunner} with an
 * {@link IdleStrategy}. The default one spins and then yields for {@value #IDLE_SPINS} passes each (a pass reads
 * the socket: some 100-300 µs in all; while messages flow, the next one comes first), then sleeps in the source's
 * selector, woken by the sink's next frame or by the next append through this {@link SpoolQueue} instance (its append
 * doorbell): an idle source uses no CPU, and only an append that finds it asleep pays for waking it. Appends from
 * other processes ring no doorbell: the source sleeps at most 1 ms at a time by default ({@link Builder#maxSleep}),
 * which bounds their delay. {@link Builder#idleStrategy} chooses another, such as Agrona's
 * {@code BusySpinIdleStrategy}, to poll at the cost of a core.</li>
 * <li>{@link Builder#invoked() Invoked}: no thread at all; the application calls {@link #doWork()} from its own
 * duty cycle, directly, through an {@code AgentInvoker}, or with other agents in a {@code CompositeAgent} (a
 * {@link PublishGateway} does so for its source), and a {@link CommitWaiter} calls it while it waits: a thread that
 * spins anyway sends each append and reads each acknowledgement itself, so neither waits for another thread to be
 * scheduled. Nothing is sent, and no connection is made, unless someone calls it.</li>
 * </ul>
 */
public final class ReplicationSource implements Agent, AutoCloseable {
    /** Name of the source's thread, and its agent's role. */
    public static final String THREAD_NAME = "spool-replication-source";
    /** Default frame limit: a socket write costs microseconds, a message far less, so batch up to 4 KiB. */
    public static final int DEFAULT_FRAME_LIMIT = 4096;
    /** Default time a side stays silent before it sends a heartbeat. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationSource.class);
    /** Empty passes that spin before the idle source yields: a pass costs a socket read, about a microsecond. */
    static final int IDLE_SPINS = 100;
    /** Empty passes that yield the CPU before the idle source sleeps. */
    static final int IDLE_YIELDS = 100;

    private final SpoolQueue queue;
    private final SourceAgent agent;
    private final AgentHost host;
    /** One invoked pass, made once: a call of {@link #doWork()} allocates nothing. */
    private final IntSupplier pass = this::pass;

    private ReplicationSource(final Builder builder) throws IOException {
        this.queue = builder.queue;
        Handshake.checkSecurity("the source of " + queue.directory(), builder.secret, builder.insecure);
        final QueueInternals internals = QueueInternals.of(queue);
        if (internals.role() != QueueRole.PRIMARY) {
            throw new IllegalStateException("queue " + queue.directory() + " is a " + internals.role() + " queue of term "
                    + internals.term() + ": only a primary is replicated");
        }
        if (builder.insecure) {
            LOG.warn("replication source of {} is insecure(): any process that answers at {} can take its stream,"
                    + " fence this primary or stop its replication; give it a sharedSecret", queue.directory(),
                    builder.sink);
        }
        this.agent = new SourceAgent(builder, !builder.invoked);
        final String what = "the source of " + queue.directory();
        if (builder.invoked) {
            host = AgentHost.invoked(what);
        } else if (builder.idle != null) {
            host = AgentHost.onOwnThread(what, THREAD_NAME, agent, builder.idle, null, null, LOG);
        } else {
            final Doorbell appended = internals.appendDoorbell(agent.selector()::wakeup);
            // it wakes for its heartbeats too
            final long maxSleepMs = Math.max(1, Math.min(builder.maxSleep.toMillis(),
                    builder.heartbeatInterval.toMillis() / 2));
            host = AgentHost.onOwnThread(what, THREAD_NAME, agent, null,
                    new SelectorIdleStrategy(agent.selector(), appended, IDLE_SPINS, IDLE_YIELDS, maxSleepMs), appended, LOG);
        }
    }

    /**
     * @param queue the primary queue to replicate; it must stay open while the source runs.
     * @param sink  the address a {@link ReplicationSink} listens on.
     * @return a builder of a source.
     */
    public static Builder builder(final SpoolQueue queue, final InetSocketAddress sink) {
        return new Builder(queue, sink);
    }

    /** @return true while connected to the sink and past the handshake. */
    public boolean isConnected() {
        return agent.isConnected();
    }

    /** @return the queue this source replicates. */
    public SpoolQueue queue() {
        return queue;
    }

    /**
     * @return the error that stopped the source for good (a mismatch, a divergence, fencing, an unexpected error),
     * or null while it runs or retries (a failed authentication is retried).
     */
    public Throwable failure() {
        return agent.failure();
    }

    /**
     * @param appender the caller's appender, used for the {@link CommitStage#SYNCED} stages; may be null, and then
     *                 those stages wait for another writer's sync.
     * @return a waiter for the commit stages of this source's queue, for the calling thread.
     */
    public CommitWaiter commitWaiter(final ExcerptAppender appender) {
        return new CommitWaiter(queue, this, appender, null, CommitWaiter.MAX_PARK_NS, CommitWaiter.IDLE_SPINS,
                CommitWaiter.IDLE_YIELDS);
    }

    /**
     * @param appender the caller's appender, for the {@link CommitStage#SYNCED} stages; may be null.
     * @param idle     how the waiter waits, e.g. Agrona's {@code BusySpinIdleStrategy} for the lowest latency.
     * @return a waiter for the commit stages of this source's queue, for the calling thread.
     */
    public CommitWaiter commitWaiter(final ExcerptAppender appender, final IdleStrategy idle) {
        return new CommitWaiter(queue, this, appender, Objects.requireNonNull(idle, "idle"), 0, 0, 0);
    }

    /**
     * One pass of a source built {@link Builder#invoked() invoked}, on the calling thread: a step of connecting or
     * of the handshake once the reconnect back-off has passed, or, while streaming, the sink's acknowledgements
     * read, what the queue has sent up to a frame, a heartbeat when due. Any thread may call it, from its own loop
     * or while it waits for an acknowledgement; calls never overlap (a call made while another runs returns 0 at
     * once). It never blocks and allocates nothing while streaming. An error that stops the source for good is
     * reported by {@link #failure()}, and later calls do nothing.
     *
     * @return 1 if anything was done, else 0.
     * @throws IllegalStateException if the source was not built invoked: its own thread calls it.
     */
    @Override
    public int doWork() {
        return host.invoke(pass);
    }

    private int pass() {
        return agent.doWork();
    }

    /** @return {@value #THREAD_NAME}. */
    @Override
    public String roleName() {
        return THREAD_NAME;
    }

    /** Invoked: the same as {@link #close()}, for an {@code AgentInvoker} or a {@code CompositeAgent} that ends. */
    @Override
    public void onClose() {
        close();
    }

    /** @return true if the caller's threads run the source through {@link #doWork()}. */
    public boolean isInvoked() {
        return host.isInvoked();
    }

    /** @return true while the source's own thread sleeps in its selector: tests prove that an append wakes it. */
    boolean isSleeping() {
        return host.isSleeping();
    }

    /**
     * Stops the source and closes its connection; the queue stays open. On its own thread: stops the thread.
     * Invoked: waits for a {@link #doWork()} in progress to end; later calls do nothing. Closing again does nothing.
     */
    @Override
    public void close() {
        host.close(agent);
    }

    /** Settings of a {@link ReplicationSource}. */
    public static final class Builder {
        final SpoolQueue queue;
        final InetSocketAddress sink;
        int frameLimit = DEFAULT_FRAME_LIMIT;
        Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        Duration minBackoff = Duration.ofMillis(50);
        Duration maxBackoff = Duration.ofSeconds(2);
        byte[] secret;
        boolean insecure;
        IdleStrategy idle;
        boolean invoked;
        Duration maxSleep = Duration.ofMillis(1);

        private Builder(final SpoolQueue queue, final InetSocketAddress sink) {
            this.queue = Objects.requireNonNull(queue, "queue");
            this.sink = Objects.requireNonNull(sink, "sink");
        }

        /**
         * @param frameLimit the most bytes a DATA frame holds, headers included, unless one excerpt alone is longer;
         *                   default {@link #DEFAULT_FRAME_LIMIT}.
         * @return this builder.
         */
        public Builder frameLimit(final int frameLimit) {
            if (frameLimit < DataFlyweight.frameLength(1)) {
                throw new IllegalArgumentException("frameLimit=" + frameLimit + " cannot hold one excerpt");
            }
            this.frameLimit = frameLimit;
            return this;
        }

        /**
         * @param heartbeatInterval how long the source stays silent before it sends a heartbeat; a connection with no
         *                          frame from the sink for three intervals is closed and retried. Use the sink's.
         *                          Default 1 s.
         * @return this builder.
         */
        public Builder heartbeatInterval(final Duration heartbeatInterval) {
            this.heartbeatInterval = Handshake.checkedHeartbeatInterval(heartbeatInterval);
            return this;
        }

        /**
         * @param min the wait before the first retry after a failed or lost connection; default 50 ms.
         * @param max the longest wait, reached by doubling; default 2 s.
         * @return this builder.
         */
        public Builder reconnectBackoff(final Duration min, final Duration max) {
            if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
                throw new IllegalArgumentException("reconnect backoff from " + min + " to " + max);
            }
            this.minBackoff = min;
            this.maxBackoff = max;
            return this;
        }

        /**
         * @param secret the secret shared with the sink, at least 16 bytes; see
         *               {@link ReplicationSink.Builder#sharedSecret(byte[])}. Required, unless {@link #insecure()}.
         * @return this builder.
         */
        public Builder sharedSecret(final byte[] secret) {
            this.secret = Handshake.checkedSecret(secret);
            return this;
        }

        /**
         * Starts the source without a shared secret: whatever answers at the sink's address is trusted, and can
         * take the stream, fence this primary (an ERROR or WELCOME with a later term) or stop its replication. Only
         * for a trusted network; the source logs a warning at start.
         *
         * @return this builder.
         */
        public Builder insecure() {
            this.insecure = true;
            return this;
        }

        /**
         * @param idle what the source's own thread does after a pass with nothing to send or receive, instead of
         *             the default phased back-off that ends asleep in its selector until an append or a frame wakes
         *             it: e.g. Agrona's {@code BusySpinIdleStrategy} for the lowest latency, at the cost of a core;
         *             {@code BackoffIdleStrategy} to park instead of sleeping in the selector. Not used invoked.
         * @return this builder.
         */
        public Builder idleStrategy(final IdleStrategy idle) {
            this.idle = Objects.requireNonNull(idle, "idle");
            return this;
        }

        /**
         * Runs the source on the caller's threads only: no thread is started, and the application calls
         * {@link ReplicationSource#doWork()} in its own duty cycle (a thread that spins anyway, such as the one
         * waiting for acknowledgements; an {@code AgentInvoker}; a {@code CompositeAgent} with its other agents).
         * Nothing is sent, no connection made and no reconnection tried unless someone calls {@code doWork}, and a
         * connection whose heartbeats stop for three intervals is dropped by the sink.
         *
         * @return this builder.
         */
        public Builder invoked() {
            return invoked(true);
        }

        /**
         * @param invoked true for {@link #invoked()}, false for running on the source's own thread (the default).
         * @return this builder.
         */
        public Builder invoked(final boolean invoked) {
            this.invoked = invoked;
            return this;
        }

        /**
         * @param maxSleep the longest the source sleeps in its selector with nothing to send or receive, at least
         *                 1 ms: what an append from another process, which rings no doorbell, may wait for it. Default
         *                 1 ms; it never sleeps past half a heartbeat interval. For the default idle strategy only.
         * @return this builder.
         */
        public Builder maxSleep(final Duration maxSleep) {
            if (maxSleep.toMillis() < 1) {
                throw new IllegalArgumentException("maxSleep=" + maxSleep + " is under the selector's 1 ms resolution;"
                        + " use an idle strategy to poll");
            }
            this.maxSleep = maxSleep;
            return this;
        }

        /**
         * @return the source, running on its own thread (it connects in the background), or, built
         * {@link #invoked()}, ready for the caller's {@link ReplicationSource#doWork()}.
         * @throws IllegalStateException if the queue is not a primary, or unless exactly one of
         *                               {@link #sharedSecret} and {@link #insecure()} was given.
         */
        public ReplicationSource start() {
            try {
                return new ReplicationSource(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open a selector for the source of " + queue.directory(), e);
            }
        }
    }
}
