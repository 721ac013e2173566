package dev.spool.replication;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Consumer;

import static dev.spool.replication.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.FrameDescriptor.ERROR_BUSY;
import static dev.spool.replication.FrameDescriptor.ERROR_PROTOCOL;
import static dev.spool.replication.FrameDescriptor.TYPE_DATA;
import static dev.spool.replication.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.FrameDescriptor.TYPE_HEARTBEAT;
import static dev.spool.replication.FrameDescriptor.TYPE_HELLO;
import static dev.spool.replication.FrameDescriptor.TYPE_SCHEMA;
import static dev.spool.replication.FrameDescriptor.TYPE_START;
import static dev.spool.replication.FrameDescriptor.typeName;

/**
 * The sink's side of its one connection from a source: accepts it (a new one replaces one still in its handshake;
 * one made while a source streams is told it is busy), runs the handshake ({@link SinkHandshake}), writes each DATA
 * frame at its index and each SCHEMA frame's file ({@link ReplicaWriter}), acknowledges, heartbeats and drops a silent source. Never waits: an
 * acknowledgement that finds the send buffer busy is owed, and the next pass sends it (it covers everything
 * written before). The sink's agent only; allocates nothing per frame.
 */
final class SinkSession {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationSink.class);
    private static final int HANDSHAKE_CAPACITY = 4096;

    private final Path directory;
    private final ReplicaWriter replica;
    private final SinkHandshake handshake;
    private final Selector selector;
    private final long heartbeatNs;
    private final Connection connection = new Connection(HANDSHAKE_CAPACITY, HANDSHAKE_CAPACITY);
    private final ErrorFlyweight error = new ErrorFlyweight();
    /** Passed to the selector once: {@link #onSelected(SelectionKey)}. */
    final Consumer<SelectionKey> onSelected = this::onSelected;
    private int growTo;
    private State state;
    /** An acknowledgement is due, and waits for the send buffer to empty: the next one covers what this one would. */
    private boolean ackOwed;
    private volatile boolean connected;

    private enum State { AWAIT_HELLO, AWAIT_START, STREAMING }

    /** @param selector the sink's selector, which the connection registers with. */
    SinkSession(final Path directory, final ReplicaWriter replica, final SinkHandshake handshake,
                final Selector selector, final long heartbeatNs) {
        this.directory = directory;
        this.replica = replica;
        this.handshake = handshake;
        this.selector = selector;
        this.heartbeatNs = heartbeatNs;
    }

    /** @return true while a source is connected and past the handshake. */
    boolean isConnected() {
        return connected;
    }

    /** @return true while a connection is open, in its handshake or streaming. */
    boolean isAttached() {
        return connection.isAttached();
    }

    /** Closes the connection and frees its buffers. */
    void close() {
        disconnect();
        connection.close();
    }

    /** What the sink's selector found ready: its listening socket or the connection. */
    void onSelected(final SelectionKey key) {
        try {
            if (key.isAcceptable()) {
                accept((ServerSocketChannel) key.channel());
            } else if (key.isReadable() && connection.isAttached() && key.channel() == connection.channel()) {
                receive();
            }
        } catch (FrameException e) {
            LOG.warn("replication sink of {}: closing the connection from {}: {}", directory, connection.peer(), e.getMessage());
            sendErrorAndDisconnect(ERROR_PROTOCOL, e.getMessage());
        } catch (Refusal e) {
            if (e.code() == ERROR_AUTHENTICATION) {
                LOG.warn("replication sink of {}: refusing the source at {}: {}", directory, connection.peer(),
                        e.getMessage());
            } else {
                LOG.error("replication sink of {}: refusing the source at {}: {}", directory, connection.peer(),
                        e.getMessage());
            }
            sendErrorAndDisconnect(e.code(), e.getMessage());
        } catch (PeerErrorException e) {
            LOG.warn("replication sink of {}: {}", directory, e.getMessage());
            disconnect();
        } catch (Connection.PeerClosedException e) {
            LOG.info("replication sink of {}: {}", directory, e.getMessage());
            disconnect();
        } catch (IOException e) {
            LOG.warn("replication sink of {}: connection from {} lost: {}", directory, connection.peer(), e.toString());
            disconnect();
        }
    }

    private void accept(final ServerSocketChannel server) throws IOException {
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

    /**
     * Tells a second source to retry later, with one write of a small frame into the fresh socket's empty buffer,
     * which takes it whole; the stream goes on. With a secret the frame carries a MAC under
     * {@link Handshake#termKey}, so a stale primary can trust the term in it and learn it is fenced.
     */
    private void refuseBusy(final SocketChannel channel, final long term) throws IOException {
        try (SocketChannel refused = channel) {
            refused.configureBlocking(false);
            final byte[] message = "another source is streaming to this sink".getBytes(StandardCharsets.UTF_8);
            final int length = ErrorFlyweight.frameLength(message.length);
            final byte[] key = handshake.termKey();
            final int tagLength = key == null ? 0 : FrameMac.TAG_LENGTH;
            final ByteBuffer frame = ByteBuffer.allocate(length + tagLength).order(ByteOrder.LITTLE_ENDIAN);
            new FrameHeader().wrap(frame, 0).encode(TYPE_ERROR).frameLength(length + tagLength);
            new ErrorFlyweight().wrap(frame, 0).code(ERROR_BUSY).term(term).message(message, message.length);
            if (key != null) {
                final FrameMac mac = new FrameMac();
                mac.key(key);
                mac.sign(frame, 0, length);
            }
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
                    } else if (type == TYPE_SCHEMA) {
                        replica.writeSchema(c);
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
        // a HELLO moves the written index to the replica's last one: acknowledged once streaming, never before
        if (c.isAttached() && state == State.STREAMING && replica.written() != before) {
            ack();
        }
        if (c.isAttached()) {
            flush();
        }
    }

    private void expect(final int type, final int expected) throws IOException {
        if (type == TYPE_ERROR) {
            error.wrap(connection.received(), connection.frameOffset());
            throw new PeerErrorException("the source at " + connection.peer() + " reports error " + error.code()
                    + " and closes the connection: " + error.message(connection.frameLength()));
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
            ack();
        }
    }

    /**
     * Drops a silent source, sends what waits and a heartbeat when due; on an attached connection.
     *
     * @return 1 if an acknowledgement or a heartbeat was sent, else 0.
     */
    int checkLiveness() {
        final long now = System.nanoTime();
        if (now - connection.lastReceivedNs() > 3 * heartbeatNs) {
            LOG.warn("replication sink of {}: no frame from {} for {} ms, closing the connection", directory,
                    connection.peer(), (now - connection.lastReceivedNs()) / 1_000_000);
            disconnect();
            return 0;
        }
        int work = 0;
        try {
            if (!connection.sendIdle()) {
                flush();
            }
            if (ackOwed && connection.sendIdle()) {
                ack();
                work = 1;
            } else if (state == State.STREAMING && connection.sendIdle() && now - connection.lastSentNs() > heartbeatNs) {
                connection.sendHeartbeat();
                work = 1;
            }
            flush();
        } catch (IOException e) {
            LOG.warn("replication sink of {}: connection from {} lost: {}", directory, connection.peer(), e.toString());
            disconnect();
        }
        return work;
    }

    /** Acknowledges what was written now if nothing else waits to be sent, else as soon as it has gone. */
    private void ack() {
        if (connection.sendIdle()) {
            ackOwed = false;
            replica.ack(connection);
        } else {
            ackOwed = true;
        }
    }

    /**
     * Writes what is pending without waiting: acks and heartbeats are small and the source reads them all the time,
     * so one that takes nothing for three heartbeat intervals is dropped.
     */
    private void flush() throws IOException {
        if (!connection.flush() && System.nanoTime() - connection.lastSentNs() > 3 * heartbeatNs) {
            throw new IOException("the source at " + connection.peer() + " reads no acknowledgements");
        }
    }

    private void sendErrorAndDisconnect(final int code, final String message) {
        try {
            // best effort: an error does not wait behind a frame the source is slow to take
            if (connection.sendIdle()) {
                connection.sendError(code, replica.term(), message);
                connection.flush();
            }
        } catch (IOException e) {
            LOG.info("replication sink of {}: could not tell {} why: {}", directory, connection.peer(), e.toString());
        }
        disconnect();
    }

    /** The source sent an ERROR during the handshake: logged once, and the connection closed. */
    private static final class PeerErrorException extends IOException {
        private static final long serialVersionUID = 1L;

        PeerErrorException(final String message) {
            super(message);
        }
    }

    /** Closes the connection, if any. */
    void disconnect() {
        connected = false;
        ackOwed = false;
        connection.detach();
    }

}
