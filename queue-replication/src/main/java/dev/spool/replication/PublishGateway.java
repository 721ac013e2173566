package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.AgentHost;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.PublisherAppender;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.replication.agent.SelectorIdleStrategy;
import dev.spool.replication.protocol.AuthenticationException;
import dev.spool.replication.protocol.BufferBudget;
import dev.spool.replication.protocol.ClientHandshake;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.GrantFlyweight;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.IdentifyFlyweight;
import dev.spool.replication.protocol.PublishFlyweight;
import dev.spool.replication.protocol.ReadyFlyweight;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_BUSY;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_PROTOCOL;
import static dev.spool.replication.protocol.FrameDescriptor.GRANT_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.READY_FLAG_DEDUPLICATES;
import static dev.spool.replication.protocol.FrameDescriptor.READY_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_GRANT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_HEARTBEAT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_IDENTIFY;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_PUBLISH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_READY;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;

/**
 * A server that accepts publishes from {@link PublishClient}s over TCP, appends each to a primary queue, and sends
 * the commit back once the message reached the {@link CommitStage} its client asked for: written, synced (one
 * msync covers every message waiting for it), acknowledged by the replica its {@link ReplicationSource} feeds, or
 * acked-or-synced. This is the durability article's scenario: client, server 1, replica, commit back. While the
 * source's acknowledgements are {@link ReplicationSource#holdAcknowledgements() held}, the commits that wait for an
 * acknowledged stage stay pending (the clients get them after the release, once the replicas acknowledged).
 * <p>
 * Every publish carries its client's id and sequence. On a queue created with
 * {@link dev.spool.queue.SpoolQueueBuilder#publisherIds(boolean) publisher ids} they are stored with the excerpt,
 * with the writer epoch of the client instance that sent them. Writer identity is fenced as Kafka fences a producer:
 * a client opens each connection with IDENTIFY, and a new instance of a client id is granted the id's next epoch,
 * which fences the earlier ones (a connection still open under one is sent an ERROR naming the id and both epochs,
 * and closed; an IDENTIFY of one is refused alike). Within an epoch the sequences run 1, 2, 3...: a gap, a sequence
 * of 0 or less, or one past {@code 2^48 - 1} is refused with an ERROR naming the id, the epoch and the sequences,
 * and written not. A publish whose sequence the epoch already has is answered with the original's index, once that
 * index reaches the stage asked for, if its length and CRC-32C equal the original's; otherwise it is refused. One
 * whose original's state the gateway no longer holds is refused as in doubt, never written twice. The gateway holds
 * each client id's epoch and the state of its last {@value PublishClient#WINDOW} sequences, and at start reads them
 * back from the queue's last {@link Builder#rebuildExcerpts} excerpts, so that a gateway started on the queue, or on
 * a replica promoted after a failover, keeps the epochs and recognises the re-sends of what the old primary wrote and
 * replicated. Each connection's first frame, READY, tells its client whether the gateway deduplicates; on a queue
 * without publisher ids every publish is written, and every epoch granted is 0.
 * <p>
 * An {@link Agent} (Agrona's), whose {@link #doWork()} reads its clients, appends, syncs and answers without
 * blocking. By default it runs on its own thread, {@value #THREAD_NAME}, through an {@code AgentRunner} whose idle
 * strategy sleeps in the gateway's selector, woken by its clients and, while commits wait for the replica, by the
 * source's acknowledgements (the queue's ack doorbell); such a sleep lasts at most {@value #MAX_SLEEP_MS} ms, which
 * bounds the wait for a source in another process. {@link Builder#idleStrategy} chooses another, e.g. Agrona's
 * {@code BusySpinIdleStrategy}. With an {@link ReplicationSource.Builder#invoked() invoked} source, the gateway's
 * thread runs both in a {@code CompositeAgent} (its clients, the source's {@link ReplicationSource#doWork()}, its
 * commits, in one loop), idling with its strategy (default Agrona's {@code BackoffIdleStrategy}) when neither has
 * work; closing the gateway leaves the source to its owner. Built {@link Builder#invoked() invoked}, it starts no
 * thread and the application runs it in its own duty cycle, with the source if that is invoked too.
 */
public final class PublishGateway implements Agent, AutoCloseable {
    /** Name of the gateway's thread. */
    public static final String THREAD_NAME = "spool-publish-gateway";
    private static final Logger LOG = LoggerFactory.getLogger(PublishGateway.class);
    /** The longest sleep while commits are pending, by default. */
    static final long MAX_SLEEP_MS = 1;
    /** The longest sleep with no commit pending: only a client's socket can bring work then. */
    private static final long QUIET_SLEEP_MS = 100;
    /** Default most client connections at once. */
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    /** Default most client connections at once from one remote address. */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64;
    /** Default most commits waiting for their stage at once, across all clients. */
    public static final int DEFAULT_MAX_PENDING_COMMITS = 1 << 16;
    /** Default most bytes of client buffers at once: 64 MiB. */
    public static final long DEFAULT_MAX_BYTES_IN_FLIGHT = 64L << 20;
    /** Default time a client has to prove the secret. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
    /** Default time a client may send nothing before it is dropped. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
    /**
     * Default time the gateway sends a client nothing before it sends a HEARTBEAT: a quarter of a client's default
     * liveness timeout, {@value PublishClient#DEFAULT_LIVENESS_TIMEOUT_MS} ms.
     */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofMillis(500);
    /**
     * Default number of the queue's last excerpts read at start for what each client published last: 1 Mi, the
     * windows in flight of 256 clients of {@value PublishClient#WINDOW} publishes each.
     */
    public static final long DEFAULT_REBUILD_EXCERPTS = 1L << 20;
    /**
     * Default most client ids whose last publishes the gateway holds, as many as its default most connections: each
     * takes up to 96 KiB (24 bytes for each of its last {@value PublishClient#WINDOW} sequences).
     */
    public static final int DEFAULT_MAX_PUBLISHERS = DEFAULT_MAX_CONNECTIONS;
    /** A client's buffers until it has proved the secret: the handshake's frames and an ERROR fit. */
    static final int HANDSHAKE_CAPACITY = 256;
    /** A client's send buffer once open: a burst of commits. */
    static final int COMMIT_CAPACITY = 64 * 1024;
    /** How often the timeouts are checked. */
    private static final long SWEEP_INTERVAL_NS = 10_000_000;
    /** At most one warning a second about refused connections. */
    private static final long REFUSAL_LOG_INTERVAL_NS = 1_000_000_000;

    private final SpoolQueue queue;
    private final QueueInternals internals;
    private final ReplicationSource source;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final AgentHost host;
    private final int maxFrameLength;
    private final Consumer<SelectionKey> onSelected = this::onSelected;
    private final PendingCommits pending;
    private final PublishFlyweight publish = new PublishFlyweight();
    private final ReadyFlyweight ready = new ReadyFlyweight();
    private final IdentifyFlyweight identify = new IdentifyFlyweight();
    private final GrantFlyweight grant = new GrantFlyweight();
    /** True if the queue has publisher ids: a publish sent again is written once. */
    private final boolean deduplicates;
    /** Each client id's writer epoch and last publishes; empty unless {@link #deduplicates}. */
    private final WriterFence writers;
    private final byte[] secret;
    private final BufferBudget budget;
    private final GatewayClient[] clients;
    private final long handshakeTimeoutNs;
    private final long idleTimeoutNs;
    private final long heartbeatNs;
    /** The gateway's clock: its timeouts and its log's rate limits follow it. */
    private final NanoClock clock;
    private final int maxConnectionsPerAddress;
    private int clientCount;
    private long nextSweepNs;
    private long refusedConnections;
    private long refusalLoggedNs;
    private long evictedConnections;
    private long evictionLoggedNs;
    private PublisherAppender appender;
    /** Written by the gateway's thread only; read by any. */
    private volatile long resentPublishes;
    private volatile Throwable failure;

    private PublishGateway(final GatewayConfig config) throws IOException {
        this.queue = config.queue();
        this.internals = queue.unwrap(QueueInternals.class);
        this.source = config.source();
        this.maxFrameLength = config.maxFrameLength();
        this.secret = config.secret();
        this.budget = new BufferBudget(config.maxBytesInFlight());
        this.clients = new GatewayClient[config.maxConnections()];
        this.handshakeTimeoutNs = config.handshakeTimeout().toNanos();
        this.idleTimeoutNs = config.idleTimeout().toNanos();
        this.heartbeatNs = config.heartbeatInterval().toNanos();
        this.clock = config.nanoClock();
        this.maxConnectionsPerAddress = config.maxConnectionsPerAddress();
        this.pending = new PendingCommits(queue.directory(), config.maxPendingCommits(), this::gone);
        this.deduplicates = queue.publisherIds();
        this.writers = new WriterFence(config.maxPublishers(), queue.directory(), this::drop);
        if (deduplicates) {
            // a gateway started on a promoted replica keeps the epochs and recognises re-sends the old primary wrote
            final long read = internals.readLastPublishers(config.rebuildExcerpts(), new Rebuild(writers));
            writers.rebuildDone(read < config.rebuildExcerpts());
            LOG.info("publish gateway of {}: read {} excerpts for the last publishes of {} clients", queue.directory(),
                    read, writers.writers().size());
        }
        this.selector = Selector.open();
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            // an accept queue as long as the clients it may hold: a burst of connects beyond the default 50 would
            // be dropped by the kernel, each client retrying its SYN a second later
            server.bind(new InetSocketAddress(config.bindAddress(), config.port()), config.maxConnections());
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            selector.close();
            throw e;
        }
        final String what = "the gateway of " + queue.directory();
        if (config.insecure()) {
            LOG.warn("publish gateway of {} is insecure(): any process that can reach {} can publish into this"
                    + " primary; give it a sharedSecret", queue.directory(), server.getLocalAddress());
        }
        final AgentHost.Builder hosting = AgentHost.builder(what, new OwnThread())
                .threadFactory(config.threadFactory())
                .errorHandler(config.errorHandler())
                .nanoClock(config.nanoClock());
        if (config.invoked()) {
            host = hosting.invoked();
        } else if (source != null && source.isInvoked()) {
            final IdleStrategy idle = config.idleStrategy() != null ? config.idleStrategy() : new BackoffIdleStrategy();
            host = AgentHost.builder(what, new CompositeAgent(new OwnThread(), new Streaming(source))).role(THREAD_NAME)
                    .threadFactory(config.threadFactory())
                    .errorHandler(config.errorHandler())
                    .nanoClock(config.nanoClock())
                    .start(idle);
        } else if (config.idleStrategy() != null) {
            host = hosting.start(config.idleStrategy());
        } else {
            final Doorbell acked = internals.ackDoorbell(selector::wakeup);
            // with no commit pending, only a client can bring work: sleep long, woken by its socket
            final SelectorIdleStrategy sleeper = new SelectorIdleStrategy(selector, acked, 0, 0, config.maxSleepMs(),
                    this::isWaiting, QUIET_SLEEP_MS);
            host = hosting.wakeOnClose(() -> {
                acked.close();
                sleeper.close();
            }).start(sleeper);
        }
    }

    /**
     * @param queue  the primary queue the gateway appends to; it must stay open while the gateway runs.
     * @param source the source replicating the queue, for the acknowledged stages; null if there is none, and then
     *               {@link CommitStage#ACKED} never commits and {@link CommitStage#ACKED_OR_SYNCED} syncs.
     * @return a builder of a gateway.
     */
    public static Builder builder(final SpoolQueue queue, final ReplicationSource source) {
        return new Builder(queue, source);
    }

    /** @return the address the gateway listens on. */
    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException("gateway of " + queue.directory() + " has no local address", e);
        }
    }

    /**
     * @return how many publishes the gateway recognised as sent again (a client id and sequence its queue holds
     * already) and answered with the original's index instead of writing them: 0 on a queue without publisher ids.
     */
    public long resentPublishes() {
        return resentPublishes;
    }

    /** @return the error that stopped the gateway's thread, or null while it runs. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Stops the gateway (on its own thread: stops the thread; invoked: waits for a pass in progress) and closes
     * every client connection; the queue and the source stay open. Closing again does nothing.
     */
    @Override
    public void close() {
        host.close();
    }

    /**
     * One pass of a gateway built {@link Builder#invoked() invoked}, on the calling thread: reads its clients,
     * appends their publishes, syncs if a commit needs it, and sends the commits that are due; never blocks. Calls
     * never overlap (a call made while another runs returns 0 at once). An error that stops the gateway is reported
     * by {@link #failure()}, and later calls do nothing. An invoked source is not run here: run it too.
     *
     * @return the work done: sockets that were ready plus commits sent.
     * @throws SpoolException if the gateway was not built invoked: its own thread calls it.
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

    /** @return true while commits wait: the idle thread then watches the acknowledgements too. */
    private boolean isWaiting() {
        return pending.count() > 0;
    }

    private int work() {
        if (failure != null) {
            return 0;
        }
        try {
            if (appender == null) {
                appender = internals.createPublisherAppender();
            }
            final int work = selector.selectNow(onSelected) + releaseCommits();
            final long now = clock.nanoTime();
            if (now - nextSweepNs >= 0) {
                nextSweepNs = now + SWEEP_INTERVAL_NS;
                sweep(now);
            }
            return work;
        } catch (IOException | RuntimeException | Error e) {
            failure = e;
            LOG.error("publish gateway of {} stopped", queue.directory(), e);
            release();
            if (!host.isInvoked()) {
                throw new AgentTerminationException(e);
            }
            return 0;
        }
    }

    /** Closes the clients' connections, the listening socket and the appender. Once. */
    private void release() {
        if (!selector.isOpen()) {
            return;
        }
        for (int slot = 0; slot < clients.length; slot++) {
            if (clients[slot] != null) {
                clients[slot].connection.close();
                clients[slot] = null;
            }
        }
        clientCount = 0;
        try {
            selector.close();
            server.close();
        } catch (IOException e) {
            LOG.error("publish gateway of {}: cannot close its listening socket", queue.directory(), e);
        }
        if (appender != null) {
            appender.close();
        }
    }

    private void onSelected(final SelectionKey key) {
        if (key.isAcceptable()) {
            accept();
            return;
        }
        final GatewayClient client = (GatewayClient) key.attachment();
        final Connection connection = client.connection;
        if (!connection.isAttached()) {
            // closed earlier in this pass, when another connection took its client id over
            return;
        }
        try {
            connection.receive();
            while (connection.isAttached() && connection.nextFrame()) {
                onFrame(client);
                connection.consumeFrame();
            }
            if (client.state == GatewayClient.OPEN) {
                PendingCommits.flush(connection);
            } else {
                connection.flush();
            }
        } catch (FrameException e) {
            LOG.warn("publish gateway of {}: closing the connection from {}: {}", queue.directory(), connection.peer(),
                    e.getMessage());
            drop(client, ERROR_PROTOCOL, e.getMessage());
        } catch (AuthenticationException e) {
            LOG.warn("publish gateway of {}: {}", queue.directory(), e.getMessage());
            drop(client, ERROR_AUTHENTICATION, e.getMessage());
        } catch (WriterException e) {
            LOG.warn("publish gateway of {}: closing the connection from {}: {}", queue.directory(), connection.peer(),
                    e.getMessage());
            drop(client, e.code(), e.getMessage());
        } catch (BufferBudget.ExhaustedException | PendingCommitsFullException e) {
            LOG.warn("publish gateway of {}: closing the connection from {}: {}", queue.directory(), connection.peer(),
                    e.getMessage());
            drop(client, ERROR_BUSY, e.getMessage());
        } catch (IOException e) {
            LOG.info("publish gateway of {}: client {} gone: {}", queue.directory(), connection.peer(), e.toString());
            drop(client, 0, null);
        } catch (RuntimeException | Error e) {
            // one connection's failure, even an OutOfMemoryError for its buffer, never stops the others
            LOG.error("publish gateway of {}: closing the connection from {} after an error", queue.directory(),
                    connection.peer(), e);
            drop(client, 0, null);
        }
    }

    private void onFrame(final GatewayClient client) throws IOException {
        final Connection connection = client.connection;
        switch (client.state) {
            case GatewayClient.AWAIT_HELLO:
                client.handshake = ClientHandshake.challenge(connection, secret);
                client.state = GatewayClient.AWAIT_PROOF;
                break;
            case GatewayClient.AWAIT_PROOF:
                ClientHandshake.checkProof(connection, secret, client.handshake);
                client.handshake = null;
                open(client);
                break;
            default:
                if (connection.frameType() == TYPE_HEARTBEAT) {
                    // the client is alive: its arrival is all that counts
                    break;
                }
                if (connection.frameType() == TYPE_IDENTIFY && client.epoch == 0 && client.writer == null) {
                    onIdentify(client);
                    break;
                }
                if (connection.frameType() != TYPE_PUBLISH) {
                    throw new FrameException(typeName(connection.frameType()) + " frame from " + connection.peer()
                            + " where PUBLISH was expected");
                }
                if (connection.sendRoom() < COMMIT_CAPACITY / 2 && connection.sendIdle()) {
                    connection.growSend(COMMIT_CAPACITY);
                }
                onPublish(client);
                break;
        }
    }

    /**
     * The client may publish: frames up to the queue's longest message, in buffers that grow to what it sends. READY
     * tells it whether a publish it sends again is written once.
     */
    private void open(final GatewayClient client) {
        client.state = GatewayClient.OPEN;
        final Connection connection = client.connection;
        connection.maxFrameLength(maxFrameLength);
        final int at = connection.beginFrame(TYPE_READY);
        ready.wrap(connection.send(), at).flags(deduplicates ? READY_FLAG_DEDUPLICATES : 0).term(internals.term());
        connection.endFrame(at, READY_LENGTH);
    }

    private void accept() {
        while (true) {
            SocketChannel channel = null;
            try {
                channel = server.accept();
                if (channel == null) {
                    return;
                }
                final InetAddress address = ((InetSocketAddress) channel.getRemoteAddress()).getAddress();
                final String full = makeRoom(address);
                if (full != null) {
                    refuse(channel, full);
                    continue;
                }
                final int slot = freeSlot();
                final Connection connection = new Connection(clock, HANDSHAKE_CAPACITY, HANDSHAKE_CAPACITY, budget);
                final GatewayClient client = new GatewayClient(connection, address, slot, clock.nanoTime(),
                        secret == null ? GatewayClient.OPEN : GatewayClient.AWAIT_HELLO);
                try {
                    connection.attach(channel);
                    channel.register(selector, SelectionKey.OP_READ, client);
                } catch (IOException | RuntimeException e) {
                    connection.close();
                    throw e;
                }
                clients[slot] = client;
                clientCount++;
                if (secret == null) {
                    open(client);
                    try {
                        // a frame this small fits a new socket's buffer: what is left would go with the first commit
                        connection.flush();
                    } catch (IOException e) {
                        LOG.info("publish gateway of {}: client {} gone: {}", queue.directory(), connection.peer(),
                                e.toString());
                        drop(client, 0, null);
                    }
                }
            } catch (BufferBudget.ExhaustedException e) {
                refuse(channel, "maxBytesInFlight=" + budget.limit() + " reached");
            } catch (IOException | RuntimeException | Error e) {
                // even an OutOfMemoryError for a new connection's buffers leaves the gateway serving the others
                refuse(channel, e.toString());
                if (channel == null) {
                    return;
                }
            }
        }
    }

    /**
     * Makes room for a connection from {@code address}: within the cap per address and the slots, closing the
     * oldest connection that has not proved the secret (from that address, when its cap is what is reached) if
     * there is no room, so that idle or slow unauthenticated connections never lock out a client that authenticates.
     *
     * @return null if there is room now; else why not: every connection in the way has proved the secret.
     */
    private String makeRoom(final InetAddress address) {
        int fromAddress = 0;
        GatewayClient oldestFromAddress = null;
        GatewayClient oldest = null;
        for (final GatewayClient client : clients) {
            if (client == null) {
                continue;
            }
            final boolean unproved = client.state != GatewayClient.OPEN;
            if (client.address.equals(address)) {
                fromAddress++;
                if (unproved && (oldestFromAddress == null || client.acceptedNs - oldestFromAddress.acceptedNs < 0)) {
                    oldestFromAddress = client;
                }
            }
            if (unproved && (oldest == null || client.acceptedNs - oldest.acceptedNs < 0)) {
                oldest = client;
            }
        }
        if (fromAddress >= maxConnectionsPerAddress) {
            if (oldestFromAddress == null) {
                return "maxConnectionsPerAddress=" + maxConnectionsPerAddress + " reached by " + address
                        + ", none of whose connections is still to prove the secret";
            }
            evict(oldestFromAddress);
        } else if (clientCount == clients.length) {
            if (oldest == null) {
                return "maxConnections=" + clients.length + " reached, none of which is still to prove the secret";
            }
            evict(oldest);
        }
        return null;
    }

    /** Closes a connection that has not proved the secret, for a new one; one line a second at most, with the count. */
    private void evict(final GatewayClient client) {
        evictedConnections++;
        final long now = clock.nanoTime();
        if (now - evictionLoggedNs >= REFUSAL_LOG_INTERVAL_NS || evictedConnections == 1) {
            evictionLoggedNs = now;
            LOG.info("publish gateway of {}: closing the connection from {}, which has not proved the secret after {}"
                    + " ms, for a new one ({} so far)", queue.directory(), client.connection.peer(),
                    (now - client.acceptedNs) / 1_000_000, evictedConnections);
        }
        drop(client, 0, null);
    }

    /** A client found gone while its commits were sent: its slot is free at once. */
    private void gone(final GatewayClient client) {
        drop(client, 0, null);
    }

    private int freeSlot() {
        if (clientCount == clients.length) {
            return -1;
        }
        for (int slot = 0; slot < clients.length; slot++) {
            if (clients[slot] == null) {
                return slot;
            }
        }
        return -1;
    }

    /** Closes a connection the gateway cannot take; one warning a second at most, with the count. */
    private void refuse(final SocketChannel channel, final String why) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.info("publish gateway of {}: cannot close a refused connection: {}", queue.directory(), e.toString());
            }
        }
        refusedConnections++;
        final long now = clock.nanoTime();
        if (now - refusalLoggedNs >= REFUSAL_LOG_INTERVAL_NS || refusedConnections == 1) {
            refusalLoggedNs = now;
            LOG.warn("publish gateway of {}: refusing new connections ({} so far): {}", queue.directory(),
                    refusedConnections, why);
        }
    }

    /**
     * Drops the clients that took too long to prove the secret, or have sent nothing for the idle timeout; sends a
     * HEARTBEAT to each open client it has sent nothing for a heartbeat interval, so the client knows it alive.
     */
    private void sweep(final long now) {
        for (int slot = 0; slot < clients.length; slot++) {
            final GatewayClient client = clients[slot];
            if (client == null) {
                continue;
            }
            final Connection connection = client.connection;
            if (client.state != GatewayClient.OPEN && now - client.acceptedNs > handshakeTimeoutNs) {
                LOG.info("publish gateway of {}: closing the connection from {}: no handshake within {} ms",
                        queue.directory(), connection.peer(), handshakeTimeoutNs / 1_000_000);
                drop(client, 0, null);
            } else if (now - connection.lastReceivedNs() > idleTimeoutNs) {
                LOG.info("publish gateway of {}: closing the connection from {}: it sent nothing for {} ms, past the"
                        + " idle timeout", queue.directory(), connection.peer(),
                        (now - connection.lastReceivedNs()) / 1_000_000);
                drop(client, 0, null);
            } else if (client.state == GatewayClient.OPEN && connection.sendIdle()
                    && now - connection.lastSentNs() > heartbeatNs) {
                heartbeat(client);
            }
        }
    }

    private void heartbeat(final GatewayClient client) {
        try {
            client.connection.sendHeartbeat();
            client.connection.flush();
        } catch (IOException e) {
            LOG.info("publish gateway of {}: client {} gone: {}", queue.directory(), client.connection.peer(),
                    e.toString());
            drop(client, 0, null);
        }
    }

    private void onPublish(final GatewayClient client) throws IOException {
        final Connection connection = client.connection;
        publish.wrap(connection.received(), connection.frameOffset());
        final int length = publish.checkedPayloadLength(connection.peer(), connection.frameLength());
        final long clientId = publish.clientId();
        final long sequence = publish.sequence();
        final int stage = publish.stage();
        final boolean waits = stage > CommitStage.WRITTEN.ordinal();
        if (waits && pending.isFull()) {
            throw new PendingCommitsFullException("maxPendingCommits=" + pending.limit() + " reached: the gateway"
                    + " of " + queue.directory() + " did not append this publish from " + connection.peer() + ", nor"
                    + " will it append one that waits for its stage until commits waiting are released (a commit at"
                    + " ACKED waits for the replica's acknowledgement"
                    + (source == null ? ", which a gateway without a source never gets)" : ")"));
        }
        final long index;
        if (deduplicates && clientId != 0) {
            index = appendOnce(client, clientId, sequence, length);
        } else if (sequence < 1) {
            throw new FrameException("PUBLISH frame from " + connection.peer() + ": sequence=" + sequence
                    + " (from 1)");
        } else {
            index = appender.append(clientId, sequence, connection.receivedStore(), publish.payloadOffset(), length);
        }
        if (waits || !pending.sendCommit(connection, sequence, index)) {
            if (pending.isFull()) {
                // its commit at WRITTEN found no room in its buffer: the client does not read its commits
                throw new IOException("client " + connection.peer() + " does not read its commits");
            }
            pending.add(client, sequence, index, stage);
        }
    }

    /**
     * Appends the publish unless its writer's epoch already has its sequence, whose original's index it then returns:
     * a publish sent again after a lost connection, to this gateway or to the one of a replica promoted since. The
     * rules are {@link WriterFence}'s.
     *
     * @return the index of the publish.
     * @throws WriterException if the fence refuses it; nothing is written.
     */
    private long appendOnce(final GatewayClient client, final long clientId, final long sequence, final int length)
            throws IOException {
        final Connection connection = client.connection;
        if (client.writer == null || client.writer.clientId != clientId) {
            throw new FrameException(String.format("PUBLISH frame from %s with client id 0x%x, which it did not"
                    + " IDENTIFY first", connection.peer(), clientId));
        }
        final long address = connection.receivedStore().addressForRead(publish.payloadOffset());
        final long original = writers.admit(client, sequence, address, length);
        if (original >= 0) {
            resentPublishes = resentPublishes + 1;
            return original;
        }
        final long index = appender.append(clientId, WriterFence.stored(client, sequence), connection.receivedStore(),
                publish.payloadOffset(), length);
        writers.appended(client, sequence, index, length);
        return index;
    }

    /** An IDENTIFY: the writer epoch the connection publishes under, told in GRANT; 0 if the gateway deduplicates not. */
    private void onIdentify(final GatewayClient client) throws IOException {
        final Connection connection = client.connection;
        identify.wrap(connection.received(), connection.frameOffset()).check(connection.peer());
        final long clientId = identify.clientId();
        final int epoch = deduplicates ? writers.identify(client, clientId, identify.epoch(), identify.committed(),
                identify.sent()) : 0;
        final int at = connection.beginFrame(TYPE_GRANT);
        grant.wrap(connection.send(), at).set(clientId, epoch);
        connection.endFrame(at, GRANT_LENGTH);
    }

    /** Reads the queue's last excerpts into the writers' table at start. */
    private static final class Rebuild implements dev.spool.queue.internal.PublisherReader {
        private final WriterFence writers;

        Rebuild(final WriterFence writers) {
            this.writers = writers;
        }

        @Override
        public void onPublish(final long publisherId, final long sequence, final long index) {
            throw new IllegalStateException("the scan gives the payload");
        }

        @Override
        public void onPublish(final long publisherId, final long sequence, final long index,
                              final net.openhft.chronicle.bytes.BytesStore<?, ?> payload, final long offset,
                              final int length) {
            writers.rebuilt(publisherId, sequence, index, payload, offset, length);
        }
    }

    /** A publish would take the commits waiting past their limit: refused, not appended; the client is told why. */
    private static final class PendingCommitsFullException extends IOException {
        private static final long serialVersionUID = 1L;

        PendingCommitsFullException(final String message) {
            super(message);
        }
    }

    /** @return how many commits were sent. */
    private int releaseCommits() {
        if (pending.needSync(source == null ? null : source.acks())) {
            appender.sync();
        }
        return pending.release(source == null ? null : source.acks(), queue.lastSyncedIndex());
    }

    /** Closes the client's connection, first telling it why with an ERROR frame if {@code code} is not 0. */
    private void drop(final GatewayClient client, final int code, final String message) {
        final Connection connection = client.connection;
        if (code != 0 && connection.isAttached() && connection.sendIdle()) {
            try {
                connection.sendError(code, internals.term(), message);
                connection.flush();
            } catch (IOException | RuntimeException e) {
                LOG.info("publish gateway of {}: could not tell {} why: {}", queue.directory(), connection.peer(),
                        e.toString());
            }
        }
        connection.close();
        if (clients[client.slot] == client) {
            clients[client.slot] = null;
            clientCount--;
        }
    }

    /** The agent the gateway's own runner runs, and the one an invoked gateway closes: the work without the guard. */
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

    /** An invoked source as a part of the gateway's composite agent: run by it, closed by its owner. */
    private static final class Streaming implements Agent {
        private final ReplicationSource source;

        Streaming(final ReplicationSource source) {
            this.source = source;
        }

        @Override
        public int doWork() {
            return source.doWork();
        }

        @Override
        public String roleName() {
            return source.roleName();
        }
    }

    /** Settings of a {@link PublishGateway}. */
    public static final class Builder extends ServiceBuilder<Builder> {
        private final SpoolQueue queue;
        private final ReplicationSource source;
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int port;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private int maxPendingCommits = DEFAULT_MAX_PENDING_COMMITS;
        private long maxBytesInFlight = DEFAULT_MAX_BYTES_IN_FLIGHT;
        private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private long rebuildExcerpts = DEFAULT_REBUILD_EXCERPTS;
        private int maxPublishers = DEFAULT_MAX_PUBLISHERS;
        /** Tests set it long, to prove that acknowledgements wake the gateway. */
        long maxSleepMs = MAX_SLEEP_MS;


        @Override
        Builder self() {
            return this;
        }

        private Builder(final SpoolQueue queue, final ReplicationSource source) {
            this.queue = Objects.requireNonNull(queue, "queue");
            this.source = source;
        }

        /**
         * @param bindAddress the local address to listen on; default loopback.
         * @return this builder.
         */
        public Builder bindAddress(final InetAddress bindAddress) {
            this.bindAddress = Objects.requireNonNull(bindAddress, "bindAddress");
            return this;
        }

        /**
         * @param port the TCP port; default 0, any free port ({@link PublishGateway#address()} tells which).
         * @return this builder.
         */
        public Builder port(final int port) {
            this.port = port;
            return this;
        }

        /**
         * @param maxConnections the most client connections at once, authenticated or not. When they are all
         *                       taken, a new connection closes the oldest one that has not proved the secret yet;
         *                       if every one has, the new one is closed at once. Default
         *                       {@link #DEFAULT_MAX_CONNECTIONS}.
         * @return this builder.
         */
        public Builder maxConnections(final int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        /**
         * @param maxConnectionsPerAddress the most client connections at once from one remote IP address, within
         *                                 {@link #maxConnections}. When an address has them all, a new connection
         *                                 from it closes its oldest one that has not proved the secret yet; if
         *                                 every one has, the new one is closed at once. Clients behind one NAT or
         *                                 on the gateway's own host share an address. Default
         *                                 {@link #DEFAULT_MAX_CONNECTIONS_PER_ADDRESS}.
         * @return this builder.
         */
        public Builder maxConnectionsPerAddress(final int maxConnectionsPerAddress) {
            this.maxConnectionsPerAddress = maxConnectionsPerAddress;
            return this;
        }

        /**
         * @param maxPendingCommits the most commits waiting for their stage at once, across all clients (e.g. at
         *                          {@link CommitStage#ACKED} while the replica is away, or on a gateway without a
         *                          source, where they never come). A publish that would need one more is not
         *                          appended: its client gets an ERROR naming this limit and is closed. Default
         *                          {@link #DEFAULT_MAX_PENDING_COMMITS}.
         * @return this builder.
         */
        public Builder maxPendingCommits(final int maxPendingCommits) {
            this.maxPendingCommits = maxPendingCommits;
            return this;
        }

        /**
         * @param maxBytesInFlight the most bytes of client buffers at once (what clients sent and the gateway has
         *                         not appended yet, and commits not yet sent: each connection's buffers count at
         *                         their capacity, a few hundred bytes until it has proved the secret); a connection
         *                         that needs more is closed. At least one open client's worth. Default
         *                         {@link #DEFAULT_MAX_BYTES_IN_FLIGHT}.
         * @return this builder.
         */
        public Builder maxBytesInFlight(final long maxBytesInFlight) {
            this.maxBytesInFlight = maxBytesInFlight;
            return this;
        }

        /**
         * @param handshakeTimeout how long a client has from its connection to proving the secret; then it is
         *                         closed. Default {@link #DEFAULT_HANDSHAKE_TIMEOUT}.
         * @return this builder.
         */
        public Builder handshakeTimeout(final Duration handshakeTimeout) {
            this.handshakeTimeout = Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
            return this;
        }

        /**
         * @param idleTimeout how long a client may send nothing before it is closed, commits it waits for
         *                    included. Default {@link #DEFAULT_IDLE_TIMEOUT}.
         * @return this builder.
         */
        public Builder idleTimeout(final Duration idleTimeout) {
            this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
            return this;
        }

        /**
         * @param heartbeatInterval how long the gateway sends a client nothing before it sends a HEARTBEAT: a client
         *                          declares a gateway silent past its liveness timeout dead, so this must be a few
         *                          times shorter than the clients' ({@link PublishClient.Builder#livenessTimeout}).
         *                          An {@link #invoked()} gateway sends them from {@link PublishGateway#doWork()}:
         *                          its application calls it that often at least. Default
         *                          {@link #DEFAULT_HEARTBEAT_INTERVAL}.
         * @return this builder.
         */
        public Builder heartbeatInterval(final Duration heartbeatInterval) {
            this.heartbeatInterval = Handshake.checkedHeartbeatInterval(heartbeatInterval);
            return this;
        }

        /**
         * @param rebuildExcerpts on a queue with {@link dev.spool.queue.SpoolQueueBuilder#publisherIds(boolean)
         *                        publisher ids}, how many of the queue's last excerpts the gateway reads at start to
         *                        learn what each client published last, so that a publish sent again whose original
         *                        is among them (written by an earlier gateway, or by the old primary of a replica
         *                        promoted since) is not written twice. A client has at most
         *                        {@value PublishClient#WINDOW} publishes awaiting their commits; with N clients
         *                        publishing at once, N times that covers every re-send. 0 reads none. Default
         *                        {@link #DEFAULT_REBUILD_EXCERPTS}.
         * @return this builder.
         */
        public Builder rebuildExcerpts(final long rebuildExcerpts) {
            this.rebuildExcerpts = rebuildExcerpts;
            return this;
        }

        /**
         * @param maxPublishers on a queue with publisher ids, the most client ids whose last publishes the gateway
         *                      holds, each in up to 96 KiB; past it, the id that published least recently is
         *                      forgotten but for its writer epoch and last sequence (16 bytes, kept while the
         *                      gateway runs): a publish it sends again is refused as in doubt, never written
         *                      twice, and a new instance of it still gets a later epoch. Default
         *                      {@link #DEFAULT_MAX_PUBLISHERS}.
         * @return this builder.
         */
        public Builder maxPublishers(final int maxPublishers) {
            this.maxPublishers = maxPublishers;
            return this;
        }

        /**
         * Checks every setting against the others and the queue, resolves every default: the clocks of the queue
         * unless given.
         */
        private GatewayConfig conclude() {
            final int maxFrameLength = PublishFlyweight.frameLength(queue.maxMessageLength()) + FrameMac.TAG_LENGTH;
            Handshake.checkSecurity("the publish gateway of " + queue.directory(), secret, insecure);
            if (maxConnections < 1) {
                throw new SpoolException("maxConnections=" + maxConnections + " must be at least 1");
            }
            if (maxConnectionsPerAddress < 1) {
                throw new SpoolException("maxConnectionsPerAddress=" + maxConnectionsPerAddress
                        + " must be at least 1");
            }
            if (maxPendingCommits < 1) {
                throw new SpoolException("maxPendingCommits=" + maxPendingCommits + " must be at least 1");
            }
            final long oneClient = (long) HANDSHAKE_CAPACITY + maxFrameLength + COMMIT_CAPACITY;
            if (maxBytesInFlight < oneClient) {
                throw new SpoolException("maxBytesInFlight=" + maxBytesInFlight + " cannot hold one client's"
                        + " buffers: " + oneClient + " bytes for messages of up to " + queue.maxMessageLength()
                        + " bytes");
            }
            if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
                throw new SpoolException("handshakeTimeout=" + handshakeTimeout + " must be positive");
            }
            if (idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new SpoolException("idleTimeout=" + idleTimeout + " must be positive");
            }
            if (rebuildExcerpts < 0) {
                throw new SpoolException("rebuildExcerpts=" + rebuildExcerpts + " must not be negative");
            }
            if (maxPublishers < 1) {
                throw new SpoolException("maxPublishers=" + maxPublishers + " must be at least 1");
            }
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            return new GatewayConfig(queue, source, maxFrameLength, bindAddress, port, maxConnections,
                    maxConnectionsPerAddress, maxPendingCommits, maxBytesInFlight, handshakeTimeout, idleTimeout,
                    heartbeatInterval, rebuildExcerpts, maxPublishers, maxSleepMs, secret, insecure, invoked, idle,
                    epochClock != null ? epochClock : internals.epochClock(),
                    nanoClock != null ? nanoClock : internals.nanoClock(),
                    errorHandler != null ? errorHandler : internals.errorHandler(),
                    threadFactory != null ? threadFactory : internals.threadFactory());
        }

        /**
         * @return the gateway, running on its own thread unless {@link #invoked()}.
         * @throws SpoolException unless exactly one of {@link #sharedSecret} and {@link #insecure()} was
         *                                  given.
         * @throws SpoolException naming the option and its value, if one is out of range.
         */
        public PublishGateway start() {
            final GatewayConfig config = conclude();
            try {
                return new PublishGateway(config);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on " + bindAddress + ":" + port + " for "
                        + queue.directory(), e);
            }
        }
    }
}
