package dev.spool.replication;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.AgentHost;
import dev.spool.queue.internal.MBeans;
import dev.spool.replication.agent.SelectorIdleStrategy;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.sink.ReplicaWriter;
import dev.spool.replication.sink.SinkHandshake;
import dev.spool.replication.sink.SinkConfig;
import dev.spool.replication.sink.SinkSession;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

import static dev.spool.replication.protocol.FrameDescriptor.HELLO_LENGTH;

/**
 * The receiving end of replication: listens for one {@link ReplicationSource} at a time and writes each excerpt it
 * receives at the same index into a replica queue ({@link ReplicationRole#REPLICA}), then acknowledges the highest index
 * written, or synced if so configured. It stores the typed schema files the source sends in the replica's directory,
 * after checking each name and content, so that {@code dump} and {@code tail} print the replica's typed excerpts, and
 * the replica once promoted sends them on. The replica is created at the first handshake with the source's identity,
 * roll cycle, epoch and maximum message length; until then {@link SpoolQueue#exists(Path)} is false.
 * <p>
 * One source streams at a time; a source that proves the secret while another streams is told the sink is busy and
 * retries (a killed source's connection is closed by its kernel, a silent one dropped after three heartbeat
 * intervals). Up to 8 other connections may be in their handshake at once,
 * each for at most three heartbeat intervals; a connection past that closes the oldest one that sent nothing yet, or
 * else the oldest. A peer that has not proved the secret learns nothing of the replica, changes nothing and stops
 * nothing: at most it takes a handshake's place for a while (docs/operations/security.md, "Security model"). A source that
 * proved the secret and refuses the replica's history as divergent (the replica holds excerpts the source lacks)
 * is reported by {@link #divergence()}; a replica that fell behind the source's retention is set aside and rebuilt
 * on its own ({@link #rebuilt()}).
 * <p>
 * The same port serves repairers ({@link QueueRepair}): a peer that proves the secret as one may fetch the replica's
 * stored excerpts to repair another copy of the queue, while a source streams; it never takes the replica. A replica
 * whose last cycle its checksums prove damaged is repaired from the next source's stream before anything past the
 * damage is acknowledged (docs/operations/replication.md, "Replication").
 * <p>
 * An {@link Agent} (Agrona's): each {@link #doWork()} selects without blocking, accepts, reads and writes what
 * arrived, acknowledges, and checks the connection's heartbeats. By default it runs on its own thread,
 * {@value #THREAD_NAME}, through an {@code AgentRunner} whose idle strategy sleeps in the sink's selector (it never
 * spins) until a frame or a connection arrives, at most half a heartbeat interval; {@link Builder#idleStrategy}
 * chooses another. Built {@link Builder#invoked() invoked}, it starts no thread and the application runs it in its
 * own duty cycle.
 */
public final class ReplicationSink implements Agent, AutoCloseable {
    /** Name of the sink's thread. */
    public static final String THREAD_NAME = "spool-replication-sink";
    /** Default largest frame accepted: a 16 MiB excerpt and its headers. */
    public static final int DEFAULT_MAX_FRAME_LENGTH = (16 << 20) + 64;
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationSink.class);

    private final Path directory;
    private final ReplicaWriter replica;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final SinkSession session;
    private final AgentHost host;
    private volatile Throwable failure;
    /** The name of the sink's MBean, or null. */
    private final ObjectName mbeanName;

    private ReplicationSink(final SinkConfig config) throws IOException {
        this.directory = config.directory();
        final Consumer<SpoolQueueBuilder> queueSettings = config.queueSettings();
        final long heartbeatNs = config.heartbeatNs();
        ServerSocketChannel channel = null;
        ReplicaWriter opened = null;
        try {
            opened = new ReplicaWriter(directory, () -> {
                final SpoolQueueBuilder local = SpoolQueue.builder(directory);
                queueSettings.accept(local);
                return local;
            }, config.ackSynced());
            channel = ServerSocketChannel.open();
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(new InetSocketAddress(config.bindAddress(), config.port()));
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_ACCEPT);
            server = channel;
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            if (opened != null) {
                opened.close();
            }
            throw e;
        }
        replica = opened;
        if (config.insecure()) {
            LOG.warn("replication sink of {} is insecure(): any process that can reach {} can create this replica"
                    + " under its own queue id, write into it and fence its sources; give it a sharedSecret",
                    directory, server.getLocalAddress());
        }
        session = new SinkSession(directory, replica,
                () -> new SinkHandshake(directory, replica, config.maxFrameLength(), config.secret()), config.secret(),
                selector, heartbeatNs,
                config.nanoClock());
        ObjectName name = null;
        if (config.registerMBean()) {
            try {
                name = MBeans.register("ReplicationSink", directory.toAbsolutePath().normalize().toString(),
                        new SinkMetrics(this, directory.toAbsolutePath().normalize().toString()),
                        ReplicationSinkMXBean.class);
            } catch (RuntimeException e) {
                release();
                replica.close();
                throw e;
            }
        }
        mbeanName = name;
        final String what = "the sink of " + directory;
        final AgentHost.Builder hosting = AgentHost.builder(what, new OwnThread())
                .threadFactory(config.threadFactory())
                .errorHandler(config.errorHandler())
                .nanoClock(config.nanoClock())
                .mbeanBeside(config.registerMBean() ? directory.toAbsolutePath().normalize().toString() : null);
        if (config.invoked()) {
            host = hosting.invoked();
        } else if (config.idleStrategy() != null) {
            host = hosting.start(config.idleStrategy());
        } else {
            final SelectorIdleStrategy sleeper = new SelectorIdleStrategy(selector, null, 0, 0,
                    Math.max(1, heartbeatNs / 2_000_000));
            host = hosting.wakeOnClose(sleeper::close).start(sleeper);
        }
    }

    /**
     * @param directory the replica queue's directory.
     * @return a builder of a sink.
     */
    public static Builder builder(final Path directory) {
        return new Builder(directory);
    }

    /** @return the address the sink listens on; its port is the bound one when the builder asked for port 0. */
    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException("sink of " + directory + " has no local address", e);
        }
    }

    /** @return true while a source is connected and past the handshake. */
    public boolean isConnected() {
        return session.isConnected();
    }

    /**
     * @return the last index written to the replica, -1 if none; {@link #lastIndexText()} prints it, and
     * {@link IndexFormat#format(long, dev.spool.queue.RollCycle)} with the replica's roll cycle prints any other.
     */
    public long lastIndex() {
        return replica.lastIndex();
    }

    /**
     * @return the last index the source that streams, or last streamed, to this sink held when it connected (-1 if
     * it was empty); -2 if no source has streamed since the sink started. Once {@link #lastIndex()} reaches it, the
     * replica holds everything that source held then: what a failover coordinator waits for before a replica it
     * rebuilt may stand in an election.
     */
    public long sourceLastIndex() {
        return session.sourceLastIndex();
    }

    /**
     * Prints {@link #lastIndex()} as Spool prints every index, with the replica's roll cycle: for example
     * {@code 0x501f00000011 (cycle 20511 seq 17)}, or {@code none (-1)} before anything was written. Builds a string:
     * for logs and monitoring, not for a loop.
     *
     * @return the last index written, as {@link IndexFormat#format(long, dev.spool.queue.RollCycle)} prints it.
     */
    public String lastIndexText() {
        final long index = replica.lastIndex();
        return IndexFormat.format(index, replica.rollCycle());
    }

    /** @return the error that stopped the sink's thread, or null while it runs. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Tells whether a source refused the replica's history as divergent: the replica holds excerpts the source lacks
     * (its last index is past the source's, or its last excerpt is not the source's at that index), typically
     * because it was a primary that wrote excerpts no replica acknowledged before another node was promoted. Only a
     * source that proved the shared secret is heard. The source stops replicating to this sink; the sink goes on
     * listening, since the fault may be the source's (the wrong replica promoted): whoever knows which node is the
     * primary sets this replica aside and rebuilds it from the primary, or keeps it. Cleared once a source accepts
     * the replica's history. Any thread; builds the exception at each call that finds one.
     *
     * @return the last such refusal, naming the replica, the source and both indices; or null if there was none
     * since a source last accepted the replica's history.
     */
    public ReplicaDivergedException divergence() {
        final SinkSession.Divergence divergence = session.divergence();
        return divergence == null ? null : new ReplicaDivergedException(divergence.message(),
                divergence.replicaLastIndex(), divergence.sourceLastIndex());
    }

    /**
     * A replica whose last index is below its source's oldest cycle (the primary's retention deleted what it needs
     * next) is rebuilt without an operator: its directory is set aside as {@code <directory>.behind-retention} (or
     * {@code -1}, {@code -2} ... after it), kept with every file and named in an ERROR, and the replica is created
     * afresh and streamed from the source's oldest excerpt.
     *
     * @return how many times that happened since the sink started; any thread.
     */
    public int rebuilt() {
        return session.rebuilt();
    }

    /**
     * Stops the sink and makes its replica the primary of the next term (see {@link Failover#promote}); the old
     * source is fenced as soon as it meets that term. Who decides to promote is outside Spool: call this from the
     * failover hook of your choice once the old source is known to be gone.
     *
     * @return the new term.
     * @throws SpoolException if the replica was never created: nothing was replicated yet.
     */
    public long promote() {
        stop();
        try {
            return replica.promote(replica.term() + 1);
        } finally {
            replica.close();
        }
    }

    /**
     * Stops the sink and makes its replica the primary of {@code term}, a term chosen by a coordinator (see
     * {@link Failover#promote(SpoolQueue, long)}); every source of an earlier term is fenced as soon as it meets a sink
     * that has seen this term. The sink is stopped and its replica closed whether or not the promotion succeeds.
     *
     * @param term the new term; must exceed the replica's.
     * @return {@code term}.
     * @throws SpoolException if the replica was never created (nothing was replicated yet), or naming the replica
     *                        and both terms if its term is not earlier than {@code term}.
     */
    public long promote(final long term) {
        stop();
        try {
            return replica.promote(term);
        } finally {
            replica.close();
        }
    }

    /**
     * Stops the sink (on its own thread: stops the thread; invoked: waits for a pass in progress), closes the
     * connection and the listening socket, and closes the replica. Closing again does nothing.
     */
    @Override
    public void close() {
        stop();
        replica.close();
        if (mbeanName != null) {
            MBeans.unregister(mbeanName);
        }
    }

    /**
     * One pass of a sink built {@link Builder#invoked() invoked}, on the calling thread: accepts a connection,
     * reads, writes and acknowledges what arrived, checks the heartbeats; never blocks. Calls never overlap (a call
     * made while another runs returns 0 at once). An error that stops the sink is reported by {@link #failure()},
     * and later calls do nothing.
     *
     * @return the work done: sockets that were ready, plus acknowledgements and heartbeats sent.
     * @throws SpoolException if the sink was not built invoked: its own thread calls it.
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

    private void stop() {
        host.close();
    }

    private int work() {
        if (failure != null) {
            return 0;
        }
        try {
            return selector.selectNow(session.onSelected) + session.checkLiveness();
        } catch (IOException | RuntimeException | Error e) {
            failure = e;
            LOG.error("replication sink of {} stopped", directory, e);
            release();
            if (!host.isInvoked()) {
                throw new AgentTerminationException(e);
            }
            return 0;
        }
    }

    /** Closes the connection, the selector and the listening socket; the replica stays open. Once. */
    private void release() {
        if (!selector.isOpen()) {
            return;
        }
        session.close();
        try {
            selector.close();
            server.close();
        } catch (IOException e) {
            LOG.error("replication sink of {}: cannot close its listening socket", directory, e);
        }
    }

    /** The agent the sink's own runner runs, and the one an invoked sink closes: the work without the guard. */
    private final class OwnThread implements Agent {
        @Override
        public int doWork() {
            return work();
        }

        @Override
        public void onClose() {
            release();
        }

        @Override
        public String roleName() {
            return THREAD_NAME;
        }
    }

    /** Settings of a {@link ReplicationSink}. */
    public static final class Builder extends ServiceBuilder<Builder> {
        private final Path directory;
        private Consumer<SpoolQueueBuilder> queueSettings = settings -> { };
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int port;
        private int maxFrameLength = DEFAULT_MAX_FRAME_LENGTH;
        private Duration heartbeatInterval = ReplicationSource.DEFAULT_HEARTBEAT_INTERVAL;
        private boolean ackSynced;
        private boolean registerMBean;


        @Override
        Builder self() {
            return this;
        }

        private Builder(final Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /**
         * @param queueSettings applies the replica's local settings (chunk length, index spacing, sync policy, sync
         *                      markers...) to its builder; the sink itself sets the identity, roll cycle, epoch and
         *                      maximum message length from the source's handshake when it creates the replica.
         * @return this builder.
         */
        public Builder queueSettings(final Consumer<SpoolQueueBuilder> queueSettings) {
            this.queueSettings = Objects.requireNonNull(queueSettings, "queueSettings");
            return this;
        }

        /**
         * @param bindAddress the local address to listen on; default loopback: listening on a network interface is
         *                    a deliberate choice.
         * @return this builder.
         */
        public Builder bindAddress(final InetAddress bindAddress) {
            this.bindAddress = Objects.requireNonNull(bindAddress, "bindAddress");
            return this;
        }

        /**
         * @param port the TCP port; default 0, any free port ({@link ReplicationSink#address()} tells which).
         * @return this builder.
         */
        public Builder port(final int port) {
            if (port < 0 || port > 65535) {
                throw new SpoolException("port=" + port + " must be from 0 to 65535");
            }
            this.port = port;
            return this;
        }

        /**
         * @param maxFrameLength the largest frame accepted; a longer one closes the connection. It must hold the
         *                       source's largest message (with its CRC32C if the queue has checksums) in a DATA
         *                       frame, and the MAC; a source whose frames may be longer is refused at the
         *                       handshake. Default {@link #DEFAULT_MAX_FRAME_LENGTH}. A SCHEMA frame
         *                       (a typed schema file, at most 64 KiB and its name) is accepted whatever this is.
         * @return this builder.
         */
        public Builder maxFrameLength(final int maxFrameLength) {
            if (maxFrameLength < HELLO_LENGTH) {
                throw new SpoolException("maxFrameLength=" + maxFrameLength + " must be at least " + HELLO_LENGTH);
            }
            this.maxFrameLength = maxFrameLength;
            return this;
        }

        /**
         * @param heartbeatInterval how long the sink stays silent before it sends a heartbeat; a connection with no
         *                          frame for three intervals is closed. Default 1 s.
         * @return this builder.
         */
        public Builder heartbeatInterval(final Duration heartbeatInterval) {
            this.heartbeatInterval = Handshake.checkedHeartbeatInterval(heartbeatInterval);
            return this;
        }

        /**
         * @param ackSynced true to msync what was written before acknowledging it, so an ack means "on the replica's
         *                  disk"; default false: an ack means "in the replica's page cache", which survives the
         *                  replica process but not its machine.
         * @return this builder.
         */
        public Builder ackSynced(final boolean ackSynced) {
            this.ackSynced = ackSynced;
            return this;
        }

        /**
         * Registers the sink's {@link ReplicationSinkMXBean} with the platform MBean server as
         * {@code dev.spool:type=ReplicationSink,name="<replica directory>"} when it starts, and unregisters it when it
         * closes. The replica queue's counters are its own MBean's: {@code queueSettings(b -> b.registerMBean())}.
         *
         * @return this builder.
         */
        public Builder registerMBean() {
            this.registerMBean = true;
            return this;
        }

        /**
         * Opens the replica if it exists (it must be a replica), binds the listening socket and, unless
         * {@link #invoked()}, starts the thread.
         *
         * @return the running sink.
         * @throws SpoolException unless exactly one of {@link #sharedSecret} and {@link #insecure()} was given.
         * @throws UncheckedIOException  if the address cannot be bound.
         */
        public ReplicationSink start() {
            final SinkConfig config = conclude();
            try {
                return new ReplicationSink(config);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on " + bindAddress + ":" + port + " for " + directory, e);
            }
        }

        /**
         * Checks the settings, resolves every default: the system's clocks unless given, since the replica queue
         * may not exist before its first source connects.
         */
        private SinkConfig conclude() {
            Handshake.checkSecurity("the sink of " + directory, secret, insecure);
            return new SinkConfig(directory, queueSettings, bindAddress, port, maxFrameLength, heartbeatInterval,
                    ackSynced, registerMBean, secret, insecure, invoked, idle,
                    epochClock != null ? epochClock : SystemEpochClock.INSTANCE,
                    nanoClock != null ? nanoClock : SystemNanoClock.INSTANCE, errorHandler,
                    threadFactory != null ? threadFactory : AgentHost.daemonThreads());
        }
    }
}
