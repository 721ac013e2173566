package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.QueueInternals;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.IdleStrategy;
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
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

import static dev.spool.replication.FrameDescriptor.TYPE_PUBLISH;
import static dev.spool.replication.FrameDescriptor.typeName;

/**
 * A server that accepts publishes from {@link PublishClient}s over TCP, appends each to a primary queue, and sends
 * the commit back once the message reached the {@link CommitStage} its client asked for: written, synced (one
 * msync covers every message waiting for it), acknowledged by the replica its {@link ReplicationSource} feeds, or
 * acked-or-synced. This is the durability article's scenario: client, server 1, replica, commit back.
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

    private final SpoolQueue queue;
    private final QueueInternals internals;
    private final ReplicationSource source;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final AgentHost host;
    /** One invoked pass, made once: a call of {@link #doWork()} allocates nothing. */
    private final IntSupplier pass = this::work;
    private final int maxFrameLength;
    private final Consumer<SelectionKey> onSelected = this::onSelected;
    private final PendingCommits pending;
    private final PublishFlyweight publish = new PublishFlyweight();
    private ExcerptAppender appender;
    private volatile Throwable failure;

    private PublishGateway(final Builder builder) throws IOException {
        this.queue = builder.queue;
        this.internals = QueueInternals.of(queue);
        this.source = builder.source;
        this.maxFrameLength = PublishFlyweight.frameLength(queue.maxMessageLength());
        this.pending = new PendingCommits(queue.directory());
        this.selector = Selector.open();
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(builder.bindAddress, builder.port));
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            selector.close();
            throw e;
        }
        final String what = "the gateway of " + queue.directory();
        if (builder.invoked) {
            host = AgentHost.invoked(what);
        } else if (source != null && source.isInvoked()) {
            final IdleStrategy idle = builder.idle != null ? builder.idle : new BackoffIdleStrategy();
            host = AgentHost.onOwnThread(what, THREAD_NAME, new CompositeAgent(new OwnThread(), new Streaming(source)),
                    idle, null, null, LOG);
        } else if (builder.idle != null) {
            host = AgentHost.onOwnThread(what, THREAD_NAME, new OwnThread(), builder.idle, null, null, LOG);
        } else {
            final Doorbell acked = internals.ackDoorbell(selector::wakeup);
            // with no commit pending, only a client can bring work: sleep long, woken by its socket
            final SelectorIdleStrategy sleeper = new SelectorIdleStrategy(selector, acked, 0, 0, builder.maxSleepMs,
                    this::isWaiting, QUIET_SLEEP_MS);
            host = AgentHost.onOwnThread(what, THREAD_NAME, new OwnThread(), null, sleeper, acked, LOG);
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
        host.close(new OwnThread());
    }

    /**
     * One pass of a gateway built {@link Builder#invoked() invoked}, on the calling thread: reads its clients,
     * appends their publishes, syncs if a commit needs it, and sends the commits that are due; never blocks. Calls
     * never overlap (a call made while another runs returns 0 at once). An error that stops the gateway is reported
     * by {@link #failure()}, and later calls do nothing. An invoked source is not run here: run it too.
     *
     * @return the work done: sockets that were ready plus commits sent.
     * @throws IllegalStateException if the gateway was not built invoked: its own thread calls it.
     */
    @Override
    public int doWork() {
        return host.invoke(pass);
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
                appender = queue.createAppender();
            }
            return selector.selectNow(onSelected) + releaseCommits();
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
        for (final SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Connection connection) {
                connection.close();
            }
        }
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
        final Connection client = (Connection) key.attachment();
        try {
            client.receive();
            while (client.isAttached() && client.nextFrame()) {
                if (client.frameType() != TYPE_PUBLISH) {
                    throw new FrameException(typeName(client.frameType()) + " frame from " + client.peer()
                            + " where PUBLISH was expected");
                }
                onPublish(client);
                client.consumeFrame();
            }
            PendingCommits.flush(client);
        } catch (FrameException e) {
            LOG.warn("publish gateway of {}: closing the connection from {}: {}", queue.directory(), client.peer(),
                    e.getMessage());
            drop(key, client);
        } catch (IOException e) {
            LOG.info("publish gateway of {}: client {} gone: {}", queue.directory(), client.peer(), e.toString());
            drop(key, client);
        }
    }

    private void accept() {
        try {
            final SocketChannel channel = server.accept();
            if (channel == null) {
                return;
            }
            final Connection client = new Connection(maxFrameLength, 64 * 1024);
            try {
                client.attach(channel);
                channel.register(selector, SelectionKey.OP_READ, client);
            } catch (IOException e) {
                client.close();
                throw e;
            }
        } catch (IOException e) {
            LOG.warn("publish gateway of {}: cannot accept a client: {}", queue.directory(), e.toString());
        }
    }

    private void onPublish(final Connection client) throws IOException {
        publish.wrap(client.received(), client.frameOffset());
        final int length = publish.checkedPayloadLength(client.peer(), client.frameLength());
        final long correlation = publish.correlation();
        final int stage = publish.stage();
        final long index = appender.append(client.receivedStore(), publish.payloadOffset(), length);
        if (stage > CommitStage.WRITTEN.ordinal() || !pending.sendCommit(client, correlation, index)) {
            pending.add(client, correlation, index, stage);
        }
    }

    /** @return how many commits were sent. */
    private int releaseCommits() {
        if (pending.needSync(source == null ? null : source.acks())) {
            appender.sync();
        }
        return pending.release(source == null ? null : source.acks(), queue.lastSyncedIndex());
    }

    private void drop(final SelectionKey key, final Connection client) {
        key.cancel();
        client.close();
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
    public static final class Builder {
        private final SpoolQueue queue;
        private final ReplicationSource source;
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int port;
        private IdleStrategy idle;
        private boolean invoked;
        /** Tests set it long, to prove that acknowledgements wake the gateway. */
        long maxSleepMs = MAX_SLEEP_MS;

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
         * @param idle what the gateway's own thread does after a pass with nothing to do, instead of sleeping in its
         *             selector until a client or an acknowledgement wakes it (the default; with an invoked source,
         *             Agrona's {@code BackoffIdleStrategy}): e.g. {@code BusySpinIdleStrategy}, at the cost of a core.
         *             Not used invoked.
         * @return this builder.
         */
        public Builder idleStrategy(final IdleStrategy idle) {
            this.idle = Objects.requireNonNull(idle, "idle");
            return this;
        }

        /**
         * Runs the gateway on the caller's threads only: no thread is started, and the application calls
         * {@link PublishGateway#doWork()} in its own duty cycle (directly, through an {@code AgentInvoker}, or in a
         * {@code CompositeAgent} with an invoked source). Nothing is answered unless someone calls it.
         *
         * @return this builder.
         */
        public Builder invoked() {
            this.invoked = true;
            return this;
        }

        /** @return the gateway, running on its own thread unless {@link #invoked()}. */
        public PublishGateway start() {
            try {
                return new PublishGateway(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on " + bindAddress + ":" + port + " for "
                        + queue.directory(), e);
            }
        }
    }
}
