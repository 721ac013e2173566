package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.replication.protocol.ClientHandshake;
import dev.spool.replication.protocol.CommitFlyweight;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.PublishFlyweight;
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
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.protocol.FrameDescriptor.TYPE_COMMIT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_PUBLISH;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;

/**
 * Publishes messages to a {@link PublishGateway} and waits for their commits. {@link #publish} returns once the
 * message is handed to the socket ({@link CommitStage#PUBLISHED}); {@link #awaitCommit} waits, in
 * {@link Selector#select(long)}, for the gateway's answer at the stage the message asked for. Commits may arrive in
 * any order; up to {@value #WINDOW} publishes may await their commit at once. Nothing waits without a deadline: the
 * connection, the handshake and each publish's wait for room in the socket take at most the client's timeout
 * (default {@value #DEFAULT_TIMEOUT_MS} ms), then fail naming the gateway. One instance belongs to one thread.
 */
public final class PublishClient implements AutoCloseable {
    /** Most publishes whose commits can be outstanding at once. */
    public static final int WINDOW = 4096;
    /**
     * How long, by default, the connection, the handshake, and a {@link #publish} whose socket buffer is full, wait
     * for the gateway.
     */
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    private final Connection connection;
    private final long timeoutNs;
    /** The client's clock: every deadline follows it. */
    private final NanoClock clock;
    private final Selector selector;
    private final InetSocketAddress gateway;
    private final long[] commitCorrelations = new long[WINDOW];
    private final long[] commitIndices = new long[WINDOW];
    private final PublishFlyweight publish = new PublishFlyweight();
    private final CommitFlyweight commit = new CommitFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private long nextCorrelation;

    private PublishClient(final ClientConfig config) throws IOException {
        this.gateway = config.gateway();
        final Duration timeout = config.timeout();
        final byte[] secret = config.secret();
        this.timeoutNs = timeout.toNanos();
        this.clock = config.nanoClock();
        Arrays.fill(commitCorrelations, -1);
        this.connection = new Connection(clock, 64 * 1024, PublishFlyweight.frameLength(config.maxMessageLength())
                + FrameMac.TAG_LENGTH);
        this.selector = Selector.open();
        final SocketChannel channel = SocketChannel.open();
        try {
            channel.socket().connect(gateway, (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis())));
            connection.attach(channel);
            channel.register(selector, SelectionKey.OP_READ);
            if (secret != null) {
                authenticate(secret);
            }
        } catch (IOException | RuntimeException e) {
            channel.close();
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
     * @param timeout          how long the connection, the handshake, and each {@link #publish} whose socket buffer
     *                         is full, wait for the gateway; positive.
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
     * @param timeout          how long the connection, and each {@link #publish} whose socket buffer is full, wait
     *                         for the gateway; positive.
     * @return a connected client.
     * @throws UncheckedIOException if the gateway cannot be reached within {@code timeout}.
     */
    public static PublishClient connectInsecure(final InetSocketAddress gateway, final int maxMessageLength,
                                                final Duration timeout) {
        return builder(gateway, maxMessageLength).insecure().timeout(timeout).connect();
    }

    /**
     * @param gateway          the gateway's address.
     * @param maxMessageLength the longest message the client will publish.
     * @return a builder of a client, for the settings the {@code connect} methods do not take (its clocks).
     */
    public static Builder builder(final InetSocketAddress gateway, final int maxMessageLength) {
        return new Builder(gateway, maxMessageLength);
    }

    /** The client's side of the handshake, blocking in the selector: CLIENT_HELLO, CHALLENGE, PROOF. */
    private void authenticate(final byte[] secret) throws IOException {
        final byte[] hello = ClientHandshake.sendHello(connection, Handshake.nonce());
        final long deadline = clock.nanoTime() + timeoutNs;
        while (!connection.flush() || !challengeArrived()) {
            final long left = deadline - clock.nanoTime();
            if (left <= 0) {
                throw new IOException("no CHALLENGE from the publish gateway at " + gateway + " within "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
            }
            selector.select(Connection.IGNORE_KEY, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        if (connection.frameType() == TYPE_ERROR) {
            error.wrap(connection.received(), connection.frameOffset());
            throw new IOException("the publish gateway at " + gateway + " refused the connection with error "
                    + error.code() + ": " + error.message(connection.frameLength()));
        }
        ClientHandshake.prove(connection, secret, hello);
        connection.consumeFrame();
        flushWithin(-1);
    }

    /**
     * Writes what is pending, waiting at most the timeout while the socket's buffer is full (a gateway that reads
     * nothing), and reading what the gateway sends meanwhile: an ERROR says why.
     *
     * @param correlation the message's, for the error; -1 for the handshake's PROOF.
     */
    private void flushWithin(final long correlation) throws IOException {
        if (connection.flush()) {
            return;
        }
        final long deadline = clock.nanoTime() + timeoutNs;
        while (!connection.flush()) {
            receive();
            if (clock.nanoTime() - deadline > 0) {
                throw new IOException("the publish gateway at " + gateway + " took nothing of "
                        + (correlation < 0 ? "the PROOF" : "message " + correlation) + " for "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms: its socket buffer stayed full");
            }
            Thread.onSpinWait();
        }
    }

    private boolean challengeArrived() throws IOException {
        connection.receive();
        return connection.nextFrame();
    }

    /**
     * Sends one message; blocks only while the socket's buffer is full, at most the client's timeout.
     *
     * @param payload holds the message.
     * @param offset  where it starts.
     * @param length  its length, at least 1 and at most the client's maximum message length.
     * @param stage   the stage at which the gateway is to commit it.
     * @return the message's correlation id, for {@link #awaitCommit}.
     * @throws UncheckedIOException if the connection is lost, or the gateway took nothing within the timeout.
     */
    public long publish(final byte[] payload, final int offset, final int length, final CommitStage stage) {
        final int capacity = connection.send().capacity() - connection.tagLength();
        if (length < 1 || PublishFlyweight.frameLength(length) > connection.sendRoom()) {
            throw new SpoolException("message length=" + length + " outside [1, "
                    + (capacity - PublishFlyweight.frameLength(0)) + "]");
        }
        final long correlation = nextCorrelation++;
        final int at = connection.beginFrame(TYPE_PUBLISH);
        publish.wrap(connection.send(), at).correlation(correlation).stage(stage.ordinal()).payload(payload, offset, length);
        connection.endFrame(at, PublishFlyweight.frameLength(length));
        try {
            flushWithin(correlation);
        } catch (IOException e) {
            throw new UncheckedIOException("lost the publish gateway at " + gateway, e);
        }
        return correlation;
    }

    /**
     * @param correlation what {@link #publish} returned.
     * @param timeout     how long to wait at most.
     * @param unit        the unit of {@code timeout}.
     * @return the message's index in the gateway's queue, or -1 if the commit did not come in time.
     * @throws UncheckedIOException if the connection is lost.
     */
    public long awaitCommit(final long correlation, final long timeout, final TimeUnit unit) {
        final int slot = (int) (correlation & (WINDOW - 1));
        final long deadline = clock.nanoTime() + unit.toNanos(timeout);
        try {
            while (true) {
                if (commitCorrelations[slot] == correlation) {
                    return commitIndices[slot];
                }
                if (receive()) {
                    continue;
                }
                final long left = deadline - clock.nanoTime();
                if (left <= 0) {
                    return -1;
                }
                // the consumer form: the selected-key set would allocate; the channel is read on the next pass
                selector.select(Connection.IGNORE_KEY, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("lost the publish gateway at " + gateway, e);
        }
    }

    /** @return true if a commit or an error arrived. */
    private boolean receive() throws IOException {
        connection.receive();
        boolean any = false;
        while (connection.nextFrame()) {
            if (connection.frameType() == TYPE_COMMIT) {
                commit.wrap(connection.received(), connection.frameOffset()).check(connection.peer());
                final long correlation = commit.correlation();
                final int slot = (int) (correlation & (WINDOW - 1));
                commitCorrelations[slot] = correlation;
                commitIndices[slot] = commit.index();
                any = true;
            } else if (connection.frameType() == TYPE_ERROR) {
                error.wrap(connection.received(), connection.frameOffset());
                throw new SpoolException("the publish gateway at " + gateway + " reports error " + error.code()
                        + ": " + error.message(connection.frameLength()));
            } else {
                throw new FrameException(typeName(connection.frameType()) + " frame from the gateway at " + gateway);
            }
            connection.consumeFrame();
        }
        return any;
    }

    /** Closes the connection. */
    @Override
    public void close() {
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

    /** Settings of a {@link PublishClient}: the secret (or {@link #insecure()}), the timeout, the clocks. */
    public static final class Builder {
        private final InetSocketAddress gateway;
        private final int maxMessageLength;
        private byte[] secret;
        private boolean insecure;
        private Duration timeout = Duration.ofMillis(DEFAULT_TIMEOUT_MS);
        /** Null: the system's. */
        private EpochClock epochClock;
        /** Null: the system's. */
        private NanoClock nanoClock;

        private Builder(final InetSocketAddress gateway, final int maxMessageLength) {
            this.gateway = Objects.requireNonNull(gateway, "gateway");
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
         * @param timeout how long the connection, the handshake, and each {@link #publish} whose socket buffer is
         *                full, wait for the gateway; positive. Default {@value #DEFAULT_TIMEOUT_MS} ms.
         * @return this builder.
         */
        public Builder timeout(final Duration timeout) {
            if (Objects.requireNonNull(timeout, "timeout").isNegative() || timeout.isZero()) {
                throw new SpoolException("timeout=" + timeout + " of a client of the publish gateway at " + gateway
                        + " must be positive");
            }
            this.timeout = timeout;
            return this;
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
         * @param clock the clock of the client's deadlines (connection, handshake, publish, commit); default the
         *              system's.
         * @return this builder.
         */
        public Builder nanoClock(final NanoClock clock) {
            this.nanoClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @return a connected client, authenticated unless {@link #insecure()}.
         * @throws SpoolException       unless exactly one of {@link #sharedSecret} and {@link #insecure()} was given.
         * @throws UncheckedIOException if the gateway cannot be reached, does not answer within the timeout, or does
         *                              not prove the secret.
         */
        public PublishClient connect() {
            if ((secret == null) == !insecure) {
                throw new SpoolException("a client of the publish gateway at " + gateway + " needs either a"
                        + " sharedSecret or insecure(), and not both");
            }
            final ClientConfig config = new ClientConfig(gateway, maxMessageLength, secret, timeout,
                    epochClock != null ? epochClock : SystemEpochClock.INSTANCE,
                    nanoClock != null ? nanoClock : SystemNanoClock.INSTANCE);
            try {
                return new PublishClient(config);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot connect to the publish gateway at " + gateway, e);
            }
        }
    }
}
