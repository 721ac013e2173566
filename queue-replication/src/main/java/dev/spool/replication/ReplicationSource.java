package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.PauseStrategy;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.QueueRole;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The sending end of replication: tails a primary queue and ships its excerpts to a {@link ReplicationSink}, in DATA
 * frames of whatever is available up to the frame limit, and records the sink's acknowledgements in the queue's
 * metadata ({@link Failover#lastAckedIndex}), where {@link CommitWaiter} and other processes see them.
 * <p>
 * It connects to the sink, and after a handshake (protocol version, queue identity, roll cycle, term, the sink's
 * last index and the checksum of its last excerpt, an optional shared-secret challenge) resumes after the sink's
 * last index: no gap, no duplicate. A lost connection is retried with exponential backoff; a mismatch (another
 * queue, a sink ahead of the source or with a different excerpt at its last index, a failed authentication) stops
 * the source with {@link #failure()} set, and a sink of a later term fences this queue (its
 * {@link Failover#role role} becomes {@link ReplicationRole#FENCED}).
 * <p>
 * Threads: one, {@value #THREAD_NAME}. It polls the queue and the socket while either has work; when neither
 * has, it spins and then yields for {@value #IDLE_SPINS} passes each (a pass reads the socket: some 100-300 µs in
 * all; while messages flow, the next one comes first), then sleeps in its selector, woken by the sink's next frame
 * or by the next append through this {@link SpoolQueue} instance (its append doorbell): an idle source uses no
 * CPU, and only an append that finds it asleep pays for waking it. Appends from other processes ring no doorbell:
 * the source sleeps at most 1 ms at a time by default ({@link Builder#maxSleep}), which bounds their delay. A {@link Builder#pauseStrategy pause strategy}, such as
 * {@link PauseStrategy#busySpin()}, makes it poll instead, at the cost of a core.
 * <p>
 * Built {@link Builder#invoked() invoked}, it streams on the caller's threads instead, in
 * {@link #doWork()}: a thread that spins anyway (the one waiting for acknowledgements, an event loop) sends each
 * append and reads each acknowledgement itself, so neither waits for another thread to be scheduled. The
 * source's thread then only connects, handshakes and reconnects.
 */
public final class ReplicationSource implements AutoCloseable {
    /** Name of the source's thread. */
    public static final String THREAD_NAME = "spool-replication-source";
    /** Default frame limit: a socket write costs microseconds, a message far less, so batch up to 4 KiB. */
    public static final int DEFAULT_FRAME_LIMIT = 4096;
    /** Default time a side stays silent before it sends a heartbeat. */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationSource.class);
    private static final int RECEIVE_CAPACITY = 4096;
    /** Empty passes that spin before the idle source yields: a pass costs a socket read, about a microsecond. */
    static final int IDLE_SPINS = 100;
    /** Empty passes that yield the CPU before the idle source sleeps. */
    static final int IDLE_YIELDS = 100;
    /** Invoked mode: not streaming (connecting, backing off, closed); {@link #doWork()} does nothing. */
    private static final int DUTY_NONE = 0;
    /** Invoked mode: connected and past the handshake; the next {@link #doWork()} may stream. */
    private static final int DUTY_STREAMING = 1;
    /** Invoked mode: a thread is inside {@link #doWork()}. */
    private static final int DUTY_WORKING = 2;
    /** Invoked mode: {@link #doWork()} lost the connection; the source's thread reconnects. */
    private static final int DUTY_LOST = 3;

    private final SpoolQueue queue;
    private final InetSocketAddress sink;
    private final int frameLimit;
    private final long heartbeatNs;
    private final long minBackoffNs;
    private final long maxBackoffNs;
    private final byte[] secret;
    private final PauseStrategy pause;
    private final long maxSleepMs;
    private final Connection connection;
    private final Selector selector;
    private final Doorbell appended;
    /** While messages flow, the next one comes before a sleep would pay off; then an append wakes the thread. */
    private final IdleBackoff idle;
    private final Thread thread;
    private final SourceHandshake handshake;
    private final SourceStream stream;
    private final boolean invoked;
    /** In invoked mode: who streams now, one of the {@code DUTY_} values. */
    private final AtomicInteger duty = new AtomicInteger(DUTY_NONE);
    /** In invoked mode: why the connection failed in {@link #doWork()}; read by the source's thread after DUTY_LOST. */
    private Throwable lost;
    private volatile boolean running = true;
    private volatile boolean connected;
    private volatile Throwable failure;

    /** True while the thread sleeps in its selector: tests wait for it to prove that an append wakes it. */
    volatile boolean sleeping;

    private ReplicationSource(final Builder builder) throws IOException {
        this.queue = builder.queue;
        this.sink = builder.sink;
        this.frameLimit = builder.frameLimit;
        this.heartbeatNs = builder.heartbeatInterval.toNanos();
        this.minBackoffNs = builder.minBackoff.toNanos();
        this.maxBackoffNs = builder.maxBackoff.toNanos();
        this.secret = builder.secret;
        this.pause = builder.pause;
        this.invoked = builder.invoked;
        // it wakes for its heartbeats too
        this.maxSleepMs = Math.max(1, Math.min(builder.maxSleep.toMillis(), heartbeatNs / 2_000_000));
        final QueueInternals internals = QueueInternals.of(queue);
        if (internals.role() != QueueRole.PRIMARY) {
            throw new IllegalStateException("queue " + queue.directory() + " is a " + internals.role() + " queue of term "
                    + internals.term() + ": only a primary is replicated");
        }
        this.selector = Selector.open();
        this.appended = internals.appendDoorbell(selector::wakeup);
        this.idle = new IdleBackoff(appended, IDLE_SPINS, IDLE_YIELDS);
        this.connection = new Connection(RECEIVE_CAPACITY,
                Math.toIntExact(frameLimit + DataFlyweight.frameLength(queue.maxMessageLength())));
        this.handshake = new SourceHandshake(queue, sink, connection, selector, secret, frameLimit, heartbeatNs,
                this::isRunning);
        this.stream = new SourceStream(queue, sink, connection, frameLimit, heartbeatNs);
        this.thread = new Thread(this::run, THREAD_NAME);
        thread.setDaemon(true);
    }

    /**
     * @param queue the primary queue to replicate; it must stay open while the source runs.
     * @param sink  the address a {@link ReplicationSink} listens on.
     * @return a builder of a source.
     */
    public static Builder builder(final SpoolQueue queue, final InetSocketAddress sink) {
        return new Builder(queue, sink);
    }

    /** @return true while connected to the sink and past the handshake. */
    public boolean isConnected() {
        return connected;
    }

    /** @return the queue this source replicates. */
    public SpoolQueue queue() {
        return queue;
    }

    /**
     * @return the error that stopped the source for good (a mismatch, a divergence, fencing, a failed
     * authentication), or null while it runs or retries.
     */
    public Throwable failure() {
        return failure;
    }

    /**
     * @param appender the caller's appender, used for the {@link CommitStage#SYNCED} stages; may be null, and then
     *                 those stages wait for another writer's sync.
     * @return a waiter for the commit stages of this source's queue, for the calling thread.
     */
    public CommitWaiter commitWaiter(final ExcerptAppender appender) {
        return new CommitWaiter(queue, this, appender, null, CommitWaiter.MAX_PARK_NS, CommitWaiter.IDLE_SPINS,
                CommitWaiter.IDLE_YIELDS);
    }

    /**
     * @param appender the caller's appender, for the {@link CommitStage#SYNCED} stages; may be null.
     * @param pause    how the waiter waits, e.g. {@link PauseStrategy#busySpin()} for the lowest latency.
     * @return a waiter for the commit stages of this source's queue, for the calling thread.
     */
    public CommitWaiter commitWaiter(final ExcerptAppender appender, final PauseStrategy pause) {
        return new CommitWaiter(queue, this, appender, Objects.requireNonNull(pause, "pause"), 0, 0, 0);
    }

    /**
     * Streams once, on the calling thread, in a source built {@link Builder#invoked() invoked}: reads the sink's
     * acknowledgements, sends what the queue has up to a frame, sends a heartbeat when due. Any thread may call it,
     * from its own loop or while it waits for an acknowledgement; calls never overlap (a call made while another
     * runs returns 0 at once). It never blocks, allocates nothing, and does nothing while the source is not
     * connected: the source's own thread connects, handshakes and reconnects. A lost connection is handed back to
     * that thread, and this call returns 0.
     *
     * @return 1 if anything was received or sent, else 0.
     * @throws IllegalStateException if the source was not built invoked.
     * @throws RuntimeException      what stopped the source for good, as {@link #failure()} reports it.
     */
    public int doWork() {
        if (!invoked) {
            throw new IllegalStateException("the source of " + queue.directory() + " streams on its own thread;"
                    + " build it with invoked() to stream from the caller's");
        }
        if (duty.get() != DUTY_STREAMING || !duty.compareAndSet(DUTY_STREAMING, DUTY_WORKING)) {
            return 0;
        }
        try {
            final boolean worked = stream.streamOnce();
            duty.set(DUTY_STREAMING);
            return worked ? 1 : 0;
        } catch (IOException | RuntimeException | Error e) {
            lost = e;
            duty.set(DUTY_LOST);
            LockSupport.unpark(thread);
            if (e instanceof RuntimeException runtime && !(e instanceof ReplicationException)) {
                throw runtime;
            }
            if (e instanceof Error error) {
                throw error;
            }
            return 0;
        }
    }

    /** @return true if the caller's threads stream through {@link #doWork()}. */
    public boolean isInvoked() {
        return invoked;
    }

    /** Stops the thread and closes the connection; the queue stays open. */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        selector.wakeup();
        Threads.join(thread, "the source of " + queue.directory());
    }

    private boolean isRunning() {
        return running;
    }

    private ReplicationSource startThread() {
        thread.start();
        return this;
    }

    private void run() {
        long backoffNs = minBackoffNs;
        try (ExcerptTailer tailer = queue.createTailer()) {
            while (running) {
                boolean streamed = false;
                try {
                    connect();
                    stream.resume(tailer, handshake.run(tailer));
                    connected = true;
                    streamed = true;
                    backoffNs = minBackoffNs;
                    if (invoked) {
                        handOverStreaming();
                    } else {
                        streamOnOwnThread();
                    }
                } catch (ReplicationException e) {
                    failure = e;
                    LOG.error("replication source of {} stopped: {}", queue.directory(), e.getMessage());
                    return;
                } catch (FrameException e) {
                    LOG.warn("replication source of {}: closing the connection to {}: {}", queue.directory(),
                            connection.peer(), e.getMessage());
                } catch (IOException e) {
                    if (streamed) {
                        LOG.warn("replication source of {}: connection to {} lost: {}", queue.directory(), sink, e.toString());
                    } else {
                        LOG.info("replication source of {}: cannot replicate to {} ({}), retrying in {} ms",
                                queue.directory(), sink, e.toString(), backoffNs / 1_000_000);
                    }
                } finally {
                    connected = false;
                    connection.detach();
                }
                if (running) {
                    final long until = System.nanoTime() + backoffNs;
                    for (long left = backoffNs; running && left > 0; left = until - System.nanoTime()) {
                        LockSupport.parkNanos(left);
                    }
                    backoffNs = Math.min(backoffNs * 2, maxBackoffNs);
                }
            }
        } catch (RuntimeException | Error e) {
            failure = e;
            LOG.error("replication source of {} stopped", queue.directory(), e);
        } finally {
            connected = false;
            appended.close();
            connection.close();
            try {
                selector.close();
            } catch (IOException e) {
                LOG.error("replication source of {}: cannot close its selector", queue.directory(), e);
            }
        }
    }

    private void connect() throws IOException {
        final SocketChannel channel = SocketChannel.open();
        try {
            channel.socket().connect(sink, (int) Math.max(1, Math.min(Integer.MAX_VALUE, 3 * heartbeatNs / 1_000_000)));
            connection.attach(channel);
            channel.register(selector, SelectionKey.OP_READ);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Invoked mode: lets {@link #doWork()} stream until it loses the connection or the source is closed, then takes
     * the connection back; rethrows what {@code doWork} caught.
     */
    private void handOverStreaming() throws IOException {
        lost = null;
        duty.set(DUTY_STREAMING);
        while (running && duty.get() != DUTY_LOST) {
            LockSupport.parkNanos(this, heartbeatNs);
        }
        // a doWork in progress finishes its pass first
        while (!duty.compareAndSet(DUTY_STREAMING, DUTY_NONE) && !duty.compareAndSet(DUTY_LOST, DUTY_NONE)) {
            Thread.yield();
        }
        final Throwable cause = lost;
        lost = null;
        if (cause instanceof IOException io) {
            throw io;
        }
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
    }

    /** Streams on the source's thread until the connection fails or the source is closed. */
    private void streamOnOwnThread() throws IOException {
        final PauseStrategy pause = this.pause;
        if (pause != null) {
            pause.reset();
        }
        idle.reset();
        while (running) {
            final boolean worked = stream.streamOnce();
            if (pause != null) {
                if (worked) {
                    pause.reset();
                } else {
                    pause.pause();
                }
            } else if (worked) {
                idle.reset();
            } else if (idle.idle()) {
                sleeping = true;
                // the consumer form: the selected-key set would allocate a node per key
                selector.select(Connection.IGNORE_KEY, maxSleepMs);
                sleeping = false;
                idle.afterSleep();
            }
        }
    }

    /** Settings of a {@link ReplicationSource}. */
    public static final class Builder {
        private final SpoolQueue queue;
        private final InetSocketAddress sink;
        private int frameLimit = DEFAULT_FRAME_LIMIT;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private Duration minBackoff = Duration.ofMillis(50);
        private Duration maxBackoff = Duration.ofSeconds(2);
        private byte[] secret;
        private PauseStrategy pause;
        private boolean invoked;
        private Duration maxSleep = Duration.ofMillis(1);

        private Builder(final SpoolQueue queue, final InetSocketAddress sink) {
            this.queue = Objects.requireNonNull(queue, "queue");
            this.sink = Objects.requireNonNull(sink, "sink");
        }

        /**
         * @param frameLimit the most bytes a DATA frame holds, headers included, unless one excerpt alone is longer;
         *                   default {@link #DEFAULT_FRAME_LIMIT}.
         * @return this builder.
         */
        public Builder frameLimit(final int frameLimit) {
            if (frameLimit < DataFlyweight.frameLength(1)) {
                throw new IllegalArgumentException("frameLimit=" + frameLimit + " cannot hold one excerpt");
            }
            this.frameLimit = frameLimit;
            return this;
        }

        /**
         * @param heartbeatInterval how long the source stays silent before it sends a heartbeat; a connection with no
         *                          frame from the sink for three intervals is closed and retried. Use the sink's.
         *                          Default 1 s.
         * @return this builder.
         */
        public Builder heartbeatInterval(final Duration heartbeatInterval) {
            this.heartbeatInterval = Handshake.checkedHeartbeatInterval(heartbeatInterval);
            return this;
        }

        /**
         * @param min the wait before the first retry after a failed or lost connection; default 50 ms.
         * @param max the longest wait, reached by doubling; default 2 s.
         * @return this builder.
         */
        public Builder reconnectBackoff(final Duration min, final Duration max) {
            if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
                throw new IllegalArgumentException("reconnect backoff from " + min + " to " + max);
            }
            this.minBackoff = min;
            this.maxBackoff = max;
            return this;
        }

        /**
         * @param secret the secret shared with the sink, at least 16 bytes; see
         *               {@link ReplicationSink.Builder#sharedSecret(byte[])}. Default none.
         * @return this builder.
         */
        public Builder sharedSecret(final byte[] secret) {
            this.secret = Handshake.checkedSecret(secret);
            return this;
        }

        /**
         * @param pause how the source's thread waits when there is nothing to send or receive, polling instead of
         *              sleeping in its selector until an append or a frame wakes it (the default): e.g.
         *              {@link PauseStrategy#busySpin()} for the lowest latency, at the cost of a core.
         * @return this builder.
         */
        public Builder pauseStrategy(final PauseStrategy pause) {
            this.pause = Objects.requireNonNull(pause, "pause");
            return this;
        }

        /**
         * Streams from the caller's threads: they call {@link ReplicationSource#doWork()} in their own loops (a
         * thread that spins anyway, such as the one waiting for acknowledgements), so an append reaches the socket
         * and an acknowledgement the queue without waking another thread. The source's thread still connects,
         * handshakes and reconnects, and sleeps while the callers stream. Nothing is sent unless someone calls
         * {@code doWork}, and a connection whose heartbeats stop for three intervals is dropped by the sink.
         *
         * @return this builder.
         */
        public Builder invoked() {
            return invoked(true);
        }

        /**
         * @param invoked true for {@link #invoked()}, false for streaming on the source's own thread (the default).
         * @return this builder.
         */
        public Builder invoked(final boolean invoked) {
            this.invoked = invoked;
            return this;
        }

        /**
         * @param maxSleep the longest the source sleeps in its selector with nothing to send or receive, at least
         *                 1 ms: what an append from another process, which rings no doorbell, may wait for it. Default
         *                 1 ms; it never sleeps past half a heartbeat interval.
         * @return this builder.
         */
        public Builder maxSleep(final Duration maxSleep) {
            if (maxSleep.toMillis() < 1) {
                throw new IllegalArgumentException("maxSleep=" + maxSleep + " is under the selector's 1 ms resolution;"
                        + " use a pause strategy to poll");
            }
            this.maxSleep = maxSleep;
            return this;
        }

        /**
         * @return the running source; it connects in the background.
         * @throws IllegalStateException if the queue is not a primary.
         */
        public ReplicationSource start() {
            try {
                return new ReplicationSource(this).startThread();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot open a selector for the source of " + queue.directory(), e);
            }
        }
    }
}
