package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.AgentHost;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.MBeans;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.QueueRole;
import dev.spool.replication.agent.SelectorIdleStrategy;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.source.ReplicaAcks;
import dev.spool.replication.source.SourceConfig;
import dev.spool.replication.source.SourceLinks;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * The sending end of replication: tails a primary queue and ships its excerpts to one or more
 * {@link ReplicationSink}s, in DATA frames of whatever is available up to the frame limit, and records the sinks'
 * acknowledgements in the queue's metadata ({@link Failover#lastAckedIndex}, {@link Failover#quorumAckedIndex}),
 * where {@link CommitWaiter} and other processes see them.
 * <p>
 * Each sink (replica) has its own connection, tailer, cursor, acknowledged index, back-off and reconnection; the
 * source's one thread (or invoked pass) steps each in turn without ever blocking, so a replica that is slow, silent
 * or dead holds back neither the others nor the writer, which never waits for the source. The acknowledgements
 * come in three forms a writer chooses per message ({@link CommitStage}): by any one replica, by the ack quorum of k
 * of the N ({@link Builder#ackQuorum}) and by every replica connected. Each replica's state and lag is visible
 * through {@link #replicas()}, {@link #isConnected(int)}, {@link #ackedIndex(int)}, {@link #sentIndex(int)},
 * {@link #unackedBytes(int)} and {@link #failure(int)}.
 * <p>
 * It connects to the sink, and after a handshake (protocol version, queue identity, roll cycle, a shared-secret
 * challenge both ways, this source's proof first, then the sink's term, last index and the checksum of its last
 * excerpt) resumes after the sink's last index: no gap, no duplicate; every later frame carries a MAC of the session. It sends the queue directory's
 * typed schema files ({@code *.spool-schema}, which {@code dump} and {@code tail} print typed excerpts with) after
 * each handshake, and any file written later before the excerpts appended after it, noticed through a count in the
 * queue's metadata that it reads once per pass. A lost connection, and a sink
 * that did not prove the secret (whatever it says), is retried with exponential backoff; so is a sink that refuses
 * this source's proof of the secret, which {@link #failure(int)} reports after 3 refusals in a row; a mismatch said by a sink
 * that proved it (another queue, a sink ahead of the source or with a different excerpt at its last index) stops
 * replication to that sink with {@link #failure(int)} set, and the source, with {@link #failure()} set, once every
 * sink stopped; such a sink of a later term fences this queue (its {@link Failover#role role} becomes
 * {@link ReplicationRole#FENCED}) and stops the source at once, towards every sink.
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
    public static final String THREAD_NAME = SourceConfig.THREAD_NAME;
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
    private final SourceLinks agent;
    /** The source's MBean, or null if not registered. */
    private final ObjectName mbeanName;
    private final AgentHost host;
    /** The source's clock, which its commit waiters time their waits with. */
    private final NanoClock nanoClock;

    private ReplicationSource(final SourceConfig config) throws IOException {
        this.queue = config.queue();
        this.nanoClock = config.nanoClock();
        final QueueInternals internals = queue.unwrap(QueueInternals.class);
        internals.checkWritable("a replication source, which records what its replicas acknowledge,");
        if (internals.role() != QueueRole.PRIMARY) {
            throw new SpoolException("queue " + queue.directory() + " is a " + internals.role() + " queue of term "
                    + internals.term() + ": only a primary is replicated");
        }
        if (config.insecure()) {
            LOG.warn("replication source of {} is insecure(): any process that answers at {} can take its stream,"
                    + " fence this primary or stop its replication; give it a sharedSecret", queue.directory(),
                    config.sinks());
        }
        this.agent = new SourceLinks(config, !config.invoked());
        final String what = "the source of " + queue.directory();
        final AgentHost.Builder hosting = AgentHost.builder(what, agent).role(THREAD_NAME)
                .threadFactory(config.threadFactory())
                .errorHandler(config.errorHandler())
                .nanoClock(config.nanoClock())
                .mbeanBeside(config.registerMBean() ? queue.directory().toAbsolutePath().normalize().toString() : null);
        if (config.invoked()) {
            host = hosting.invoked();
        } else if (config.idleStrategy() != null) {
            host = hosting.start(config.idleStrategy());
        } else {
            final Doorbell appended = internals.appendDoorbell(agent.selector()::wakeup);
            // it wakes for its heartbeats too
            final long maxSleepMs = Math.max(1, Math.min(config.maxSleep().toMillis(),
                    config.heartbeatInterval().toMillis() / 2));
            final SelectorIdleStrategy sleeper = new SelectorIdleStrategy(agent.selector(), appended, IDLE_SPINS,
                    IDLE_YIELDS, maxSleepMs);
            host = hosting.wakeOnClose(() -> {
                appended.close();
                sleeper.close();
            }).start(sleeper);
        }
        mbeanName = config.registerMBean() ? register(queue.directory().toAbsolutePath().normalize().toString()) : null;
    }

    private ObjectName register(final String directory) {
        try {
            return MBeans.register("ReplicationSource", directory, new SourceMetrics(this, directory),
                    ReplicationSourceMXBean.class);
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
    }

    /**
     * @param queue the primary queue to replicate; it must stay open while the source runs.
     * @param sink  the address a {@link ReplicationSink} listens on: replica 0.
     * @param more  the addresses of more sinks, each a replica of its own: replicas 1, 2, and so on.
     * @return a builder of a source.
     */
    public static Builder builder(final SpoolQueue queue, final InetSocketAddress sink, final InetSocketAddress... more) {
        return new Builder(queue, sink, more);
    }

    /** @return true while connected to at least one sink and past the handshake. */
    public boolean isConnected() {
        return agent.isConnected();
    }

    /** @return N, the number of sinks (replicas) this source replicates to. */
    public int replicas() {
        return agent.acks().replicas();
    }

    /** @return k, the number of replicas whose acknowledgements make {@link CommitStage#ACKED_BY_QUORUM}. */
    public int ackQuorum() {
        return agent.acks().quorum();
    }

    /**
     * @return how many replicas are still replicated to: connected, connecting or retrying; not those stopped for
     * good by a mismatch, a divergence or a failed authentication ({@link #failure(int)}).
     */
    public int runningReplicas() {
        return agent.running();
    }

    /** @return how many replicas keep refusing this source's proof of the shared secret ({@link #failure(int)}). */
    int refusedReplicas() {
        return agent.refused();
    }

    /** @return how many replicas are connected and past the handshake now. */
    public int connectedReplicas() {
        return agent.acks().connectedCount();
    }

    /**
     * @param replica a replica's number, 0 to {@link #replicas()} - 1, in the order given to the builder.
     * @return the address of its sink.
     */
    public InetSocketAddress replica(final int replica) {
        return agent.sink(checked(replica));
    }

    /**
     * @param replica a replica's number.
     * @return true while connected to its sink and past the handshake.
     */
    public boolean isConnected(final int replica) {
        return agent.isConnected(checked(replica));
    }

    /**
     * @param replica a replica's number.
     * @return the highest index it acknowledged to this source (or held when it connected), -1 if none: its lag in
     * indices is the queue's {@link SpoolQueue#lastIndex()} against this.
     */
    public long ackedIndex(final int replica) {
        return agent.acks().acked(checked(replica));
    }

    /**
     * @param replica a replica's number.
     * @return true unless the queue's retention, at its last run in this queue instance, found the replica more than
     * {@link dev.spool.queue.SpoolQueueBuilder#maxReplicaLagCycles(int)} cycles behind, so that the cycles it still
     * needs are no longer kept: until it catches up to within the limit, it may have to be rebuilt.
     */
    public boolean isRetainedFor(final int replica) {
        return agent.isRetainedFor(checked(replica));
    }

    /**
     * @param replica a replica's number.
     * @return the last index sent to it on its current (or last) connection, or its last index when it connected;
     * -1 if none.
     */
    public long sentIndex(final int replica) {
        return agent.sentIndex(checked(replica));
    }

    /**
     * @param replica a replica's number.
     * @return its lag in bytes: the payload bytes read from the queue for it on its current (or last) connection
     * that it has not acknowledged yet. Counts what the source has read for it; while it is away, its lag in indices
     * ({@link #ackedIndex(int)}) is the measure.
     */
    public long unackedBytes(final int replica) {
        return agent.unackedBytes(checked(replica));
    }

    /**
     * @param replica a replica's number.
     * @return the error that stopped replication to it for good; or, while its sink keeps refusing this source's
     * proof of the shared secret (3 times in a row or more; the secrets differ), that refusal, as the source retries
     * with back-off; or null while it runs or retries for any other reason.
     */
    public Throwable failure(final int replica) {
        return agent.failure(checked(replica));
    }

    /** @return the queue this source replicates. */
    public SpoolQueue queue() {
        return queue;
    }

    /**
     * @return the error that stopped the source for good: the queue fenced, or every sink stopped (a mismatch, a
     * divergence, an unexpected error; the first sink's error). Else, while no sink can acknowledge because every
     * one still replicated to keeps refusing this source's proof of the secret ({@link #failure(int)}), the first
     * such refusal: the source goes on retrying, and reports null again once one accepts it. Else null. A
     * {@link CommitWaiter} waiting for an acknowledgement fails at once with it.
     */
    public Throwable failure() {
        return agent.failure();
    }

    /**
     * Stops telling writers that their writes are acknowledged, for a primary that may have been deposed: its
     * coordinator is out of reach (a ZooKeeper connection SUSPENDED), so another node may be promoted any moment, and
     * a write acknowledged now might not be on it. From now on until {@link #releaseAcknowledgements()}, no write
     * reaches a stage from {@link CommitStage#ACKED} on, through this source's {@link CommitWaiter}s (their
     * {@code await} times out as usual) and the {@link PublishGateway}s given this source (their clients get no
     * COMMIT for such a stage): an {@code _OR_SYNCED} stage does not fall back to a local sync, and an excerpt the
     * queue's sync policy synced does not count for it. Replication goes on, and the replicas' acknowledgements are
     * still recorded ({@link Failover#lastAckedIndex}); {@link CommitStage#PUBLISHED}, {@link CommitStage#WRITTEN}
     * and {@link CommitStage#SYNCED} are not affected. Holding again does nothing more; any thread.
     */
    public void holdAcknowledgements() {
        agent.acks().hold();
    }

    /**
     * Ends {@link #holdAcknowledgements()}: the writes the replicas acknowledged meanwhile reach their stages at once,
     * and waiters and gateways are woken to see it. Releasing when not held does nothing; any thread.
     */
    public void releaseAcknowledgements() {
        agent.acks().release();
    }

    /** @return true while the acknowledgements are {@link #holdAcknowledgements() held}. */
    public boolean acknowledgementsHeld() {
        return agent.acks().held();
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
     * @throws SpoolException if the source was not built invoked: its own thread calls it.
     */
    @Override
    public int doWork() {
        return host.invoke();
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

    /** @return the source's clock, for its commit waiters' deadlines. */
    NanoClock nanoClock() {
        return nanoClock;
    }

    /** @return the replicas' acknowledgements, for the commit stages. */
    ReplicaAcks acks() {
        return agent.acks();
    }

    private int checked(final int replica) {
        if (replica < 0 || replica >= replicas()) {
            throw new IndexOutOfBoundsException("replica " + replica + " of a source with " + replicas() + " replicas");
        }
        return replica;
    }

    /** @return true if the caller's threads run the source through {@link #doWork()}. */
    public boolean isInvoked() {
        return host.isInvoked();
    }

    /** @return true while the source's own thread sleeps in its selector: tests prove that an append wakes it. */
    boolean isSleeping() {
        return host.idleStrategy() instanceof SelectorIdleStrategy sleeper && sleeper.isSleeping();
    }

    /**
     * Stops the source and closes its connection; the queue stays open. On its own thread: stops the thread.
     * Invoked: waits for a {@link #doWork()} in progress to end; later calls do nothing. Closing again does nothing.
     */
    @Override
    public void close() {
        host.close();
        if (mbeanName != null) {
            MBeans.unregister(mbeanName);
        }
    }

    /** Settings of a {@link ReplicationSource}. */
    public static final class Builder extends ServiceBuilder<Builder> {
        private final SpoolQueue queue;
        private final List<InetSocketAddress> sinks = new ArrayList<>();
        /** 0: a majority of the sinks. */
        private int ackQuorum;
        private int frameLimit = DEFAULT_FRAME_LIMIT;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private Duration minBackoff = Duration.ofMillis(50);
        private Duration maxBackoff = Duration.ofSeconds(2);
        private Duration maxSleep = Duration.ofMillis(1);
        private boolean registerMBean;
        private boolean retryDiverged;


        @Override
        Builder self() {
            return this;
        }

        private Builder(final SpoolQueue queue, final InetSocketAddress sink, final InetSocketAddress... more) {
            this.queue = Objects.requireNonNull(queue, "queue");
            sinks.add(Objects.requireNonNull(sink, "sink"));
            for (final InetSocketAddress address : Objects.requireNonNull(more, "more")) {
                sinks.add(Objects.requireNonNull(address, "sink"));
            }
        }

        /**
         * Registers the source's {@link ReplicationSourceMXBean} (state and lag of every replica) with the platform
         * MBean server as {@code dev.spool:type=ReplicationSource,name="<primary directory>"} when it starts, and
         * unregisters it when it closes.
         *
         * @return this builder.
         */
        public Builder registerMBean() {
            this.registerMBean = true;
            return this;
        }

        /**
         * @param k how many replicas must acknowledge an index for {@link CommitStage#ACKED_BY_QUORUM}: 1 to the
         *          number of sinks, checked by {@link #start()}. Default a majority of the sinks (N / 2 + 1: 1 of 1,
         *          2 of 2, 2 of 3).
         * @return this builder.
         */
        public Builder ackQuorum(final int k) {
            if (k < 1) {
                throw new SpoolException("ackQuorum=" + k + ": at least one replica must acknowledge");
            }
            this.ackQuorum = k;
            return this;
        }

        /**
         * @param frameLimit the most bytes a DATA frame holds, headers included, unless one excerpt alone is longer;
         *                   default {@link #DEFAULT_FRAME_LIMIT}.
         * @return this builder.
         */
        public Builder frameLimit(final int frameLimit) {
            if (frameLimit < DataFlyweight.frameLength(1)) {
                throw new SpoolException("frameLimit=" + frameLimit + " cannot hold one excerpt");
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
                throw new SpoolException("reconnect backoff from " + min + " to " + max);
            }
            this.minBackoff = min;
            this.maxBackoff = max;
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
                throw new SpoolException("maxSleep=" + maxSleep + " is under the selector's 1 ms resolution;"
                        + " use an idle strategy to poll");
            }
            this.maxSleep = maxSleep;
            return this;
        }

        /**
         * Retries, at the longest back-off but at most once a second, a sink whose replica holds excerpts this source
         * lacks, instead of stopping replication to it for good: for a failover coordinator that sets such a replica
         * aside and rebuilds it empty on the same address. Each refusal is logged at ERROR. Default: off, such a sink
         * is refused once.
         *
         * @return this builder.
         */
        public Builder retryDivergedSinks() {
            this.retryDiverged = true;
            return this;
        }

        /**
         * @return the source, running on its own thread (it connects in the background), or, built
         * {@link #invoked()}, ready for the caller's {@link ReplicationSource#doWork()}.
         * @throws SpoolException if the queue is not a primary or was opened read-only, or unless exactly one of
         *                                  {@link #sharedSecret} and {@link #insecure()} was given.
         * @throws SpoolException if a sink is given twice, or the ack quorum exceeds the number of sinks.
         */
        public ReplicationSource start() {
            final SourceConfig config = conclude();
            try {
                return new ReplicationSource(config);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open a selector for the source of " + queue.directory(), e);
            }
        }

        /**
         * Checks every setting against the others, resolves every default: the clocks of the queue unless given,
         * the ack quorum of a majority.
         */
        private SourceConfig conclude() {
            if (new HashSet<>(sinks).size() != sinks.size()) {
                throw new SpoolException("sinks " + sinks + " of " + queue.directory() + ": a sink is given twice");
            }
            if (ackQuorum > sinks.size()) {
                throw new SpoolException("ackQuorum=" + ackQuorum + " with " + sinks.size() + " sinks "
                        + sinks + ": at most " + sinks.size());
            }
            Handshake.checkSecurity("the source of " + queue.directory(), secret, insecure);
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            return new SourceConfig(queue, sinks, ackQuorum == 0 ? sinks.size() / 2 + 1 : ackQuorum, frameLimit,
                    heartbeatInterval, minBackoff, maxBackoff, maxSleep, secret, insecure, invoked, idle, registerMBean,
                    epochClock != null ? epochClock : internals.epochClock(),
                    nanoClock != null ? nanoClock : internals.nanoClock(),
                    errorHandler != null ? errorHandler : internals.errorHandler(),
                    threadFactory != null ? threadFactory : internals.threadFactory(),
                    ReplicationException::new, retryDiverged);
        }
    }
}
