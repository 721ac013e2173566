package dev.spool.replication;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

import static dev.spool.replication.FrameDescriptor.ERROR_BUSY;
import static dev.spool.replication.FrameDescriptor.ERROR_PROTOCOL;
import static dev.spool.replication.FrameDescriptor.HELLO_LENGTH;
import static dev.spool.replication.FrameDescriptor.TYPE_DATA;
import static dev.spool.replication.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.FrameDescriptor.TYPE_HEARTBEAT;
import static dev.spool.replication.FrameDescriptor.TYPE_HELLO;
import static dev.spool.replication.FrameDescriptor.TYPE_START;
import static dev.spool.replication.FrameDescriptor.typeName;

/**
 * The receiving end of replication: listens for one {@link ReplicationSource} at a time and writes each excerpt it
 * receives at the same index into a replica queue ({@link ReplicationRole#REPLICA}), then acknowledges the highest index
 * written, or synced if so configured. The replica is created at the first handshake with the source's identity,
 * roll cycle, epoch and maximum message length; until then {@link SpoolQueue#exists(Path)} is false.
 * <p>
 * Threads: one, {@value #THREAD_NAME}, which waits in {@link Selector#select(long)} (it never spins) and does all
 * the socket and queue work. A new connection replaces the current one, which is closed: a restarted source is
 * served at once, without waiting for its dead connection to time out.
 */
public final class ReplicationSink implements AutoCloseable {
    /** Name of the sink's thread. */
    public static final String THREAD_NAME = "spool-replication-sink";
    /** Default largest frame accepted: a 16 MiB excerpt and its headers. */
    public static final int DEFAULT_MAX_FRAME_LENGTH = (16 << 20) + 64;
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationSink.class);
    private static final int HANDSHAKE_CAPACITY = 4096;

    private final Path directory;
    private final ReplicaWriter replica;
    private final SinkHandshake handshake;
    private int growTo;
    private final long heartbeatNs;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread thread;
    private final Consumer<SelectionKey> onSelected = this::onSelected;
    private volatile boolean running = true;
    private volatile boolean connected;
    private volatile Throwable failure;

    private final Connection connection = new Connection(HANDSHAKE_CAPACITY, HANDSHAKE_CAPACITY);
    private final ErrorFlyweight error = new ErrorFlyweight();
    private State state;

    private enum State { AWAIT_HELLO, AWAIT_START, STREAMING }

    private ReplicationSink(final Builder builder) throws IOException {
        this.directory = builder.directory;
        final SpoolQueueBuilder queueBuilder = SpoolQueue.builder(directory);
        builder.queueSettings.accept(queueBuilder);
        this.heartbeatNs = builder.heartbeatInterval.toNanos();
        ServerSocketChannel channel = null;
        ReplicaWriter opened = null;
        try {
            opened = new ReplicaWriter(directory, queueBuilder, builder.ackSynced);
            channel = ServerSocketChannel.open();
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(new InetSocketAddress(builder.bindAddress, builder.port));
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_ACCEPT);
            server = channel;
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            connection.close();
            if (opened != null) {
                opened.close();
            }
            throw e;
        }
        replica = opened;
        handshake = new SinkHandshake(directory, replica, builder.maxFrameLength, builder.secret);
        thread = new Thread(this::run, THREAD_NAME);
        thread.setDaemon(true);
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
        return connected;
    }

    /** @return the last index written to the replica, -1 if none. */
    public long lastIndex() {
        return replica.lastIndex();
    }

    /** @return the error that stopped the sink's thread, or null while it runs. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Stops the sink and makes its replica the primary of the next term (see {@link Failover#promote}); the old
     * source is fenced as soon as it meets that term. Who decides to promote is outside Spool: call this from the
     * failover hook of your choice once the old source is known to be gone.
     *
     * @return the new term.
     * @throws IllegalStateException if the replica was never created: nothing was replicated yet.
     */
    public long promote() {
        stop();
        try {
            return replica.promote();
        } finally {
            replica.close();
        }
    }

    /** Stops the thread, closes the connection and the listening socket, and closes the replica. */
    @Override
    public void close() {
        stop();
        replica.close();
    }

    private void stop() {
        running = false;
        selector.wakeup();
        Threads.join(thread, "the sink of " + directory);
    }

    private ReplicationSink startThread() {
        thread.start();
        return this;
    }

    private void run() {
        try {
            final long selectMillis = Math.max(1, heartbeatNs / 2_000_000);
            while (running) {
                selector.select(onSelected, selectMillis);
                if (connection.isAttached()) {
                    checkLiveness();
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            failure = e;
            LOG.error("replication sink of {} stopped", directory, e);
        } finally {
            disconnect();
            connection.close();
            try {
                selector.close();
                server.close();
            } catch (IOException e) {
                LOG.error("replication sink of {}: cannot close its listening socket", directory, e);
            }
        }
    }

    private void onSelected(final SelectionKey key) {
        try {
            if (key.isAcceptable()) {
                accept();
            } else if (key.isReadable() && connection.isAttached() && key.channel() == connection.channel()) {
                receive();
            }
        } catch (FrameException e) {
            LOG.warn("replication sink of {}: closing the connection from {}: {}", directory, connection.peer(), e.getMessage());
            sendErrorAndDisconnect(ERROR_PROTOCOL, e.getMessage());
        } catch (Refusal e) {
            LOG.error("replication sink of {}: refusing the source at {}: {}", directory, connection.peer(), e.getMessage());
            sendErrorAndDisconnect(e.code(), e.getMessage());
        } catch (Connection.PeerClosedException e) {
            LOG.info("replication sink of {}: {}", directory, e.getMessage());
            disconnect();
        } catch (IOException e) {
            LOG.warn("replication sink of {}: connection from {} lost: {}", directory, connection.peer(), e.toString());
            disconnect();
        }
    }

    private void accept() throws IOException {
        final SocketChannel channel = server.accept();
        if (channel == null) {
            return;
        }
        if (connection.isAttached() && state == State.STREAMING) {
            LOG.info("replication sink of {}: refusing a connection from {}: the source at {} is streaming", directory,
                    channel.getRemoteAddress(), connection.peer());
            refuseBusy(channel, replica.term());
            return;
        }
        if (connection.isAttached()) {
            LOG.info("replication sink of {}: a new connection from {} replaces the handshake of {}", directory,
                    channel.getRemoteAddress(), connection.peer());
            disconnect();
        }
        try {
            connection.attach(channel);
            channel.register(selector, SelectionKey.OP_READ);
        } catch (IOException e) {
            disconnect();
            channel.close();
            throw e;
        }
        state = State.AWAIT_HELLO;
    }

    /** Tells a second source, with one blocking write of a small frame, to retry later; the stream goes on. */
    private static void refuseBusy(final SocketChannel channel, final long term) throws IOException {
        try (SocketChannel refused = channel) {
            final byte[] message = "another source is streaming to this sink".getBytes(StandardCharsets.UTF_8);
            final int length = ErrorFlyweight.frameLength(message.length);
            final ByteBuffer frame = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
            new FrameHeader().wrap(frame, 0).encode(TYPE_ERROR).frameLength(length);
            new ErrorFlyweight().wrap(frame, 0).code(ERROR_BUSY).term(term).message(message, message.length);
            refused.write(frame);
        }
    }

    private void receive() throws IOException, Refusal {
        final Connection c = connection;
        c.receive();
        final long before = replica.written();
        while (c.isAttached() && c.nextFrame()) {
            final int type = c.frameType();
            switch (state) {
                case AWAIT_HELLO:
                    expect(type, TYPE_HELLO);
                    growTo = handshake.onHello(c);
                    state = State.AWAIT_START;
                    break;
                case AWAIT_START:
                    expect(type, TYPE_START);
                    handshake.onStart(c);
                    onStreaming();
                    break;
                default:
                    if (type == TYPE_DATA) {
                        replica.write(c);
                    } else if (type == TYPE_ERROR) {
                        error.wrap(c.received(), c.frameOffset());
                        LOG.error("replication sink of {}: the source at {} reports error {}: {}", directory, c.peer(),
                                error.code(), error.message(c.frameLength()));
                        disconnect();
                        return;
                    } else {
                        expect(type, TYPE_HEARTBEAT);
                    }
                    break;
            }
            c.consumeFrame();
            if (growTo > 0) {
                c.receiveCapacity(growTo);
                growTo = 0;
            }
        }
        if (c.isAttached() && replica.written() != before) {
            replica.ack(c);
        }
        if (c.isAttached()) {
            flushAll();
        }
    }

    private void expect(final int type, final int expected) throws IOException {
        if (type == TYPE_ERROR) {
            error.wrap(connection.received(), connection.frameOffset());
            final String message = "the source at " + connection.peer() + " reports error " + error.code() + ": "
                    + error.message(connection.frameLength());
            LOG.error("replication sink of {}: {}", directory, message);
            throw new Connection.PeerClosedException(message);
        }
        if (type != expected) {
            throw new FrameException(typeName(type) + " frame from " + connection.peer() + " where " + typeName(expected)
                    + " was expected");
        }
    }

    private void onStreaming() {
        state = State.STREAMING;
        connected = true;
        LOG.info("replication sink of {}: source {} of term {} connected, resuming after index {}", directory,
                connection.peer(), handshake.sourceTerm(), replica.written());
        if (replica.written() >= 0) {
            replica.ack(connection);
        }
    }

    private void checkLiveness() {
        final long now = System.nanoTime();
        if (now - connection.lastReceivedNs() > 3 * heartbeatNs) {
            LOG.warn("replication sink of {}: no frame from {} for {} ms, closing the connection", directory,
                    connection.peer(), (now - connection.lastReceivedNs()) / 1_000_000);
            disconnect();
            return;
        }
        if (state == State.STREAMING && connection.sendIdle() && now - connection.lastSentNs() > heartbeatNs) {
            connection.sendHeartbeat();
        }
        try {
            flushAll();
        } catch (IOException e) {
            LOG.warn("replication sink of {}: connection from {} lost: {}", directory, connection.peer(), e.toString());
            disconnect();
        }
    }

    /** Acks and heartbeats are small and the source reads them all the time: wait briefly for room, never long. */
    private void flushAll() throws IOException {
        final long deadline = System.nanoTime() + 3 * heartbeatNs;
        while (!connection.flush()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the source at " + connection.peer() + " reads no acknowledgements");
            }
            Thread.onSpinWait();
        }
    }

    private void sendErrorAndDisconnect(final int code, final String message) {
        try {
            connection.sendError(code, replica.term(), message);
            connection.flush();
        } catch (IOException e) {
            LOG.info("replication sink of {}: could not tell {} why: {}", directory, connection.peer(), e.toString());
        }
        disconnect();
    }

    private void disconnect() {
        connected = false;
        connection.detach();
    }

    /** Settings of a {@link ReplicationSink}. */
    public static final class Builder {
        private final Path directory;
        private Consumer<SpoolQueueBuilder> queueSettings = settings -> { };
        private InetAddress bindAddress = InetAddress.getLoopbackAddress();
        private int port;
        private int maxFrameLength = DEFAULT_MAX_FRAME_LENGTH;
        private Duration heartbeatInterval = ReplicationSource.DEFAULT_HEARTBEAT_INTERVAL;
        private byte[] secret;
        private boolean ackSynced;

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
                throw new IllegalArgumentException("port=" + port + " must be from 0 to 65535");
            }
            this.port = port;
            return this;
        }

        /**
         * @param maxFrameLength the largest frame accepted; a longer one closes the connection. It must hold the
         *                       source's largest message; default {@link #DEFAULT_MAX_FRAME_LENGTH}.
         * @return this builder.
         */
        public Builder maxFrameLength(final int maxFrameLength) {
            if (maxFrameLength < HELLO_LENGTH) {
                throw new IllegalArgumentException("maxFrameLength=" + maxFrameLength + " must be at least " + HELLO_LENGTH);
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
         * @param secret a secret shared with the source, at least 16 bytes; both sides then prove they know it with
         *               an HMAC challenge-response, and a peer that does not is refused. Default none.
         * @return this builder.
         */
        public Builder sharedSecret(final byte[] secret) {
            this.secret = Handshake.checkedSecret(secret);
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
         * Opens the replica if it exists (it must be a replica), binds the listening socket and starts the thread.
         *
         * @return the running sink.
         * @throws UncheckedIOException if the address cannot be bound.
         */
        public ReplicationSink start() {
            try {
                return new ReplicationSink(this).startThread();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on " + bindAddress + ":" + port + " for " + directory, e);
            }
        }
    }
}
