package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.PauseStrategy;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.QueueInternals;
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

import static dev.spool.replication.FrameDescriptor.TYPE_PUBLISH;
import static dev.spool.replication.FrameDescriptor.typeName;

/**
 * A server that accepts publishes from {@link PublishClient}s over TCP, appends each to a primary queue, and sends
 * the commit back once the message reached the {@link CommitStage} its client asked for: written, synced (one
 * msync covers every message waiting for it), acknowledged by the replica its {@link ReplicationSource} feeds, or
 * acked-or-synced. This is the durability article's scenario: client, server 1, replica, commit back.
 * <p>
 * Threads: one, {@value #THREAD_NAME}, which appends, syncs and answers. It sleeps in
 * {@link Selector#select(long)}, woken by its clients and, while commits wait for the replica, by the source's
 * acknowledgements (the queue's ack doorbell); such a sleep lasts at most
 * {@value #MAX_SLEEP_MS} ms, which bounds the wait for a source in another process. With a
 * {@link Builder#pauseStrategy pause strategy} it polls instead while commits are pending. With an
 * {@link ReplicationSource.Builder#invoked() invoked} source the gateway streams for it: it polls its clients, the
 * source ({@link ReplicationSource#doWork()}) and its commits in one loop, pausing with its strategy (default
 * {@link PauseStrategy#backoff()}) when none has work.
 */
public final class PublishGateway implements AutoCloseable {
    /** Name of the gateway's thread. */
    public static final String THREAD_NAME = "spool-publish-gateway";
    private static final Logger LOG = LoggerFactory.getLogger(PublishGateway.class);
    /** The longest sleep while commits are pending, by default. */
    static final long MAX_SLEEP_MS = 1;

    private final SpoolQueue queue;
    private final QueueInternals internals;
    private final ReplicationSource source;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread thread;
    private final PauseStrategy pause;
    private final Doorbell acked;
    private final long maxSleepMs;
    private final int maxFrameLength;
    private final Consumer<SelectionKey> onSelected = this::onSelected;
    private final PendingCommits pending;
    private final PublishFlyweight publish = new PublishFlyweight();
    private ExcerptAppender appender;
    private volatile boolean running = true;
    private volatile Throwable failure;

    private PublishGateway(final Builder builder) throws IOException {
        this.queue = builder.queue;
        this.internals = QueueInternals.of(queue);
        this.source = builder.source;
        this.pause = builder.pause;
        this.maxSleepMs = builder.maxSleepMs;
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
        acked = internals.ackDoorbell(selector::wakeup);
        thread = new Thread(this::run, THREAD_NAME);
        thread.setDaemon(true);
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

    /** Stops the thread and closes every client connection; the queue stays open. */
    @Override
    public void close() {
        running = false;
        selector.wakeup();
        Threads.join(thread, "the gateway of " + queue.directory());
    }

    private PublishGateway startThread() {
        thread.start();
        return this;
    }

    private void run() {
        try (ExcerptAppender ownAppender = queue.createAppender()) {
            appender = ownAppender;
            final boolean invokes = source != null && source.isInvoked();
            final PauseStrategy poll = invokes && pause == null ? PauseStrategy.backoff() : pause;
            while (running) {
                if (invokes) {
                    // the gateway streams for its source: it polls its clients and the replica in one loop
                    final int work = source.doWork() + selector.selectNow(onSelected) + releaseCommits();
                    if (work == 0) {
                        poll.pause();
                    } else {
                        poll.reset();
                    }
                } else if (pending.count() == 0) {
                    selector.select(onSelected, 100);
                } else if (pause != null) {
                    final int selected = selector.selectNow(onSelected);
                    if (releaseCommits() == 0 && selected == 0) {
                        pause.pause();
                    } else {
                        pause.reset();
                    }
                } else {
                    acked.arm();
                    // checked with the doorbell armed: an ack recorded before is released here, one after wakes the select
                    if (releaseCommits() == 0) {
                        selector.select(onSelected, maxSleepMs);
                    }
                    acked.disarm();
                    if (pending.count() > 0) {
                        releaseCommits();
                    }
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            failure = e;
            LOG.error("publish gateway of {} stopped", queue.directory(), e);
        } finally {
            acked.close();
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
        if (pending.needSync(source != null && source.isConnected())) {
            appender.sync();
        }
        return pending.release(internals.lastAckedIndex(), queue.lastSyncedIndex());
    }

    private void drop(final SelectionKey key, final Connection client) {
        key.cancel();
        client.close();
    }

    /** Settings of a {@link PublishGateway}. */
    public static final class Builder {
        private final SpoolQueue queue;
        private final ReplicationSource source;
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int port;
        private PauseStrategy pause;
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
         * @param pause how the gateway's thread waits while commits are pending, polling instead of sleeping until
         *              an acknowledgement wakes it (the default): e.g. {@link PauseStrategy#busySpin()}.
         * @return this builder.
         */
        public Builder pauseStrategy(final PauseStrategy pause) {
            this.pause = Objects.requireNonNull(pause, "pause");
            return this;
        }

        /** @return the running gateway. */
        public PublishGateway start() {
            try {
                return new PublishGateway(this).startThread();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on " + bindAddress + ":" + port + " for "
                        + queue.directory(), e);
            }
        }
    }
}
