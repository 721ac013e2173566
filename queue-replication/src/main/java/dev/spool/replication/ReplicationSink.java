package dev.spool.replication;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.QueueRole;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

import static dev.spool.replication.FrameDescriptor.*;

/**
 * The receiving end of replication: listens for one {@link ReplicationSource} at a time and writes each excerpt it
 * receives at the same index into a replica queue ({@link QueueRole#REPLICA}), then acknowledges the highest index
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

    private final SpoolQueueBuilder queueBuilder;
    private final Path directory;
    private int growTo;
    private final int maxFrameLength;
    private final long heartbeatNs;
    private final byte[] secret;
    private final boolean ackSynced;
    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread thread;
    private final Consumer<SelectionKey> onSelected = this::onSelected;
    private volatile boolean running = true;
    private volatile boolean connected;
    private volatile long lastIndex = -1;
    private volatile Throwable failure;

    private SpoolQueue queue;
    private IndexedAppender appender;
    private final Connection connection = new Connection(HANDSHAKE_CAPACITY, HANDSHAKE_CAPACITY);
    private State state;
    private byte[] sourceNonce;
    private byte[] sinkNonce;
    private long sourceTerm;
    private long written = -1;
    private long acked = -1;

    private enum State { AWAIT_HELLO, AWAIT_START, STREAMING }

    private ReplicationSink(final Builder builder) throws IOException {
        this.directory = builder.directory;
        this.queueBuilder = SpoolQueue.builder(directory);
        builder.queueSettings.accept(queueBuilder);
        this.maxFrameLength = builder.maxFrameLength;
        this.heartbeatNs = builder.heartbeatInterval.toNanos();
        this.secret = builder.secret;
        this.ackSynced = builder.ackSynced;
        ServerSocketChannel channel = null;
        try {
            if (SpoolQueue.exists(directory)) {
                queue = queueBuilder.build();
                if (QueueInternals.of(queue).role() != QueueRole.REPLICA) {
                    throw new IllegalStateException("queue " + directory + " is a " + QueueInternals.of(queue).role() + " queue of term "
                            + QueueInternals.of(queue).term() + ": a sink writes only to a replica");
                }
                lastIndex = queue.lastIndex();
            }
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
            if (queue != null) {
                queue.close();
            }
            throw e;
        }
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
        return lastIndex;
    }

    /** @return the error that stopped the sink's thread, or null while it runs. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Stops the sink and makes its replica the primary of the next term (see {@link QueueInternals#promote()}); the old
     * source is fenced as soon as it meets that term. Who decides to promote is outside Spool: call this from the
     * failover hook of your choice once the old source is known to be gone.
     *
     * @return the new term.
     * @throws IllegalStateException if the replica was never created: nothing was replicated yet.
     */
    public long promote() {
        stop();
        try {
            if (queue == null) {
                throw new IllegalStateException("sink of " + directory + " has no replica to promote: no source ever"
                        + " completed a handshake with it");
            }
            return QueueInternals.of(queue).promote();
        } finally {
            closeQueue();
        }
    }

    /** Stops the thread, closes the connection and the listening socket, and closes the replica. */
    @Override
    public void close() {
        stop();
        closeQueue();
    }

    private void stop() {
        running = false;
        selector.wakeup();
        Threads.join(thread, "the sink of " + directory);
    }

    private void closeQueue() {
        if (queue != null) {
            queue.close();
        }
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
            refuseBusy(channel, queue == null ? 0 : QueueInternals.of(queue).term());
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
            final byte[] message = "another source is streaming to this sink".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            final ByteBuffer frame = ByteBuffer.allocate(ERROR_MESSAGE_OFFSET + message.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            frame.putInt(LENGTH_OFFSET, frame.capacity()).putShort(TYPE_OFFSET, TYPE_ERROR).putShort(VERSION_OFFSET, VERSION)
                    .putInt(ERROR_CODE_OFFSET, ERROR_BUSY).putInt(ERROR_MESSAGE_LENGTH_OFFSET, message.length)
                    .putLong(ERROR_TERM_OFFSET, term)
                    .put(ERROR_MESSAGE_OFFSET, message);
            refused.write(frame);
        }
    }

    private void receive() throws IOException {
        final Connection c = connection;
        c.receive();
        final long before = written;
        while (c.isAttached() && c.nextFrame()) {
            final int type = c.frameType();
            switch (state) {
                case AWAIT_HELLO:
                    expect(type, TYPE_HELLO);
                    onHello();
                    break;
                case AWAIT_START:
                    expect(type, TYPE_START);
                    onStart();
                    break;
                default:
                    if (type == TYPE_DATA) {
                        onData();
                    } else if (type == TYPE_ERROR) {
                        LOG.error("replication sink of {}: the source at {} reports error {}: {}", directory, c.peer(),
                                c.errorCode(), c.errorMessage());
                        disconnect();
                        return;
                    } else {
                        expect(type, TYPE_HEARTBEAT);
                    }
                    break;
            }
            if (c.isAttached()) {
                c.consumeFrame();
                if (growTo > 0) {
                    c.receiveCapacity(growTo);
                    growTo = 0;
                }
            }
        }
        if (c.isAttached() && written != before) {
            ack();
        }
        if (c.isAttached()) {
            flushAll();
        }
    }

    private void expect(final int type, final int expected) throws IOException {
        if (type == TYPE_ERROR) {
            final String message = "the source at " + connection.peer() + " reports error " + connection.errorCode() + ": "
                    + connection.errorMessage();
            LOG.error("replication sink of {}: {}", directory, message);
            throw new Connection.PeerClosedException(message);
        }
        if (type != expected) {
            throw new FrameException(typeName(type) + " frame from " + connection.peer() + " where " + typeName(expected)
                    + " was expected");
        }
    }

    private void onHello() throws IOException {
        final ByteBuffer frame = connection.received();
        final int at = connection.frameOffset();
        if (frame.getInt(at + HELLO_MAGIC_OFFSET) != MAGIC) {
            throw new FrameException(String.format("HELLO from %s has magic 0x%08x, expected 0x%08x", connection.peer(),
                    frame.getInt(at + HELLO_MAGIC_OFFSET), MAGIC));
        }
        final int rollCycleId = frame.getInt(at + HELLO_ROLL_CYCLE_OFFSET);
        final UUID queueId = new UUID(frame.getLong(at + HELLO_QUEUE_ID_OFFSET), frame.getLong(at + HELLO_QUEUE_ID_OFFSET + Long.BYTES));
        final long epochMillis = frame.getLong(at + HELLO_EPOCH_OFFSET);
        sourceTerm = frame.getLong(at + HELLO_TERM_OFFSET);
        final int maxMessageLength = frame.getInt(at + HELLO_MAX_MESSAGE_LENGTH_OFFSET);
        final int frameLimit = frame.getInt(at + HELLO_FRAME_LIMIT_OFFSET);
        sourceNonce = Handshake.bytes(frame, at + HELLO_NONCE_OFFSET, NONCE_LENGTH);
        final RollCycle rollCycle = rollCycle(rollCycleId);
        final String mismatch = mismatch(queueId, rollCycle, rollCycleId, epochMillis, maxMessageLength);
        if (mismatch != null) {
            refuse(ERROR_QUEUE_MISMATCH, mismatch);
            return;
        }
        final long largestFrame = Math.max(frameLimit, (long) DATA_ENTRIES_OFFSET + ENTRY_HEADER_LENGTH + maxMessageLength);
        if (frameLimit < HEADER_LENGTH || largestFrame > maxFrameLength) {
            refuse(ERROR_PROTOCOL, "the source's frames (frame limit " + frameLimit + ", messages up to " + maxMessageLength
                    + " bytes: up to " + largestFrame + " bytes) exceed the sink's maximum frame length " + maxFrameLength);
            return;
        }
        growTo = (int) largestFrame;
        if (queue == null) {
            queueBuilder.replicaOf(queueId).rollCycle(rollCycle).epochMillis(epochMillis).maxMessageLength(maxMessageLength);
        }
        final long last = queue == null ? -1 : queue.lastIndex();
        final long checksum = queue == null ? -1 : Handshake.checksumAt(queue, last);
        final long term = queue == null ? 0 : QueueInternals.of(queue).term();
        sinkNonce = Handshake.nonce();
        final ByteBuffer send = connection.send();
        final int offset = connection.beginFrame(TYPE_WELCOME);
        send.putLong(offset + WELCOME_LAST_INDEX_OFFSET, last);
        send.putLong(offset + WELCOME_CHECKSUM_OFFSET, checksum);
        send.putLong(offset + WELCOME_TERM_OFFSET, term);
        send.put(offset + WELCOME_NONCE_OFFSET, sinkNonce);
        send.put(offset + WELCOME_MAC_OFFSET, Handshake.mac(secret, Handshake.SINK_LABEL, sourceNonce, sinkNonce));
        connection.endFrame(offset, WELCOME_LENGTH);
        lastIndex = last;
        written = last;
        state = State.AWAIT_START;
    }

    private static RollCycle rollCycle(final int id) {
        for (final RollCycle rollCycle : RollCycle.values()) {
            if (rollCycle.id() == id) {
                return rollCycle;
            }
        }
        return null;
    }

    private String mismatch(final UUID queueId, final RollCycle rollCycle, final int rollCycleId, final long epochMillis,
                            final int maxMessageLength) {
        if (rollCycle == null) {
            return "unknown roll cycle id " + rollCycleId;
        }
        if (queue == null) {
            return null;
        }
        if (!queue.queueId().equals(queueId)) {
            return "the sink's replica " + directory + " has queue id " + queue.queueId() + ", the source's is " + queueId;
        }
        if (queue.rollCycle() != rollCycle || queue.epochMillis() != epochMillis) {
            return "the sink's replica " + directory + " has roll cycle " + queue.rollCycle() + " and epoch " + queue.epochMillis()
                    + ", the source's are " + rollCycle + " and " + epochMillis;
        }
        if (queue.maxMessageLength() < maxMessageLength) {
            return "the sink's replica " + directory + " takes messages of up to " + queue.maxMessageLength()
                    + " bytes, the source's up to " + maxMessageLength;
        }
        return null;
    }

    private void onStart() throws IOException {
        final ByteBuffer frame = connection.received();
        final int at = connection.frameOffset();
        final byte[] expected = Handshake.mac(secret, Handshake.SOURCE_LABEL, sinkNonce, sourceNonce);
        if (!Handshake.verify(secret, expected, Handshake.bytes(frame, at + START_MAC_OFFSET, MAC_LENGTH))) {
            refuse(ERROR_AUTHENTICATION, "the source at " + connection.peer() + " failed the shared-secret check");
            return;
        }
        final long resumeAfter = frame.getLong(at + START_INDEX_OFFSET);
        if (resumeAfter != written) {
            throw new FrameException("START from " + connection.peer() + " resumes after index " + resumeAfter
                    + ", the sink's last index is " + written);
        }
        try {
            if (queue == null) {
                queue = queueBuilder.build();
            }
            if (sourceTerm < QueueInternals.of(queue).term()) {
                refuse(ERROR_FENCED, "the source's term " + sourceTerm + " is older than the replica's " + QueueInternals.of(queue).term()
                        + ": a later primary exists, the source is fenced");
                return;
            }
            if (sourceTerm > QueueInternals.of(queue).term()) {
                QueueInternals.of(queue).adoptTerm(sourceTerm);
            }
            if (appender == null) {
                appender = QueueInternals.of(queue).createIndexedAppender();
            }
        } catch (RuntimeException e) {
            LOG.error("replication sink of {}: cannot open the replica", directory, e);
            refuse(ERROR_WRITE_FAILED, "the sink cannot open its replica " + directory + ": " + e.getMessage());
            return;
        }
        state = State.STREAMING;
        connected = true;
        LOG.info("replication sink of {}: source {} of term {} connected, resuming after index {}", directory,
                connection.peer(), sourceTerm, written);
        acked = -1;
        if (written >= 0) {
            ack();
        }
    }

    /** Checks the whole frame before writing any of it: a malformed frame leaves the replica untouched. */
    private void onData() throws IOException {
        final ByteBuffer frame = connection.received();
        final int at = connection.frameOffset();
        final int end = at + connection.frameLength();
        final int count = frame.getInt(at + DATA_COUNT_OFFSET);
        int entry = at + DATA_ENTRIES_OFFSET;
        long previous = written;
        for (int i = 0; i < count; i++) {
            if (entry + ENTRY_HEADER_LENGTH > end) {
                throw new FrameException("DATA frame from " + connection.peer() + " ends inside entry " + i + " of " + count);
            }
            final long index = frame.getLong(entry + ENTRY_INDEX_OFFSET);
            final int length = frame.getInt(entry + ENTRY_LENGTH_OFFSET);
            if (length < 1 || length > end - entry - ENTRY_HEADER_LENGTH) {
                throw new FrameException("DATA frame from " + connection.peer() + ": entry " + i + " at index " + index
                        + " has length " + length + ", " + (end - entry - ENTRY_HEADER_LENGTH) + " bytes are left");
            }
            if (index <= previous) {
                throw new FrameException("DATA frame from " + connection.peer() + ": entry " + i + " has index " + index
                        + ", not after " + previous);
            }
            previous = index;
            entry += ENTRY_HEADER_LENGTH + length;
        }
        if (count < 1 || entry != end) {
            throw new FrameException("DATA frame from " + connection.peer() + " of length " + connection.frameLength()
                    + " holds " + count + " entries ending at offset " + (entry - at));
        }
        entry = at + DATA_ENTRIES_OFFSET;
        for (int i = 0; i < count; i++) {
            final long index = frame.getLong(entry + ENTRY_INDEX_OFFSET);
            final int length = frame.getInt(entry + ENTRY_LENGTH_OFFSET);
            try {
                appender.appendAt(index, connection.receivedStore(), entry + ENTRY_HEADER_LENGTH, length);
            } catch (RuntimeException e) {
                LOG.error("replication sink of {}: cannot write index {} from {}", directory, index, connection.peer(), e);
                refuse(ERROR_WRITE_FAILED, "the sink cannot write index " + index + ": " + e.getMessage());
                return;
            }
            written = index;
            entry += ENTRY_HEADER_LENGTH + length;
        }
        lastIndex = written;
    }

    private void ack() {
        long index = written;
        if (ackSynced) {
            final long synced = appender.sync();
            index = Math.min(synced, written);
        }
        if (index > acked) {
            acked = index;
            connection.sendAck(index);
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

    private void refuse(final int code, final String message) {
        LOG.error("replication sink of {}: refusing the source at {}: {}", directory, connection.peer(), message);
        sendErrorAndDisconnect(code, message);
    }

    private void sendErrorAndDisconnect(final int code, final String message) {
        try {
            connection.sendError(code, queue == null ? 0 : QueueInternals.of(queue).term(), message);
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
