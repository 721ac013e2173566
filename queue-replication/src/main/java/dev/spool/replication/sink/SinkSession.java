package dev.spool.replication.sink;

import dev.spool.queue.IndexFormat;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameException;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_BEHIND_RETENTION;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_DIVERGED;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_PROTOCOL;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_CLIENT_HELLO;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_DATA;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_FETCH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_HEARTBEAT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_HELLO;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_PROOF;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_SCHEMA;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_START;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;

/**
 * The sink's connections: at most one source that proved the shared secret and holds the replica (resumed, then
 * streaming), and up to {@link #MAX_PENDING_HANDSHAKES} connections in their handshake, each with a deadline. A new
 * connection takes a free place, or closes, among the peers that proved nothing yet, the oldest that sent nothing, or
 * else the oldest; it never touches a peer that proved the secret (the source that holds the replica, a repairer
 * fetching), and is closed itself if those hold every place. Only a START that proved the secret may take the replica, and only
 * while no other source holds it (else it is refused as busy). Each connection's failure closes that connection
 * alone. Runs the handshake ({@link SinkHandshake}), writes each DATA frame at its index and each SCHEMA frame's
 * file ({@link ReplicaWriter}), acknowledges, heartbeats and drops a silent source. A connection that opens with
 * CLIENT_HELLO is a repairer's: it proves the secret and fetches the replica's excerpts ({@link FetchService}) in a
 * place of its own among the handshakes', never the replica's holder. Never waits: an acknowledgement
 * that finds the send buffer busy is owed, and the next pass sends it (it covers everything written before). The
 * sink's agent only; allocates nothing per frame of the source's stream.
 */
public final class SinkSession {
    /** Handshakes that may be in progress at once, besides the source that holds the replica. */
    static final int MAX_PENDING_HANDSHAKES = 8;
    private static final Logger LOG = LoggerFactory.getLogger(SinkConfig.LOGGER);
    private static final int HANDSHAKE_CAPACITY = 4096;

    private final Path directory;
    private final ReplicaWriter replica;
    /** Answers repairers, which fetch excerpts of the replica to repair another copy of the queue. */
    private final FetchService fetches;
    private final Selector selector;
    private final long heartbeatNs;
    private final Peer[] peers = new Peer[MAX_PENDING_HANDSHAKES + 1];
    private final ErrorFlyweight error = new ErrorFlyweight();
    /** Failed and unfinished handshakes: a peer may repeat them at will, so they are logged once, then with a count. */
    private final HandshakeLog handshakeLog;
    /** The sink's clock: handshake deadlines, heartbeats and the source's liveness follow it. */
    private final NanoClock clock;
    /** Passed to the selector once: {@link #onSelected(SelectionKey)}. */
    public final Consumer<SelectionKey> onSelected = this::onSelected;
    /** The connection of the source that proved the secret and holds the replica, or null. */
    private Peer holder;
    private long accepted;
    /** An acknowledgement is due, and waits for the send buffer to empty: the next one covers what this one would. */
    private boolean ackOwed;
    private volatile boolean connected;
    /** The last refusal of the replica's history as divergent, until a source accepts the history; or null. */
    private volatile Divergence divergence;
    /** Times the replica was set aside and rebuilt: it fell behind its source's retention. */
    private volatile int rebuilt;
    /** The last index the streaming source announced in its HELLO; -2 until a source streams. */
    private volatile long sourceLastIndex = -2;

    private enum State { FREE, AWAIT_HELLO, AWAIT_START, RESUMED, STREAMING, AWAIT_PROOF, FETCHING }

    /** One connection and its handshake; reused, with its buffers, from one connection to the next. */
    private static final class Peer {
        final Connection connection;
        final SinkHandshake handshake;
        State state = State.FREE;
        /** The order in which it was accepted: the lowest is the oldest. */
        long accepted;
        /** The handshake must end by then. */
        long deadlineNs;
        /** Once the handshake allowed it, the receive buffer grows to this after the current frame. */
        int growTo;
        /** A repairer's CLIENT_HELLO and the CHALLENGE answering it, until its PROOF. */
        byte[][] repairHandshake;

        Peer(final SinkHandshake handshake, final NanoClock clock) {
            this.connection = new Connection(clock, HANDSHAKE_CAPACITY, HANDSHAKE_CAPACITY);
            this.handshake = handshake;
        }
    }

    /**
     * @param handshakes makes the handshake of one connection.
     * @param secret     the shared secret, or null on an insecure sink: a repairer's handshake proves it.
     * @param selector   the sink's selector, which the connections register with.
     */
    public SinkSession(final Path directory, final ReplicaWriter replica, final Supplier<SinkHandshake> handshakes,
                final byte[] secret, final Selector selector, final long heartbeatNs, final NanoClock clock) {
        this.fetches = new FetchService(directory, replica, secret);
        this.directory = directory;
        this.handshakeLog = new HandshakeLog(directory);
        this.clock = clock;
        this.replica = replica;
        this.selector = selector;
        this.heartbeatNs = heartbeatNs;
        for (int i = 0; i < peers.length; i++) {
            peers[i] = new Peer(handshakes.get(), clock);
        }
    }

    /** @return true while a source is connected and past the handshake. */
    public boolean isConnected() {
        return connected;
    }

    /**
     * @return the last index the source that streams, or last streamed, to this sink announced when it connected (-1
     * if it was empty); -2 if no source has streamed since the sink started.
     */
    public long sourceLastIndex() {
        return sourceLastIndex;
    }

    /** Closes every connection and frees their buffers. */
    public void close() {
        for (final Peer peer : peers) {
            disconnect(peer);
            peer.connection.close();
        }
    }

    /** What the sink's selector found ready: its listening socket or one of the connections. */
    void onSelected(final SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key.isAcceptable()) {
            accept((ServerSocketChannel) key.channel());
            return;
        }
        final Peer peer = (Peer) key.attachment();
        if (peer != null && peer.state != State.FREE && key.channel() == peer.connection.channel() && key.isReadable()) {
            serve(peer);
        }
    }

    private void accept(final ServerSocketChannel server) {
        SocketChannel channel;
        try {
            channel = server.accept();
        } catch (IOException e) {
            LOG.warn("replication sink of {}: cannot accept a connection: {}", directory, e.toString());
            return;
        }
        while (channel != null) {
            final Peer peer = place();
            if (peer == null) {
                handshakeLog.abandoned(channel.socket().getRemoteSocketAddress(), "every place holds a proven"
                        + " peer");
                close(channel);
            } else {
                open(peer, channel);
            }
            try {
                channel = server.accept();
            } catch (IOException e) {
                LOG.warn("replication sink of {}: cannot accept a connection: {}", directory, e.toString());
                return;
            }
        }
    }

    private void open(final Peer peer, final SocketChannel channel) {
        try {
            peer.connection.attach(channel);
            channel.register(selector, SelectionKey.OP_READ, peer);
            peer.state = State.AWAIT_HELLO;
            peer.accepted = ++accepted;
            peer.deadlineNs = clock.nanoTime() + 3 * heartbeatNs;
            // a source sends HELLO as it connects: read now, so that this handshake is past its first step
            serve(peer);
        } catch (IOException e) {
            handshakeLog.abandoned(peer.connection.peer(), e.toString());
            disconnect(peer);
            close(channel);
        }
    }

    private void close(final SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.info("replication sink of {}: cannot close a connection: {}", directory, e.toString());
        }
    }

    /**
     * @return a free place for a new connection; else, closed, the place of a peer that proved nothing yet (the oldest
     * that sent nothing, or else the oldest); else null: a proven peer is never displaced by an unproven one.
     */
    private Peer place() {
        Peer oldest = null;
        for (final Peer peer : peers) {
            if (peer.state == State.FREE) {
                return peer;
            }
            final boolean proven = peer.state == State.RESUMED || peer.state == State.STREAMING
                    || peer.state == State.FETCHING;
            if (!proven && (oldest == null || isOlderToClose(peer, oldest))) {
                oldest = peer;
            }
        }
        if (oldest != null) {
            handshakeLog.abandoned(oldest.connection.peer(), "the most handshakes at once, "
                    + MAX_PENDING_HANDSHAKES + ", are in progress");
            disconnect(oldest);
        }
        return oldest;
    }

    /** @return true if {@code peer} is closed before {@code other}: it alone sent nothing, or else it is older. */
    private static boolean isOlderToClose(final Peer peer, final Peer other) {
        final boolean silent = peer.state == State.AWAIT_HELLO;
        return silent != (other.state == State.AWAIT_HELLO) ? silent : peer.accepted < other.accepted;
    }

    /** Reads and handles what the connection sent; any failure closes this connection alone. */
    private void serve(final Peer peer) {
        final Connection connection = peer.connection;
        try {
            receive(peer);
        } catch (FrameException e) {
            handshakeLog.closing(peer == holder, connection.peer(), e.getMessage());
            sendErrorAndDisconnect(peer, ERROR_PROTOCOL, e.getMessage());
        } catch (Refusal e) {
            handshakeLog.refusal(connection, e, peer.state == State.AWAIT_PROOF || peer.state == State.FETCHING
                    ? "repairer" : "source");
            sendErrorAndDisconnect(peer, e.code(), e.getMessage());
        } catch (PeerErrorException e) {
            handshakeLog.peerError(peer == holder, e.getMessage());
            disconnect(peer);
        } catch (IOException e) {
            if (peer == holder) {
                if (e instanceof Connection.PeerClosedException) {
                    LOG.info("replication sink of {}: {}", directory, e.getMessage());
                } else {
                    LOG.warn("replication sink of {}: connection from {} lost: {}", directory, connection.peer(),
                            e.toString());
                }
            } else {
                handshakeLog.abandoned(peer.connection.peer(), e.toString());
            }
            disconnect(peer);
        }
    }

    private void receive(final Peer peer) throws IOException, Refusal {
        final Connection c = peer.connection;
        c.receive();
        final long before = replica.written();
        while (c.isAttached() && c.nextFrame()) {
            final int type = c.frameType();
            switch (peer.state) {
                case AWAIT_HELLO:
                    if (type == TYPE_CLIENT_HELLO) {
                        peer.repairHandshake = fetches.onHello(c);
                        peer.state = State.AWAIT_PROOF;
                        break;
                    }
                    expect(c, type, TYPE_HELLO);
                    peer.handshake.onHello(c);
                    peer.state = State.AWAIT_START;
                    break;
                case AWAIT_PROOF:
                    expect(c, type, TYPE_PROOF);
                    fetches.onProof(c, peer.repairHandshake);
                    peer.repairHandshake = null;
                    peer.state = State.FETCHING;
                    break;
                case FETCHING:
                    expect(c, type, TYPE_FETCH);
                    fetches.onFetch(c);
                    // a repairer that keeps asking keeps its place; one that stops is closed at its deadline
                    peer.deadlineNs = clock.nanoTime() + 3 * heartbeatNs;
                    break;
                case AWAIT_START:
                    expect(c, type, TYPE_START);
                    peer.growTo = peer.handshake.onStart(c, holder != null);
                    holder = peer;
                    peer.state = State.RESUMED;
                    break;
                case RESUMED:
                    if (type == TYPE_ERROR) {
                        onSourceError(peer);
                        return;
                    }
                    peer.handshake.onConfirmed();
                    onStreaming(peer);
                    stream(peer, type);
                    break;
                default:
                    if (type == TYPE_ERROR) {
                        onSourceError(peer);
                        return;
                    }
                    stream(peer, type);
                    break;
            }
            c.consumeFrame();
            if (peer.growTo > 0) {
                c.receiveCapacity(peer.growTo);
                peer.growTo = 0;
            }
        }
        // RESUME moves the written index to the replica's last one: acknowledged once streaming, never before
        if (c.isAttached() && peer.state == State.STREAMING && replica.written() != before) {
            ack();
        }
        if (c.isAttached()) {
            flush(peer);
        }
    }

    private void stream(final Peer peer, final int type) throws IOException, Refusal {
        final Connection c = peer.connection;
        if (type == TYPE_DATA) {
            replica.write(c);
        } else if (type == TYPE_SCHEMA) {
            replica.writeSchema(c);
        } else {
            expect(c, type, TYPE_HEARTBEAT);
        }
    }

    /**
     * The source that proved the secret ends the stream with an ERROR; a refusal of the replica's history as
     * divergent is kept for {@link #divergence()}: the replica or the source is to be set aside, which the sink
     * cannot decide.
     */
    private void onSourceError(final Peer peer) {
        final Connection c = peer.connection;
        error.wrap(c.received(), c.frameOffset());
        final String message = error.message(c.frameLength());
        if (error.code() == ERROR_BEHIND_RETENTION && replica.lastIndex() >= 0) {
            rebuild(c, message);
            disconnect(peer);
            return;
        }
        LOG.error("replication sink of {}: the source at {} reports error {}: {}", directory, c.peer(), error.code(),
                message);
        if (error.code() == ERROR_DIVERGED) {
            final long replicaLast = replica.lastIndex();
            final long sourceLast = peer.handshake.sourceLastIndex();
            divergence = new Divergence("the replica " + directory + " holds excerpts its source at " + c.peer()
                    + " lacks: its last index is " + IndexFormat.format(replicaLast, replica.rollCycle())
                    + ", the source's " + IndexFormat.format(sourceLast, replica.rollCycle()) + " (the source says: "
                    + message + "); nothing is merged: set the directory aside and rebuild the replica from the"
                    + " primary", replicaLast, sourceLast);
        }
        disconnect(peer);
    }

    /**
     * The source that proved the secret no longer holds the replica's next index: retention deleted it. The replica
     * holds nothing the source contradicts, so it is rebuilt without an operator: its directory is set aside, kept and
     * named in the log, and the source's next connection creates it afresh and streams it from its oldest excerpt.
     */
    private void rebuild(final Connection c, final String reason) {
        final String last = IndexFormat.format(replica.lastIndex(), replica.rollCycle());
        final Path aside;
        try {
            aside = replica.moveAside();
        } catch (UncheckedIOException e) {
            LOG.error("replication sink of {}: the source at {} no longer holds what follows the replica's last index"
                    + " {}, and the replica cannot be set aside to be rebuilt: {}", directory, c.peer(), last,
                    e.getMessage());
            return;
        }
        rebuilt++;
        LOG.error("replication sink of {}: the source at {} no longer holds what follows the replica's last index {}"
                + " ({}): the replica's directory is set aside as {}, kept with every file, and the replica is rebuilt"
                + " from the source's oldest cycle", directory, c.peer(), last, reason, aside);
    }

    /** @return how many times the replica was set aside and rebuilt since the sink started; any thread. */
    public int rebuilt() {
        return rebuilt;
    }

    /**
     * @return the last refusal of the replica's history as divergent by a source that proved the secret, or null if
     * none since a source last accepted the history; any thread.
     */
    public Divergence divergence() {
        return divergence;
    }

    /**
     * A source refused the replica's history as divergent.
     *
     * @param message          why, naming the replica, the source and both indices.
     * @param replicaLastIndex the replica's last index.
     * @param sourceLastIndex  the source's last index as its HELLO announced it, -1 if it had none.
     */
    public record Divergence(String message, long replicaLastIndex, long sourceLastIndex) {
    }

    private void expect(final Connection connection, final int type, final int expected) throws IOException {
        if (type == TYPE_ERROR) {
            error.wrap(connection.received(), connection.frameOffset());
            throw new PeerErrorException("the peer at " + connection.peer() + " reports error " + error.code()
                    + " and closes the connection; it said: " + error.message(connection.frameLength()));
        }
        if (type != expected) {
            throw new FrameException(typeName(type) + " frame from " + connection.peer() + " where "
                    + typeName(expected) + " was expected");
        }
    }

    private void onStreaming(final Peer peer) {
        peer.state = State.STREAMING;
        sourceLastIndex = peer.handshake.sourceLastIndex();
        connected = true;
        divergence = null;
        handshakeLog.streaming();
        LOG.info("replication sink of {}: source {} of term {} connected, resuming after index {}", directory,
                peer.connection.peer(), peer.handshake.sourceTerm(), replica.written());
        if (replica.written() >= 0) {
            ack();
        }
    }

    /**
     * Closes handshakes past their deadline; drops a silent source, sends what waits and a heartbeat when due.
     *
     * @return 1 if an acknowledgement or a heartbeat was sent, else 0.
     */
    public int checkLiveness() {
        final long now = clock.nanoTime();
        int work = 0;
        for (final Peer peer : peers) {
            if (peer.state == State.FREE) {
                continue;
            }
            if (peer == holder) {
                work += checkHolder(now);
            } else if (now - peer.deadlineNs > 0) {
                handshakeLog.abandoned(peer.connection.peer(), "no handshake within " + 3 * heartbeatNs / 1_000_000
                        + " ms");
                disconnect(peer);
            } else if (!peer.connection.sendIdle()) {
                try {
                    peer.connection.flush();
                } catch (IOException e) {
                    handshakeLog.abandoned(peer.connection.peer(), e.toString());
                    disconnect(peer);
                }
            }
        }
        return work;
    }

    private int checkHolder(final long now) {
        final Peer peer = holder;
        final Connection connection = peer.connection;
        if (now - connection.lastReceivedNs() > 3 * heartbeatNs) {
            LOG.warn("replication sink of {}: no frame from {} for {} ms, closing the connection", directory,
                    connection.peer(), (now - connection.lastReceivedNs()) / 1_000_000);
            disconnect(peer);
            return 0;
        }
        int work = 0;
        try {
            if (!connection.sendIdle()) {
                flush(peer);
            }
            if (ackOwed && connection.sendIdle()) {
                ack();
                work = 1;
            } else if (peer.state == State.STREAMING && connection.sendIdle()
                    && now - connection.lastSentNs() > heartbeatNs) {
                connection.sendHeartbeat();
                work = 1;
            }
            flush(peer);
        } catch (IOException e) {
            LOG.warn("replication sink of {}: connection from {} lost: {}", directory, connection.peer(), e.toString());
            disconnect(peer);
        }
        return work;
    }

    /** Acknowledges what was written now if nothing else waits to be sent, else as soon as it has gone. */
    private void ack() {
        final Connection connection = holder.connection;
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
    private void flush(final Peer peer) throws IOException {
        final Connection connection = peer.connection;
        if (!connection.flush() && clock.nanoTime() - connection.lastSentNs() > 3 * heartbeatNs) {
            throw new IOException("the source at " + connection.peer() + " reads no acknowledgements");
        }
    }

    private void sendErrorAndDisconnect(final Peer peer, final int code, final String message) {
        final Connection connection = peer.connection;
        try {
            // best effort: an error does not wait behind a frame the source is slow to take
            if (connection.sendIdle() || connection.flush()) {
                connection.sendError(code, replica.term(), message);
                connection.flush();
            }
        } catch (IOException e) {
            if (peer == holder) {
                LOG.info("replication sink of {}: could not tell {} why: {}", directory, connection.peer(), e.toString());
            }
        }
        disconnect(peer);
    }

    /** The source sent an ERROR during the handshake: logged once, and the connection closed. */
    private static final class PeerErrorException extends IOException {
        private static final long serialVersionUID = 1L;

        PeerErrorException(final String message) {
            super(message);
        }
    }

    /** Closes the connection of {@code peer}, if any, and frees its place. */
    private void disconnect(final Peer peer) {
        if (peer == holder) {
            holder = null;
            connected = false;
            ackOwed = false;
        }
        peer.state = State.FREE;
        peer.growTo = 0;
        peer.repairHandshake = null;
        try {
            peer.connection.detach();
        } catch (UncheckedIOException e) {
            LOG.info("replication sink of {}: {}", directory, e.getMessage());
        }
    }
}
