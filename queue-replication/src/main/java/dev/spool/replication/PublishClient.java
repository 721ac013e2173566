package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.replication.protocol.AuthenticationException;
import dev.spool.replication.protocol.ClientHandshake;
import dev.spool.replication.protocol.CommitFlyweight;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.PeerText;
import dev.spool.replication.protocol.PublishFlyweight;
import dev.spool.replication.protocol.ReadyFlyweight;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.spool.replication.protocol.FrameDescriptor.READY_FLAG_DEDUPLICATES;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_COMMIT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_GRANT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_HEARTBEAT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_PUBLISH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_READY;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;

/**
 * Publishes messages to a {@link PublishGateway} and waits for their commits. {@link #publish} returns once the
 * message is handed to the socket ({@link CommitStage#PUBLISHED}); {@link #awaitCommit} waits, in
 * {@link Selector#select(long)}, for the gateway's answer at the stage the message asked for. Commits may arrive in
 * any order; up to {@value #WINDOW} publishes may await their commit at once, and a publish past that waits for the
 * oldest one's commit; a commit can be awaited until four windows of later publishes have theirs. Nothing waits without a deadline: the connection, the handshake, each publish's wait for room
 * (in the socket, in the window, in the copy kept for re-sending) and a reconnection take at most the client's
 * timeout (default {@value #DEFAULT_TIMEOUT_MS} ms), then fail naming the gateway. One instance belongs to one
 * thread, on which it does all its I/O: in every call, and every wait within one, it reads the gateway's frames,
 * sends a HEARTBEAT after its {@link Builder#heartbeatInterval heartbeat interval} of silence and watches the gateway's
 * liveness and the locator's changes; between calls it does nothing.
 * <p>
 * Every client has an id ({@link Builder#clientId}, random by default) and numbers its publishes 1, 2, 3...; each
 * PUBLISH carries both. Each instance is a writer of its own: it opens every connection with IDENTIFY, and the
 * gateway grants it a writer epoch ({@link #epoch()}) for its id; a new instance of the id gets a later epoch, which
 * fences this one: its calls then fail with a {@link PublishException} naming the id and both epochs, at once. The
 * client keeps a copy of every publish whose commit has not arrived. When the connection
 * of a client built with a {@link GatewayLocator} ({@link #builder(GatewayLocator, int)}) is lost (the gateway or
 * its host went away, or it closed the connection; not an ERROR from the gateway, which ends the client's calls with
 * a {@link PublishException}), when the gateway sent nothing for the {@link Builder#livenessTimeout liveness timeout}
 * (a frozen or cut-off process keeps its socket open), or when the locator's {@link GatewayLocator#generation()}
 * changed and it names another gateway or none, the call reconnects, under the same epoch, with a back-off from
 * {@value #MIN_BACKOFF_MS} ms to
 * {@value #MAX_BACKOFF_MS} ms between attempts and within the timeout, to the gateway the locator names then (after
 * a failover, the new primary's), and sends again, in order and with their sequences, every publish not yet
 * committed; {@link #awaitCommit} then completes from the new gateway's COMMIT. A client built with a fixed address
 * ({@link #builder(InetSocketAddress, int)}, the {@code connect} methods) fails the call instead, with an
 * {@link UncheckedIOException}; a locator that returns that address makes it reconnect. A gateway whose queue has
 * {@link dev.spool.queue.SpoolQueueBuilder#publisherIds(boolean) publisher ids} ({@link #deduplicates()}) writes a
 * publish sent again only once, and answers it with the original's index if its bytes (length and CRC-32C) are the
 * original's, also after a failover to a replica that received the original; one whose original it cannot tell any
 * more it refuses as in doubt ({@link PublishException#errorCode()} {@code ERROR_IN_DOUBT}), never writing it twice.
 * A gateway without publisher ids writes it again.
 * <p>
 * What a commit promises after a failover, on queues with publisher ids: a commit at {@link CommitStage#ACKED_BY_QUORUM}
 * (or {@link CommitStage#ACKED_BY_ALL}) survives the primary's loss, at its index, since the replica promoted in its
 * place holds every quorum-acknowledged index. Below that ({@link CommitStage#WRITTEN}, {@link CommitStage#SYNCED},
 * {@link CommitStage#ACKED} with more than one replica, an {@code _OR_SYNCED} stage, which may have committed on a
 * local sync), a committed message may be missing from the new primary: the client does not send it again. A
 * message whose commit never came is sent again and is then in the new primary at most once: at the index of the
 * original if the new primary received it, else at a new one; or, if the new primary cannot tell (the original is
 * older than what its gateway read back from the queue at start), the call fails with a {@link PublishException}
 * of code {@code ERROR_IN_DOUBT} and nothing is written. The writer epochs are stored with the excerpts, so the new
 * primary keeps fencing the instances the old one fenced. A failed {@link #publish} says whether its message got a
 * sequence ({@link PublishException#sequence()}, {@link #lastSequence()}): if not, it was never sent and may be
 * published again; if so, it is in doubt.
 */
public final class PublishClient implements AutoCloseable {
    /** Most publishes whose commits can be outstanding at once. */
    public static final int WINDOW = 4096;
    /**
     * How long, by default, the connection, the handshake, a {@link #publish} that waits for room, and a
     * reconnection, wait for the gateway.
     */
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    /** How long, by default, the client may send nothing before it sends a HEARTBEAT, while in a call. */
    public static final long DEFAULT_HEARTBEAT_INTERVAL_MS = 500;
    /**
     * How long, by default, the gateway may send nothing (no commit, no heartbeat) before the client declares it
     * dead: four of the gateway's default heartbeat intervals, and short enough that a client whose locator cannot
     * tell it of a new primary still leaves a frozen one within a ZooKeeper node's default session timeout plus a
     * second.
     */
    public static final long DEFAULT_LIVENESS_TIMEOUT_MS = 2_000;
    /** Default bytes of the copy of the publishes not yet committed, kept to send them again: 1 MiB. */
    public static final int DEFAULT_RESEND_CAPACITY = 1 << 20;
    /** The first pause between two attempts to reconnect. */
    public static final long MIN_BACKOFF_MS = 10;
    /**
     * The longest pause between two attempts to reconnect: short, because an attempt costs little (the locator
     * answers from memory, a dead gateway refuses at once) and every pause past the new primary's start adds to the
     * failover time the client sees.
     */
    public static final long MAX_BACKOFF_MS = 100;
    private static final int MASK = WINDOW - 1;
    /** Commits are kept for this many publishes, more than the window: a burst may be awaited in order after it. */
    private static final int COMMIT_HISTORY = 4 * WINDOW;
    private static final int COMMIT_MASK = COMMIT_HISTORY - 1;

    private final GatewayLocator locator;
    /** True if the client was built with a locator: it reconnects when its connection is lost. */
    private final boolean reconnects;
    private final Connection connection;
    private final long timeoutNs;
    /** The client's clock: every deadline follows it. */
    private final NanoClock clock;
    private final Selector selector;
    private final byte[] secret;
    private final long clientId;
    private final int maxMessageLength;
    /** The sequence each slot's commit answered, 0 for none yet; a slot is a sequence modulo the history. */
    private final long[] commitSequences = new long[COMMIT_HISTORY];
    private final long[] commitIndices = new long[COMMIT_HISTORY];
    /** The copy of each publish not yet committed, in a ring of bytes: where each starts, its length and stage. */
    private final byte[] resend;
    private final long[] resendPositions = new long[WINDOW];
    private final int[] resendLengths = new int[WINDOW];
    private final int[] resendStages = new int[WINDOW];
    private final PublishFlyweight publish = new PublishFlyweight();
    private final CommitFlyweight commit = new CommitFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private final ReadyFlyweight ready = new ReadyFlyweight();
    /** The instance's writer epoch, its connection's GRANT, the gateway's refusal. */
    private final ClientWriter writer;
    /** Heartbeats, the gateway's liveness, the locator's changes. */
    private final GatewayWatch watch;
    /** The gateway connected to, or last tried. */
    private InetSocketAddress gateway;
    private long nextSequence = 1;
    /** The lowest sequence whose commit has not arrived; {@link #nextSequence} when none waits. */
    private long oldestUncommitted = 1;
    /** Where the next copy goes in {@link #resend}, counted from the start without wrapping. */
    private long resendPosition;
    /** Whether the connection's READY has arrived, and what it said. */
    private boolean readyReceived;
    private boolean deduplicates;
    private long gatewayTerm;
    private boolean closed;

    private PublishClient(final ClientConfig config) throws IOException {
        this.locator = config.locator();
        this.reconnects = config.gateway() == null;
        this.gateway = config.gateway();
        this.secret = config.secret();
        this.clientId = config.clientId();
        this.writer = new ClientWriter(clientId);
        this.maxMessageLength = config.maxMessageLength();
        this.timeoutNs = config.timeout().toNanos();
        this.clock = config.nanoClock();
        this.resend = new byte[config.resendCapacity()];
        this.watch = new GatewayWatch(locator, reconnects, config.heartbeatInterval().toNanos(),
                config.livenessTimeout().toNanos(), clientId);
        this.connection = new Connection(clock, 64 * 1024, PublishFlyweight.frameLength(config.maxMessageLength())
                + FrameMac.TAG_LENGTH);
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            connection.close();
            throw e;
        }
        try {
            if (gateway != null) {
                connectTo(gateway, clock.nanoTime() + timeoutNs);
            } else {
                reconnect(null);
            }
        } catch (IOException | RuntimeException e) {
            connection.close();
            selector.close();
            throw e;
        }
    }

    /**
     * Connects to a gateway built with a shared secret: the client and the gateway prove to each other that they
     * know it, and every later frame carries a MAC of the session.
     *
     * @param gateway          the gateway's address.
     * @param maxMessageLength the longest message this client will publish.
     * @param secret           the gateway's shared secret ({@link PublishGateway.Builder#sharedSecret}).
     * @return a connected, authenticated client, whose timeout is {@value #DEFAULT_TIMEOUT_MS} ms.
     * @throws UncheckedIOException if the gateway cannot be reached, does not answer within
     *                              {@value #DEFAULT_TIMEOUT_MS} ms, or does not prove the secret.
     */
    public static PublishClient connect(final InetSocketAddress gateway, final int maxMessageLength,
                                        final byte[] secret) {
        return connect(gateway, maxMessageLength, secret, Duration.ofMillis(DEFAULT_TIMEOUT_MS));
    }

    /**
     * Connects to a gateway built with a shared secret, as {@link #connect(InetSocketAddress, int, byte[])} does,
     * waiting for the gateway at most {@code timeout} each time.
     *
     * @param gateway          the gateway's address.
     * @param maxMessageLength the longest message this client will publish.
     * @param secret           the gateway's shared secret ({@link PublishGateway.Builder#sharedSecret}).
     * @param timeout          how long the connection, the handshake, each {@link #publish} that waits for room,
     *                         and a reconnection, wait for the gateway; positive.
     * @return a connected, authenticated client.
     * @throws UncheckedIOException if the gateway cannot be reached, does not answer within {@code timeout}, or does
     *                              not prove the secret.
     */
    public static PublishClient connect(final InetSocketAddress gateway, final int maxMessageLength,
                                        final byte[] secret, final Duration timeout) {
        return builder(gateway, maxMessageLength).sharedSecret(secret).timeout(timeout).connect();
    }

    /**
     * Connects to a gateway built {@link PublishGateway.Builder#insecure() insecure()}, without authentication.
     *
     * @param gateway          the gateway's address.
     * @param maxMessageLength the longest message this client will publish.
     * @return a connected client, whose timeout is {@value #DEFAULT_TIMEOUT_MS} ms.
     * @throws UncheckedIOException if the gateway cannot be reached within {@value #DEFAULT_TIMEOUT_MS} ms.
     */
    public static PublishClient connectInsecure(final InetSocketAddress gateway, final int maxMessageLength) {
        return connectInsecure(gateway, maxMessageLength, Duration.ofMillis(DEFAULT_TIMEOUT_MS));
    }

    /**
     * Connects to a gateway built {@link PublishGateway.Builder#insecure() insecure()}, without authentication,
     * waiting for the gateway at most {@code timeout} each time.
     *
     * @param gateway          the gateway's address.
     * @param maxMessageLength the longest message this client will publish.
     * @param timeout          how long the connection, each {@link #publish} that waits for room, and a
     *                         reconnection, wait for the gateway; positive.
     * @return a connected client.
     * @throws UncheckedIOException if the gateway cannot be reached within {@code timeout}.
     */
    public static PublishClient connectInsecure(final InetSocketAddress gateway, final int maxMessageLength,
                                                final Duration timeout) {
        return builder(gateway, maxMessageLength).insecure().timeout(timeout).connect();
    }

    /**
     * @param gateway          the gateway's address, a gateway that does not move: the connection is tried once,
     *                         and a call that finds it lost fails.
     * @param maxMessageLength the longest message the client will publish.
     * @return a builder of a client, for the settings the {@code connect} methods do not take.
     */
    public static Builder builder(final InetSocketAddress gateway, final int maxMessageLength) {
        return new Builder(Objects.requireNonNull(gateway, "gateway"), null, maxMessageLength);
    }

    /**
     * @param locator          asked for the gateway's address at the first connection and at every reconnection, so
     *                         the client follows the primary; the first connection is tried, with the back-off,
     *                         until the timeout.
     * @param maxMessageLength the longest message the client will publish.
     * @return a builder of a client.
     */
    public static Builder builder(final GatewayLocator locator, final int maxMessageLength) {
        return new Builder(null, Objects.requireNonNull(locator, "locator"), maxMessageLength);
    }

    /** @return this client's id, which every PUBLISH carries: the builder's, or a random one, never 0. */
    public long clientId() {
        return clientId;
    }

    /**
     * @return the writer epoch the gateway granted this instance of the client id, with which its publishes are
     * stored: each new instance of an id gets a later one, which fences the earlier ones. 0 before the first GRANT,
     * or from a gateway that does not {@link #deduplicates()}.
     */
    public int epoch() {
        return writer.epoch();
    }

    /**
     * @return the sequence the last {@link #publish} gave its message, even if that call failed after it (then the
     * message is in doubt, see {@link PublishException}); 0 if no message got one yet.
     */
    public long lastSequence() {
        return nextSequence - 1;
    }

    /** @return the gateway the client is connected to, or last tried to reach. */
    public InetSocketAddress gateway() {
        return gateway;
    }

    /**
     * Waits, at most the timeout, for the gateway's READY, the first frame of each connection, if it has not arrived.
     *
     * @return true if the gateway's queue has publisher ids: a publish sent again after a reconnection is written
     * only once, and answered with the original's index. False if it writes every publish it receives.
     * @throws UncheckedIOException if the connection is lost, or READY does not come within the timeout.
     */
    public boolean deduplicates() {
        awaitReady();
        return deduplicates;
    }

    /**
     * Waits, at most the timeout, for the gateway's READY if it has not arrived.
     *
     * @return the term of the gateway's queue when this client connected: it grows with each promotion.
     * @throws UncheckedIOException if the connection is lost, or READY does not come within the timeout.
     */
    public long gatewayTerm() {
        awaitReady();
        return gatewayTerm;
    }

    private void awaitReady() {
        final long deadline = clock.nanoTime() + timeoutNs;
        try {
            while (!readyReceived) {
                checkConnected();
                receive();
                if (readyReceived) {
                    break;
                }
                final long now = clock.nanoTime();
                watch.check(connection, gateway, now);
                final long left = deadline - now;
                if (left <= 0) {
                    throw new IOException("no READY from the publish gateway at " + gateway + " within "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
                }
                selector.select(Connection.IGNORE_KEY, GatewayWatch.sleepMs(left));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("lost the publish gateway at " + gateway, e);
        }
    }

    /**
     * Sends one message, and keeps a copy until its commit arrives; blocks only while there is no room for it (in
     * the socket's buffer, in the window of {@value #WINDOW} publishes awaiting their commits, in the copy kept to
     * send them again), at most the client's timeout. Reconnects first if the connection was lost.
     *
     * @param payload holds the message.
     * @param offset  where it starts.
     * @param length  its length, at least 1 and at most the client's maximum message length.
     * @param stage   the stage at which the gateway is to commit it.
     * @return the message's sequence, 1 for the instance's first, for {@link #awaitCommit}.
     * @throws PublishException if the call failed; its {@link PublishException#sequence()} is 0 if the message got
     *                          no sequence and was never sent (the length is out of range, the client is closed
     *                          or was refused by the gateway earlier, no room came within the timeout, or a client
     *                          with a fixed address lost its connection earlier): publishing it again is safe.
     *                          Otherwise the message got that sequence and is in doubt: the connection was lost (and,
     *                          with a locator, no gateway could be reached again within the timeout: the message is
     *                          kept, and sent with the others by the first later call that reconnects), the socket
     *                          took nothing within the timeout, or the gateway refused the client meanwhile (its
     *                          {@link PublishException#errorCode()}: fenced by a later instance of the id, a
     *                          re-send in doubt or not matching its original).
     */
    public long publish(final byte[] payload, final int offset, final int length, final CommitStage stage) {
        if (closed || writer.refusal() != null) {
            throw failed(0, closed ? new SpoolException("the client of the publish gateway at " + gateway
                    + " is closed") : writer.refusal());
        }
        if (length < 1 || length > maxMessageLength || length > resend.length) {
            throw failed(0, new SpoolException("message length=" + length + " outside [1, "
                    + Math.min(maxMessageLength, resend.length) + "]"));
        }
        Objects.checkFromIndexSize(offset, length, payload.length);
        if (!reconnects && !connection.isAttached()) {
            throw failed(0, new SpoolException("the connection to the publish gateway at " + gateway + " was lost"
                    + " earlier, and a client built with its address does not reconnect"));
        }
        final long sequence = nextSequence;
        final long at;
        try {
            at = reserve(sequence, length);
        } catch (IOException | SpoolException e) {
            throw failed(0, e);
        }
        System.arraycopy(payload, offset, resend, (int) (at % resend.length), length);
        final int slot = (int) (sequence & MASK);
        resendPositions[slot] = at;
        resendLengths[slot] = length;
        resendStages[slot] = stage.ordinal();
        resendPosition = at + length;
        nextSequence = sequence + 1;
        try {
            if (!connection.isAttached()) {
                // the copy is sent with the others after the connection is back
                lost(null);
                return sequence;
            }
            try {
                final long now = clock.nanoTime();
                if (watch.due(connection, now)) {
                    // a look before the send: a gateway long silent, or the locator's change, is left first
                    receive();
                    watch.check(connection, gateway, now);
                }
                send(sequence, stage.ordinal(), payload, offset, length);
                flushWithin(sequence);
            } catch (StalledException e) {
                throw e;
            } catch (IOException e) {
                lost(e);
            }
        } catch (IOException | SpoolException e) {
            throw failed(sequence, e);
        }
        return sequence;
    }

    private PublishException failed(final long sequence, final Exception cause) {
        return writer.failed(sequence, reconnects, cause);
    }

    /**
     * @return where the copy of {@code sequence}, {@code length} bytes, goes in the ring, once there is room for it
     * and the window has a slot; reads commits (and reconnects) while it waits, at most the timeout.
     */
    private long reserve(final long sequence, final int length) throws IOException {
        final long deadline = clock.nanoTime() + timeoutNs;
        while (true) {
            final int capacity = resend.length;
            final int from = (int) (resendPosition % capacity);
            // a copy is never split: one that would cross the ring's end starts at its beginning
            final long at = from + length > capacity ? resendPosition + capacity - from : resendPosition;
            final long oldest = oldestUncommitted < nextSequence
                    ? resendPositions[(int) (oldestUncommitted & MASK)] : at;
            if (sequence - oldestUncommitted < WINDOW && at + length - oldest <= capacity) {
                return at;
            }
            if (clock.nanoTime() - deadline > 0) {
                throw new StalledException("no commit of sequence " + oldestUncommitted + " from the publish gateway"
                        + " at " + gateway + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms: "
                        + (nextSequence - oldestUncommitted) + " publishes of " + WINDOW + " and "
                        + (resendPosition - oldest) + " bytes of " + capacity + " await their commits");
            }
            try {
                checkConnected();
                if (!receive()) {
                    watch.check(connection, gateway, clock.nanoTime());
                    selector.select(Connection.IGNORE_KEY, 1);
                }
            } catch (StalledException | FrameException | AuthenticationException e) {
                throw e;
            } catch (IOException e) {
                lost(e);
            }
        }
    }

    /** Builds a PUBLISH in the send buffer, first flushing what is pending if it does not fit. */
    private void send(final long sequence, final int stage, final byte[] payload, final int offset, final int length)
            throws IOException {
        if (!writer.granted()) {
            awaitGrant();
        }
        final int frameLength = PublishFlyweight.frameLength(length);
        if (frameLength > connection.sendRoom()) {
            flushWithin(sequence);
        }
        final int at = connection.beginFrame(TYPE_PUBLISH);
        publish.wrap(connection.send(), at).clientId(clientId).sequence(sequence).stage(stage)
                .payload(payload, offset, length);
        connection.endFrame(at, frameLength);
    }

    /**
     * Writes what is pending, waiting at most the timeout while the socket's buffer is full (a gateway that reads
     * nothing), and reading what the gateway sends meanwhile: an ERROR says why.
     *
     * @param sequence the message's, for the error; -1 for the handshake's PROOF.
     * @throws StalledException if the gateway took nothing within the timeout: reconnecting would not help.
     */
    private void flushWithin(final long sequence) throws IOException {
        if (connection.flush()) {
            return;
        }
        final long deadline = clock.nanoTime() + timeoutNs;
        while (!connection.flush()) {
            receive();
            final long now = clock.nanoTime();
            // a full socket buffer of a gateway that is silent too is a frozen gateway: left, not waited out
            watch.checkAlive(connection, gateway, now);
            if (now - deadline > 0) {
                throw new StalledException("the publish gateway at " + gateway + " took nothing of "
                        + (sequence < 0 ? "the PROOF" : "message " + sequence) + " for "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms: its socket buffer stayed full");
            }
            Thread.onSpinWait();
        }
    }

    /** Waits, at most the timeout, for the connection's GRANT: the epoch its publishes belong to. */
    private void awaitGrant() throws IOException {
        final long deadline = clock.nanoTime() + timeoutNs;
        while (true) {
            connection.flush();
            receive();
            if (writer.granted()) {
                return;
            }
            final long now = clock.nanoTime();
            // a gateway that froze between READY and GRANT is left within the liveness timeout, not the call's
            watch.checkAlive(connection, gateway, now);
            final long left = deadline - now;
            if (left <= 0) {
                throw new IOException("no GRANT from the publish gateway at " + gateway + " within "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
            }
            selector.select(Connection.IGNORE_KEY, GatewayWatch.sleepMs(left));
        }
    }

    /**
     * @param sequence what {@link #publish} returned.
     * @param timeout  how long to wait at most.
     * @param unit     the unit of {@code timeout}.
     * @return the message's index in the gateway's queue, or -1 if the commit did not come in time.
     * @throws UncheckedIOException if the connection is lost (and, with a locator, no gateway could be reached again
     *                              within the client's timeout): the message is in doubt.
     * @throws PublishException     if the gateway refused this client (its epoch fenced, a re-send in doubt or not
     *                              matching its original) or the client is closed: the message, of
     *                              {@link PublishException#sequence()} {@code sequence}, is in doubt.
     */
    public long awaitCommit(final long sequence, final long timeout, final TimeUnit unit) {
        try {
            return commitOf(sequence, timeout, unit);
        } catch (SpoolException e) {
            throw failed(sequence, e);
        }
    }

    private long commitOf(final long sequence, final long timeout, final TimeUnit unit) {
        final int slot = (int) (sequence & COMMIT_MASK);
        final long deadline = clock.nanoTime() + unit.toNanos(timeout);
        try {
            while (true) {
                if (commitSequences[slot] == sequence) {
                    return commitIndices[slot];
                }
                try {
                    checkConnected();
                    if (receive()) {
                        continue;
                    }
                    watch.check(connection, gateway, clock.nanoTime());
                } catch (StalledException | FrameException | AuthenticationException e) {
                    throw e;
                } catch (IOException e) {
                    lost(e);
                    continue;
                }
                final long left = deadline - clock.nanoTime();
                if (left <= 0) {
                    return -1;
                }
                // the consumer form: the selected-key set would allocate; the channel is read on the next pass
                selector.select(Connection.IGNORE_KEY, GatewayWatch.sleepMs(left));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("lost the publish gateway at " + gateway, e);
        }
    }

    /** A connection lost by an earlier call that could not reconnect is tried again now. */
    private void checkConnected() throws IOException {
        if (closed) {
            throw new SpoolException("the client of the publish gateway at " + gateway + " is closed");
        }
        if (writer.refusal() != null) {
            throw writer.refusal();
        }
        if (!connection.isAttached()) {
            lost(null);
        }
    }

    /**
     * A lost connection: a client with a locator reconnects and sends again what is not committed; one with a fixed
     * address fails the call, as its gateway does not move.
     *
     * @param cause why it was lost, or null if an earlier call lost it.
     */
    private void lost(final IOException cause) throws IOException {
        if (!reconnects) {
            connection.detach();
            throw cause != null ? cause : new IOException("the connection to the publish gateway at " + gateway
                    + " was lost earlier");
        }
        reconnect(cause);
    }

    /** @return true if a commit or an error arrived. */
    private boolean receive() throws IOException {
        connection.receive();
        boolean any = false;
        while (connection.nextFrame()) {
            final int type = connection.frameType();
            if (type == TYPE_COMMIT) {
                commit.wrap(connection.received(), connection.frameOffset()).check(connection.peer());
                committed(commit.sequence(), commit.index());
                any = true;
            } else if (type == TYPE_HEARTBEAT) {
                // the gateway is alive: its arrival is all that counts
                connection.consumeFrame();
                continue;
            } else if (type == TYPE_READY) {
                ready.wrap(connection.received(), connection.frameOffset()).check(connection.peer());
                deduplicates = (ready.flags() & READY_FLAG_DEDUPLICATES) != 0;
                gatewayTerm = ready.term();
                readyReceived = true;
            } else if (type == TYPE_GRANT) {
                writer.onGrant(connection);
            } else if (type == TYPE_ERROR) {
                error.wrap(connection.received(), connection.frameOffset());
                final PublishException refused = writer.onError(error.code(), "the publish gateway at " + gateway
                        + " reports error " + error.code() + ": " + error.message(connection.frameLength()));
                connection.detach();
                throw refused;
            } else {
                throw new FrameException(typeName(type) + " frame from the gateway at " + gateway);
            }
            connection.consumeFrame();
        }
        return any;
    }

    /** Records a commit, and frees the copies of the oldest publishes once all of them are committed. */
    private void committed(final long sequence, final long index) throws FrameException {
        if (sequence < 1 || sequence >= nextSequence) {
            throw new FrameException("COMMIT frame from the gateway at " + gateway + " for sequence " + sequence
                    + ", which this client has not sent (its next is " + nextSequence + ")");
        }
        final int slot = (int) (sequence & COMMIT_MASK);
        // a late answer for a sequence long committed must not hide the commit of a later one in its slot
        if (sequence > commitSequences[slot]) {
            commitSequences[slot] = sequence;
            commitIndices[slot] = index;
        }
        while (oldestUncommitted < nextSequence && commitSequences[(int) (oldestUncommitted & COMMIT_MASK)]
                == oldestUncommitted) {
            oldestUncommitted++;
        }
    }

    /**
     * Reconnects, to the gateway the locator names at each attempt, with a back-off between attempts, within the
     * timeout; then sends again every publish whose commit has not arrived, in order.
     *
     * @param cause why the connection was lost, or null if it was lost before.
     * @throws IOException naming the last gateway tried, if none could be reached in time.
     */
    private void reconnect(final IOException cause) throws IOException {
        final long deadline = clock.nanoTime() + timeoutNs;
        long backoffNs = TimeUnit.MILLISECONDS.toNanos(MIN_BACKOFF_MS);
        IOException last = cause;
        while (true) {
            connection.detach();
            readyReceived = false;
            writer.disconnected();
            try {
                watch.asking();
                final InetSocketAddress address = locator.gateway();
                gateway = Objects.requireNonNull(address, "the locator's gateway");
                connectTo(address, deadline);
                resendUncommitted();
                return;
            } catch (StalledException | FrameException | AuthenticationException e) {
                throw e;
            } catch (IOException e) {
                if (last != null && last != e) {
                    e.addSuppressed(last);
                }
                last = e;
            }
            if (clock.nanoTime() + backoffNs - deadline > 0) {
                throw new IOException((gateway == null ? "reached no publish gateway"
                        : "lost the publish gateway at " + gateway + " and reached none") + " within "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms", last);
            }
            LockSupport.parkNanos(backoffNs);
            backoffNs = Math.min(2 * backoffNs, TimeUnit.MILLISECONDS.toNanos(MAX_BACKOFF_MS));
        }
    }

    /** Sends again, in order, every publish whose commit has not arrived. */
    private void resendUncommitted() throws IOException {
        for (long sequence = oldestUncommitted; sequence < nextSequence; sequence++) {
            if (commitSequences[(int) (sequence & COMMIT_MASK)] == sequence) {
                continue;
            }
            final int slot = (int) (sequence & MASK);
            send(sequence, resendStages[slot], resend, (int) (resendPositions[slot] % resend.length),
                    resendLengths[slot]);
        }
        flushWithin(oldestUncommitted);
    }

    /** One attempt: connects to {@code address} and, with a secret, authenticates, by {@code deadline}. */
    private void connectTo(final InetSocketAddress address, final long deadline) throws IOException {
        final SocketChannel channel = SocketChannel.open();
        try {
            final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - clock.nanoTime());
            channel.socket().connect(address, (int) Math.min(Integer.MAX_VALUE, Math.max(1, leftMs)));
            connection.attach(channel);
            channel.register(selector, SelectionKey.OP_READ);
            if (secret != null) {
                authenticate(secret, address, deadline);
            }
            writer.identify(connection, oldestUncommitted - 1, nextSequence - 1);
            connection.flush();
        } catch (IOException | RuntimeException e) {
            connection.detach();
            channel.close();
            throw e;
        }
    }

    /** The client's side of the handshake, blocking in the selector: CLIENT_HELLO, CHALLENGE, PROOF. */
    private void authenticate(final byte[] secret, final InetSocketAddress address, final long deadline)
            throws IOException {
        final byte[] hello = ClientHandshake.sendHello(connection, Handshake.nonce());
        while (!connection.flush() || !challengeArrived()) {
            final long now = clock.nanoTime();
            final long left = deadline - now;
            if (left <= 0) {
                throw new IOException("no CHALLENGE from the publish gateway at " + address + " within "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
            }
            // a gateway that accepted (its kernel did) but answers nothing is frozen: the next one is tried
            watch.checkAlive(connection, address, now);
            selector.select(Connection.IGNORE_KEY, GatewayWatch.sleepMs(left));
        }
        if (connection.frameType() == TYPE_ERROR) {
            error.wrap(connection.received(), connection.frameOffset());
            throw new IOException("the publish gateway at " + address + " refused the connection with error "
                    + error.code() + "; " + PeerText.said(address, error.message(connection.frameLength())));
        }
        ClientHandshake.prove(connection, secret, hello);
        connection.consumeFrame();
        flushWithin(-1);
    }

    private boolean challengeArrived() throws IOException {
        connection.receive();
        return connection.nextFrame();
    }

    /** Closes the connection; the copies of the publishes not yet committed are dropped. */
    @Override
    public void close() {
        closed = true;
        try {
            connection.close();
        } finally {
            try {
                selector.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close the selector of the client of " + gateway, e);
            }
        }
    }

    /** No room came within the timeout from a gateway still connected: a reconnection would not help. */
    private static final class StalledException extends IOException {
        private static final long serialVersionUID = 1L;

        StalledException(final String message) {
            super(message);
        }
    }

    /** Settings of a {@link PublishClient}: the secret (or {@link #insecure()}), the id, the timeout, the clocks. */
    public static final class Builder {
        private final InetSocketAddress gateway;
        private final GatewayLocator locator;
        private final int maxMessageLength;
        private byte[] secret;
        private boolean insecure;
        private long clientId;
        private int resendCapacity;
        private Duration timeout = Duration.ofMillis(DEFAULT_TIMEOUT_MS);
        private Duration heartbeatInterval = Duration.ofMillis(DEFAULT_HEARTBEAT_INTERVAL_MS);
        private Duration livenessTimeout = Duration.ofMillis(DEFAULT_LIVENESS_TIMEOUT_MS);
        /** Null: the system's. */
        private EpochClock epochClock;
        /** Null: the system's. */
        private NanoClock nanoClock;

        private Builder(final InetSocketAddress gateway, final GatewayLocator locator, final int maxMessageLength) {
            this.gateway = gateway;
            this.locator = locator;
            this.maxMessageLength = maxMessageLength;
        }

        /**
         * @param secret the gateway's shared secret ({@link PublishGateway.Builder#sharedSecret}): the client and
         *               the gateway prove to each other that they know it, and every later frame carries a MAC of
         *               the session. Required, unless {@link #insecure()}.
         * @return this builder.
         */
        public Builder sharedSecret(final byte[] secret) {
            this.secret = Handshake.checkedSecret(secret);
            return this;
        }

        /**
         * Connects without authentication, to a gateway built {@link PublishGateway.Builder#insecure() insecure()}.
         *
         * @return this builder.
         */
        public Builder insecure() {
            this.insecure = true;
            return this;
        }

        /**
         * @param clientId the id every PUBLISH of the client carries, with which a gateway recognises a publish sent
         *                 again; not 0. Each instance under the id (e.g. a restarted process with a fixed id) is
         *                 granted a later writer epoch and numbers its publishes from 1; it fences the earlier
         *                 instances, whose later calls fail with a {@link PublishException}, and its own messages
         *                 are all written. Default: a random one.
         * @return this builder.
         */
        public Builder clientId(final long clientId) {
            if (clientId == 0) {
                throw new SpoolException("clientId=0 of a client of the publish gateway means none: choose another");
            }
            this.clientId = clientId;
            return this;
        }

        /**
         * @param resendCapacity the bytes of the copy the client keeps of the publishes whose commits have not
         *                       arrived, to send them again after a reconnection; at least the longest message. A
         *                       publish waits, at most the timeout, for commits to free room in it. Default
         *                       {@value #DEFAULT_RESEND_CAPACITY}, or the longest message if longer.
         * @return this builder.
         */
        public Builder resendCapacity(final int resendCapacity) {
            this.resendCapacity = resendCapacity;
            return this;
        }

        /**
         * @param timeout how long the connection, the handshake, each {@link #publish} that waits for room, and a
         *                reconnection, wait for the gateway; positive. Default {@value #DEFAULT_TIMEOUT_MS} ms.
         * @return this builder.
         */
        public Builder timeout(final Duration timeout) {
            if (Objects.requireNonNull(timeout, "timeout").isNegative() || timeout.isZero()) {
                throw new SpoolException("timeout=" + timeout + " of a client of the publish gateway at " + where()
                        + " must be positive");
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * @param interval how long the client, while in a call, sends nothing before it sends a HEARTBEAT, so the
         *                 gateway knows it alive while it waits for a commit; shorter than the liveness timeout.
         *                 Default {@value #DEFAULT_HEARTBEAT_INTERVAL_MS} ms.
         * @return this builder.
         */
        public Builder heartbeatInterval(final Duration interval) {
            this.heartbeatInterval = positive(interval, "heartbeatInterval");
            return this;
        }

        /**
         * @param timeout how long the gateway may send nothing (no commit, no heartbeat, no handshake frame) before
         *                the client declares it dead, as a frozen or cut-off gateway keeps its socket open: a client
         *                with a locator then asks it for the gateway again and sends there what was not committed; one
         *                with a fixed address fails the call, naming the gateway and its silence. Longer than the
         *                gateway's heartbeat interval, by a few. Default {@value #DEFAULT_LIVENESS_TIMEOUT_MS} ms.
         * @return this builder.
         */
        public Builder livenessTimeout(final Duration timeout) {
            this.livenessTimeout = positive(timeout, "livenessTimeout");
            return this;
        }

        private Duration positive(final Duration duration, final String name) {
            if (Objects.requireNonNull(duration, name).isNegative() || duration.isZero()) {
                throw new SpoolException(name + "=" + duration + " of a client of the publish gateway at " + where()
                        + " must be positive");
            }
            return duration;
        }

        /**
         * @param clock the client's wall clock, in milliseconds since the epoch; default the system's.
         * @return this builder.
         */
        public Builder epochClock(final EpochClock clock) {
            this.epochClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param clock the clock of the client's deadlines (connection, handshake, publish, commit, reconnection);
         *              default the system's.
         * @return this builder.
         */
        public Builder nanoClock(final NanoClock clock) {
            this.nanoClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        private String where() {
            return gateway != null ? String.valueOf(gateway) : "the locator's address";
        }

        /**
         * @return a connected client, authenticated unless {@link #insecure()}.
         * @throws SpoolException       unless exactly one of {@link #sharedSecret} and {@link #insecure()} was
         *                              given, or if the maximum message length or the resend capacity is out of
         *                              range.
         * @throws UncheckedIOException if the gateway cannot be reached, does not answer within the timeout, or does
         *                              not prove the secret.
         */
        public PublishClient connect() {
            if ((secret == null) == !insecure) {
                throw new SpoolException("a client of the publish gateway at " + where() + " needs either a"
                        + " sharedSecret or insecure(), and not both");
            }
            if (maxMessageLength < 1) {
                throw new SpoolException("maxMessageLength=" + maxMessageLength + " of a client of the publish"
                        + " gateway at " + where() + " must be at least 1");
            }
            final int capacity = resendCapacity != 0 ? resendCapacity
                    : Math.max(DEFAULT_RESEND_CAPACITY, maxMessageLength);
            if (capacity < maxMessageLength) {
                throw new SpoolException("resendCapacity=" + capacity + " of a client of the publish gateway at "
                        + where() + " cannot hold a message of maxMessageLength=" + maxMessageLength);
            }
            if (heartbeatInterval.compareTo(livenessTimeout) >= 0) {
                throw new SpoolException("heartbeatInterval=" + heartbeatInterval + " of a client of the publish"
                        + " gateway at " + where() + " must be shorter than its livenessTimeout=" + livenessTimeout);
            }
            long id = clientId;
            while (id == 0) {
                id = ThreadLocalRandom.current().nextLong();
            }
            final InetSocketAddress fixed = gateway;
            final ClientConfig config = new ClientConfig(gateway, locator != null ? locator : () -> fixed,
                    maxMessageLength, secret, timeout, heartbeatInterval, livenessTimeout, id, capacity,
                    epochClock != null ? epochClock : SystemEpochClock.INSTANCE,
                    nanoClock != null ? nanoClock : SystemNanoClock.INSTANCE);
            try {
                return new PublishClient(config);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot connect to the publish gateway at " + where(), e);
            }
        }
    }
}
