package dev.spool.replication.source;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.replication.agent.RepeatedLog;
import dev.spool.replication.protocol.AuthenticationException;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The duty cycle of a {@link dev.spool.replication.ReplicationSource} towards one of its sinks, as a state machine
 * that never blocks (the
 * source's {@link SourceLinks} runs one per sink, each with its own connection, tailer, cursor, acknowledgements and
 * back-off, so that one sink slow or away holds back no other): back off until the
 * reconnect deadline, connect (a non-blocking connect completed by {@link SocketChannel#finishConnect()}), hand
 * shake ({@link SourceHandshake}, a step per pass), stream ({@link SourceStream}). A failed connection goes back to
 * backing off, each time twice as long up to the maximum; an error that stops replication to this sink for good
 * stops it with {@link #failure()} set. One thread at a time; allocates nothing while streaming.
 */
final class SourceAgent implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(SourceConfig.LOGGER);
    private static final int RECEIVE_CAPACITY = 4096;
    private static final int BACKOFF = 0;
    private static final int CONNECTING = 1;
    private static final int HANDSHAKE = 2;
    private static final int STREAMING = 3;
    /** Stopped for good: by a failure or by {@link #onClose()}. */
    private static final int STOPPED = 4;
    /**
     * Failed authentications in a row after which {@link #failure()} reports the last: the secrets differ, which
     * retrying does not mend, though the source goes on retrying, with back-off, until an operator does.
     */
    static final int AUTHENTICATION_FAILURES_REPORTED = 3;

    private final SpoolQueue queue;
    /** This sink's number among the source's replicas. */
    private final int replica;
    private final InetSocketAddress sink;
    private final ReplicaAcks acks;
    private final long connectTimeoutNs;
    private final long minBackoffNs;
    private final long maxBackoffNs;
    private final boolean retryDiverged;
    private static final long DIVERGED_RETRY_NS = TimeUnit.SECONDS.toNanos(1);
    private final NanoClock clock;
    /** Makes the API's exception that stops replication to this sink for good. */
    private final Function<String, RuntimeException> stopError;
    /** The source's, shared by its sinks' connections: its thread sleeps in it. */
    private final Selector selector;
    private final Connection connection;
    private final SourceHandshake handshake;
    private final SourceStream stream;
    /** The queue's, as the source reads it: from each handshake to the end of its connection; else null. */
    private final QueueInternals internals;
    /**
     * Open only while connected: a cycle file open in this process is never deleted, and a sink away must not hold
     * retention back, whatever the replica lag limit.
     */
    private ExcerptTailer tailer;
    private int state = BACKOFF;
    private long deadlineNs;
    private long backoffNs;
    private SocketChannel connecting;
    private volatile boolean connected;
    private volatile Throwable failure;
    /** The last failed authentication, once {@link #AUTHENTICATION_FAILURES_REPORTED} came in a row; else null. */
    private volatile AuthenticationException refused;
    /** Failed authentications in a row, logged once, then with a count. */
    private final RepeatedLog refusedLog = new RepeatedLog();
    private boolean closed;

    /**
     * @param replica  this sink's number among the source's replicas.
     * @param selector the source's selector, which the connection registers with.
     */
    SourceAgent(final SourceConfig config, final int replica, final ReplicaAcks acks, final Selector selector) {
        this.queue = config.queue();
        this.replica = replica;
        this.sink = config.sinks().get(replica);
        this.acks = acks;
        this.clock = config.nanoClock();
        this.stopError = config.stopError();
        final long heartbeatNs = config.heartbeatNs();
        final int frameLimit = config.frameLimit();
        this.connectTimeoutNs = 3 * heartbeatNs;
        this.minBackoffNs = config.minBackoff().toNanos();
        this.maxBackoffNs = config.maxBackoff().toNanos();
        this.retryDiverged = config.retryDiverged();
        this.backoffNs = minBackoffNs;
        // a DATA frame's MAC follows it, and may push a carried excerpt that far along; or the excerpt is parked past
        // a SCHEMA frame and its MAC
        this.connection = new Connection(clock, RECEIVE_CAPACITY, Math.toIntExact(frameLimit
                + DataFlyweight.largestFrameLength(frameLimit, queue.maxMessageLength(),
                        queue.unwrap(QueueInternals.class).features())
                + FrameMac.TAG_LENGTH + SourceStream.PARK_OFFSET));
        this.handshake = new SourceHandshake(queue, sink, connection, config.secret(), frameLimit, heartbeatNs,
                clock);
        this.stream = new SourceStream(acks, replica, sink, connection, frameLimit, heartbeatNs, queue.checksums(),
                queue.unwrap(QueueInternals.class).schemaFiles(), clock);
        this.selector = selector;
        this.internals = queue.unwrap(QueueInternals.class);
        this.deadlineNs = clock.nanoTime();
    }

    @Override
    public String roleName() {
        return SourceConfig.THREAD_NAME;
    }

    /**
     * One pass: whatever the current state allows without blocking.
     *
     * @return 1 if anything was done (a step of the connection or the handshake, a frame received or sent), else 0.
     */
    @Override
    public int doWork() {
        try {
            switch (state) {
                case STREAMING:
                    return stream.streamOnce() ? 1 : 0;
                case BACKOFF:
                    return clock.nanoTime() - deadlineNs < 0 ? 0 : connect();
                case CONNECTING:
                    return finishConnect();
                case HANDSHAKE:
                    return shakeHands();
                default:
                    return 0;
            }
        } catch (ReplicaStopped e) {
            if (e.diverged() && retryDiverged) {
                // at most once a second, whatever the back-off: a replica is rebuilt rarely, and each refusal is an ERROR
                backoffNs = Math.max(maxBackoffNs, DIVERGED_RETRY_NS);
                LOG.error("replication source of {}: {}; retrying in {} ms, once the replica is rebuilt",
                        queue.directory(), e.getMessage(), backoffNs / 1_000_000);
                retry();
                return 0;
            }
            LOG.error("replication source of {}: replication to {} stopped: {}", queue.directory(), sink,
                    e.getMessage());
            stop(stopError.apply(e.getMessage()));
        } catch (AuthenticationException e) {
            onRefused(e);
            retry();
        } catch (FrameException e) {
            LOG.warn("replication source of {}: closing the connection to {}: {}", queue.directory(),
                    connection.peer(), e.getMessage());
            retry();
        } catch (IOException e) {
            if (state == STREAMING) {
                LOG.warn("replication source of {}: connection to {} lost: {}", queue.directory(), sink, e.toString());
            } else {
                LOG.info("replication source of {}: cannot replicate to {} ({}), retrying in {} ms",
                        queue.directory(), sink, e.toString(), backoffNs / 1_000_000);
            }
            retry();
        } catch (RuntimeException | Error e) {
            LOG.error("replication source of {}: replication to {} stopped", queue.directory(), sink, e);
            stop(e);
        }
        return 0;
    }

    /** Closes the connection and the tailer, before the source closes the selector; the queue stays open. Once. */
    @Override
    public void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        state = STOPPED;
        disconnect();
        connection.close();
    }

    /** @return the sink's address. */
    InetSocketAddress sink() {
        return sink;
    }

    boolean isConnected() {
        return connected;
    }

    /** @return true once replication to this sink stopped for good, by a failure or a close. */
    boolean isStopped() {
        return state == STOPPED;
    }

    /**
     * @return the error that stopped replication to this sink for good; else, while the sink and this source keep
     * failing to authenticate each other, the last such failure; else null.
     */
    Throwable failure() {
        final Throwable stopped = failure;
        return stopped != null ? stopped : refused;
    }

    /** @return true while failed authentications keep this source from its sink: {@link #failure()} tells why. */
    boolean isRefused() {
        return failure == null && refused != null;
    }

    /** @return the last index sent to the sink on the current or last connection, -1 if none; any thread. */
    long sentIndex() {
        return stream.sentIndex();
    }

    /** @return payload bytes read for the sink and not acknowledged on the current or last connection; any thread. */
    long unackedBytes() {
        return stream.unackedBytes();
    }

    /** Stops replication to this sink for good, as the source's other sinks do when one of them fenced the queue. */
    void stopWith(final Throwable cause) {
        if (state != STOPPED) {
            stop(cause);
        }
    }

    private int connect() throws IOException {
        final SocketChannel channel = SocketChannel.open();
        try {
            channel.configureBlocking(false);
            connecting = channel;
            deadlineNs = clock.nanoTime() + connectTimeoutNs;
            if (connectNow(channel)) {
                return onConnected();
            }
            channel.register(selector, SelectionKey.OP_CONNECT);
            state = CONNECTING;
            return 1;
        } catch (IOException | RuntimeException e) {
            connecting = null;
            channel.close();
            throw e;
        }
    }

    /** @return true if connected at once; an address that does not resolve now is retried, as a refused one is. */
    private boolean connectNow(final SocketChannel channel) throws IOException {
        try {
            return channel.connect(sink);
        } catch (UnresolvedAddressException e) {
            throw new IOException("cannot resolve " + sink, e);
        }
    }

    private int finishConnect() throws IOException {
        if (connecting.finishConnect()) {
            return onConnected();
        }
        if (clock.nanoTime() - deadlineNs > 0) {
            throw new IOException("no connection within " + connectTimeoutNs / 1_000_000 + " ms");
        }
        return 0;
    }

    private int onConnected() throws IOException {
        final SocketChannel channel = connecting;
        connecting = null;
        connection.attach(channel);
        channel.register(selector, SelectionKey.OP_READ);
        // stored bodies: with checksums, the CRC32C travels with each excerpt and the replica's files equal these
        tailer = internals.createBodyTailer();
        handshake.begin();
        state = HANDSHAKE;
        return 1;
    }

    private int shakeHands() throws IOException {
        if (!handshake.step(tailer)) {
            return 0;
        }
        stream.resume(tailer, handshake.sinkLast());
        if (refusedLog.count() > 0) {
            LOG.info("replication source of {}: authenticated with {} after {} failed attempts", queue.directory(),
                    sink, refusedLog.count());
            refusedLog.reset();
            refused = null;
        }
        backoffNs = minBackoffNs;
        state = STREAMING;
        connected = true;
        acks.connected(replica, handshake.sinkLast());
        return 1;
    }

    /**
     * A failed authentication: logged once, then with a count; reported by {@link #failure()} once it came
     * {@link #AUTHENTICATION_FAILURES_REPORTED} times in a row. Retried with the back-off, which grows each time.
     */
    private void onRefused(final AuthenticationException e) {
        final long count = refusedLog.next();
        if (count > 0) {
            LOG.warn("replication source of {}: {}{}; retrying with back-off", queue.directory(), e.getMessage(),
                    RepeatedLog.times(count));
        }
        if (refusedLog.count() >= AUTHENTICATION_FAILURES_REPORTED) {
            refused = e;
        }
    }

    /** Back to backing off: the next connection is tried once the back-off has passed, and the next waits twice as long. */
    private void retry() {
        disconnect();
        state = BACKOFF;
        deadlineNs = clock.nanoTime() + backoffNs;
        backoffNs = Math.min(backoffNs * 2, maxBackoffNs);
    }

    private void stop(final Throwable cause) {
        disconnect();
        state = STOPPED;
        // published last: a thread that sees the failure sees this sink stopped (SourceLinks.running())
        failure = cause;
    }

    private void disconnect() {
        if (connected) {
            connected = false;
            acks.disconnected(replica);
        }
        if (tailer != null) {
            tailer.close();
            tailer = null;
        }
        connection.detach();
        if (connecting != null) {
            try {
                connecting.close();
            } catch (IOException e) {
                LOG.info("replication source of {}: cannot close a pending connection: {}", queue.directory(), e.toString());
            }
            connecting = null;
        }
        try {
            // a closed channel's key leaves the selector, and the socket closes, at the selector's next operation
            selector.selectNow(Connection.IGNORE_KEY);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot release the connection's key in the source of " + queue.directory(), e);
        }
    }
}
