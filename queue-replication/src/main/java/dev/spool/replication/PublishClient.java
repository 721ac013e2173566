package dev.spool.replication;

import dev.spool.queue.SpoolException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.FrameDescriptor.TYPE_COMMIT;
import static dev.spool.replication.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.FrameDescriptor.TYPE_PUBLISH;
import static dev.spool.replication.FrameDescriptor.typeName;

/**
 * Publishes messages to a {@link PublishGateway} and waits for their commits. {@link #publish} returns once the
 * message is handed to the socket ({@link CommitStage#PUBLISHED}); {@link #awaitCommit} waits, in
 * {@link Selector#select(long)}, for the gateway's answer at the stage the message asked for. Commits may arrive in
 * any order; up to {@value #WINDOW} publishes may await their commit at once. One instance belongs to one thread.
 */
public final class PublishClient implements AutoCloseable {
    /** Most publishes whose commits can be outstanding at once. */
    public static final int WINDOW = 4096;
    private final Connection connection;
    private final Selector selector;
    private final InetSocketAddress gateway;
    private final long[] commitCorrelations = new long[WINDOW];
    private final long[] commitIndices = new long[WINDOW];
    private final PublishFlyweight publish = new PublishFlyweight();
    private final CommitFlyweight commit = new CommitFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private long nextCorrelation;

    private PublishClient(final InetSocketAddress gateway, final int maxMessageLength) throws IOException {
        this.gateway = gateway;
        Arrays.fill(commitCorrelations, -1);
        this.connection = new Connection(64 * 1024, PublishFlyweight.frameLength(maxMessageLength));
        this.selector = Selector.open();
        final SocketChannel channel = SocketChannel.open(gateway);
        try {
            connection.attach(channel);
            channel.register(selector, SelectionKey.OP_READ);
        } catch (IOException | RuntimeException e) {
            channel.close();
            connection.close();
            selector.close();
            throw e;
        }
    }

    /**
     * @param gateway          the gateway's address.
     * @param maxMessageLength the longest message this client will publish.
     * @return a connected client.
     * @throws UncheckedIOException if the gateway cannot be reached.
     */
    public static PublishClient connect(final InetSocketAddress gateway, final int maxMessageLength) {
        try {
            return new PublishClient(gateway, maxMessageLength);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to the publish gateway at " + gateway, e);
        }
    }

    /**
     * Sends one message; blocks only while the socket's buffer is full.
     *
     * @param payload holds the message.
     * @param offset  where it starts.
     * @param length  its length, at least 1 and at most the client's maximum message length.
     * @param stage   the stage at which the gateway is to commit it.
     * @return the message's correlation id, for {@link #awaitCommit}.
     * @throws UncheckedIOException if the connection is lost.
     */
    public long publish(final byte[] payload, final int offset, final int length, final CommitStage stage) {
        final int capacity = connection.send().capacity();
        if (length < 1 || PublishFlyweight.frameLength(length) > capacity - connection.sendEnd()) {
            throw new IllegalArgumentException("message length=" + length + " outside [1, "
                    + (capacity - PublishFlyweight.frameLength(0)) + "]");
        }
        final long correlation = nextCorrelation++;
        final int at = connection.beginFrame(TYPE_PUBLISH);
        publish.wrap(connection.send(), at).correlation(correlation).stage(stage).payload(payload, offset, length);
        connection.endFrame(at, PublishFlyweight.frameLength(length));
        try {
            while (!connection.flush()) {
                receive();
                Thread.onSpinWait();
            }
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
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        try {
            while (true) {
                if (commitCorrelations[slot] == correlation) {
                    return commitIndices[slot];
                }
                if (receive()) {
                    continue;
                }
                final long left = deadline - System.nanoTime();
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
}
