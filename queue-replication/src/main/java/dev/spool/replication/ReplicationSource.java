package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.PauseStrategy;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.QueueRole;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static dev.spool.replication.FrameDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The sending end of replication: tails a primary queue and ships its excerpts to a {@link ReplicationSink}, in DATA
 * frames of whatever is available up to the frame limit, and records the sink's acknowledgements in the queue's
 * metadata ({@link QueueInternals#lastAckedIndex()}), where {@link CommitWaiter} and other processes see them.
 * <p>
 * It connects to the sink, and after a handshake (protocol version, queue identity, roll cycle, term, the sink's
 * last index and the checksum of its last excerpt, an optional shared-secret challenge) resumes after the sink's
 * last index: no gap, no duplicate. A lost connection is retried with exponential backoff; a mismatch (another
 * queue, a sink ahead of the source or with a different excerpt at its last index, a failed authentication) stops
 * the source with {@link #failure()} set, and a sink of a later term fences this queue ({@link QueueInternals#fence}).
 * <p>
 * Threads: one, {@value #THREAD_NAME}. It polls the queue and the socket while either has work; when neither
 * has, it spins and then yields for {@value #IDLE_SPINS} passes each (a pass reads the socket: some 100-300 µs in
 * all; while messages flow, the next one comes first), then sleeps in its selector, woken by the sink's next frame
 * or by the next append through this {@link SpoolQueue} instance (its {@link QueueInternals#appendDoorbell append
 * doorbell}): an idle source uses no CPU, and only an append that finds it asleep pays for waking it. Appends from
 * other processes ring no doorbell: the source sleeps at most 1 ms at a time by default ({@link Builder#maxSleep}),
 * which bounds their delay. A {@link Builder#pauseStrategy pause strategy}, such as
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
    private final QueueInternals internals;
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
    private final ExcerptHandler batcher = this::addToBatch;
    private final boolean invoked;
    /** In invoked mode: who streams now, one of the {@code DUTY_} values. */
    private final AtomicInteger duty = new AtomicInteger(DUTY_NONE);
    /** In invoked mode: why the connection failed in {@link #doWork()}; read by the source's thread after DUTY_LOST. */
    private Throwable lost;
    private volatile boolean running = true;
    private volatile boolean connected;
    private volatile Throwable failure;

    private ExcerptTailer tailer;
    private int batchPosition = DATA_ENTRIES_OFFSET;
    private int batchCount;
    private int carryStart;
    private int carryLength;
    /** A DATA frame is in the send buffer: its completed flush moves the carried excerpt, a heartbeat's does not. */
    private boolean dataInFlight;
    private long highestRead = -1;
    private long acked = -1;
    /** True while the thread sleeps in its selector: tests wait for it to prove that an append wakes it. */
    volatile boolean sleeping;

    private ReplicationSource(final Builder builder) throws IOException {
        this.queue = builder.queue;
        this.internals = QueueInternals.of(this.queue);
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
        if (internals.role() != QueueRole.PRIMARY) {
            throw new IllegalStateException("queue " + queue.directory() + " is a " + internals.role() + " queue of term "
                    + internals.term() + ": only a primary is replicated");
        }
        this.selector = Selector.open();
        this.appended = internals.appendDoorbell(selector::wakeup);
        this.idle = new IdleBackoff(appended, IDLE_SPINS, IDLE_YIELDS);
        this.connection = new Connection(RECEIVE_CAPACITY,
                frameLimit + DATA_ENTRIES_OFFSET + ENTRY_HEADER_LENGTH + queue.maxMessageLength());
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
            final boolean worked = streamOnce();
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

    private ReplicationSource startThread() {
        thread.start();
        return this;
    }

    private void run() {
        long backoffNs = minBackoffNs;
        try (ExcerptTailer ownTailer = queue.createTailer()) {
            tailer = ownTailer;
            while (running) {
                boolean streamed = false;
                try {
                    connect();
                    handshake();
                    streamed = true;
                    backoffNs = minBackoffNs;
                    if (invoked) {
                        handOverStreaming();
                    } else {
                        stream();
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

    private void handshake() throws IOException {
        final byte[] sourceNonce = Handshake.nonce();
        final long term = internals.term();
        final ByteBuffer send = connection.send();
        int offset = connection.beginFrame(TYPE_HELLO);
        send.putInt(offset + HELLO_MAGIC_OFFSET, MAGIC);
        send.putInt(offset + HELLO_ROLL_CYCLE_OFFSET, queue.rollCycle().id());
        send.putLong(offset + HELLO_QUEUE_ID_OFFSET, queue.queueId().getMostSignificantBits());
        send.putLong(offset + HELLO_QUEUE_ID_OFFSET + Long.BYTES, queue.queueId().getLeastSignificantBits());
        send.putLong(offset + HELLO_EPOCH_OFFSET, queue.epochMillis());
        send.putLong(offset + HELLO_TERM_OFFSET, term);
        send.putLong(offset + HELLO_LAST_INDEX_OFFSET, queue.lastIndex());
        send.putInt(offset + HELLO_MAX_MESSAGE_LENGTH_OFFSET, queue.maxMessageLength());
        send.putInt(offset + HELLO_FRAME_LIMIT_OFFSET, frameLimit);
        send.put(offset + HELLO_NONCE_OFFSET, sourceNonce);
        connection.endFrame(offset, HELLO_LENGTH);
        final long deadline = System.nanoTime() + 3 * heartbeatNs;
        awaitFlushed(deadline);
        awaitFrame(deadline);
        if (connection.frameType() == TYPE_ERROR) {
            if (connection.errorTerm() > term) {
                fence(connection.errorTerm());
            }
            final int code = connection.errorCode();
            final String message = "the sink at " + sink + " refused the handshake with error " + code + ": "
                    + connection.errorMessage();
            if (code == ERROR_PROTOCOL || code == ERROR_WRITE_FAILED || code == ERROR_BUSY) {
                throw new IOException(message);
            }
            throw new ReplicationException(message);
        }
        if (connection.frameType() != TYPE_WELCOME) {
            throw new FrameException(typeName(connection.frameType()) + " frame from " + sink + " where WELCOME was expected");
        }
        final ByteBuffer frame = connection.received();
        final int at = connection.frameOffset();
        final long sinkLast = frame.getLong(at + WELCOME_LAST_INDEX_OFFSET);
        final long sinkChecksum = frame.getLong(at + WELCOME_CHECKSUM_OFFSET);
        final long sinkTerm = frame.getLong(at + WELCOME_TERM_OFFSET);
        final byte[] sinkNonce = Handshake.bytes(frame, at + WELCOME_NONCE_OFFSET, NONCE_LENGTH);
        final byte[] sinkMac = Handshake.bytes(frame, at + WELCOME_MAC_OFFSET, MAC_LENGTH);
        connection.consumeFrame();
        if (!Handshake.verify(secret, Handshake.mac(secret, Handshake.SINK_LABEL, sourceNonce, sinkNonce), sinkMac)) {
            refuse(ERROR_AUTHENTICATION, "the sink at " + sink + " failed the shared-secret check");
        }
        if (sinkTerm > term) {
            fence(sinkTerm);
        }
        final long sourceLast = queue.lastIndex();
        if (sinkLast > sourceLast) {
            refuse(ERROR_DIVERGED, "the sink at " + sink + " is ahead of the source: its last index is " + sinkLast
                    + ", the source's " + sourceLast + " in " + queue.directory() + "; it holds excerpts the source does"
                    + " not, which are reported, never merged");
        }
        if (sinkLast >= 0) {
            final long checksum = Handshake.checksumAt(tailer, sinkLast);
            if (checksum < 0) {
                refuse(ERROR_DIVERGED, "the source " + queue.directory() + " has no excerpt at the sink's last index "
                        + sinkLast + " (deleted by retention, or never written here)");
            }
            if (checksum != sinkChecksum) {
                refuse(ERROR_DIVERGED, String.format("divergent history: the excerpt at index %d has CRC-32C 0x%08x on"
                        + " the sink at %s and 0x%08x in the source %s", sinkLast, sinkChecksum, sink, checksum,
                        queue.directory()));
            }
        } else {
            tailer.toStart();
        }
        offset = connection.beginFrame(TYPE_START);
        send.putLong(offset + START_INDEX_OFFSET, sinkLast);
        send.put(offset + START_MAC_OFFSET, Handshake.mac(secret, Handshake.SOURCE_LABEL, sinkNonce, sourceNonce));
        connection.endFrame(offset, START_LENGTH);
        awaitFlushed(deadline);
        highestRead = sinkLast;
        acked = -1;
        dataInFlight = false;
        batchPosition = DATA_ENTRIES_OFFSET;
        batchCount = 0;
        carryLength = 0;
        connected = true;
        LOG.info("replication source of {}: connected to {}, resuming after index {}", queue.directory(), sink, sinkLast);
    }

    /** Fences this queue: the sink has seen a later primary. What was never acknowledged is reported, not merged. */
    private void fence(final long sinkTerm) throws IOException {
        internals.fence(sinkTerm);
        final long lastAcked = internals.lastAckedIndex();
        final long last = queue.lastIndex();
        final String divergence = last > lastAcked
                ? "indices after " + lastAcked + " up to " + last + " were written here and never acknowledged by a replica;"
                + " the new primary may not have them, and they are not replicated"
                : "every index it wrote was acknowledged (up to " + lastAcked + ")";
        refuse(ERROR_FENCED, "queue " + queue.directory() + " of term " + internals.term() + " is fenced: the sink at " + sink
                + " has term " + sinkTerm + ", so a later primary exists; " + divergence);
    }

    private void refuse(final int code, final String message) throws ReplicationException {
        connection.sendError(code, internals.term(), message);
        try {
            connection.flush();
        } catch (IOException e) {
            LOG.info("replication source of {}: could not tell {} why it stops: {}", queue.directory(), sink, e.toString());
        }
        throw new ReplicationException(message);
    }

    private void awaitFlushed(final long deadline) throws IOException {
        while (!connection.flush()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the sink at " + sink + " reads nothing");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    private void awaitFrame(final long deadline) throws IOException {
        while (true) {
            connection.receive();
            if (connection.nextFrame()) {
                return;
            }
            final long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0 || !running) {
                throw new IOException("no handshake reply from " + sink + " in time");
            }
            selector.select(Connection.IGNORE_KEY, leftMs);
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
    private void stream() throws IOException {
        final PauseStrategy pause = this.pause;
        if (pause != null) {
            pause.reset();
        }
        idle.reset();
        while (running) {
            final boolean worked = streamOnce();
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

    /**
     * One pass of streaming: reads the sink's frames, sends what the queue has, heartbeats.
     *
     * @return true if anything was received or sent.
     */
    private boolean streamOnce() throws IOException {
        final Connection c = connection;
        boolean worked = false;
        if (c.receive() > 0) {
            worked = true;
            while (c.nextFrame()) {
                onFrame();
                c.consumeFrame();
            }
        }
        if (!c.sendIdle()) {
            if (c.flush()) {
                afterFlush();
                worked = true;
            }
        } else if (fillBatch()) {
            worked = true;
            dataInFlight = true;
            if (c.flush()) {
                afterFlush();
            }
        }
        final long now = System.nanoTime();
        if (c.sendIdle() && now - c.lastSentNs() > heartbeatNs) {
            c.sendHeartbeat();
            c.flush();
        }
        if (now - c.lastReceivedNs() > 3 * heartbeatNs) {
            throw new IOException("no frame from the sink for " + (now - c.lastReceivedNs()) / 1_000_000 + " ms");
        }
        return worked;
    }

    private void onFrame() throws IOException {
        final Connection c = connection;
        switch (c.frameType()) {
            case TYPE_ACK:
                final long index = c.received().getLong(c.frameOffset() + ACK_INDEX_OFFSET);
                if (index > highestRead) {
                    throw new FrameException("ACK of index " + index + " from " + sink + ", beyond the last index sent, "
                            + highestRead);
                }
                if (index > acked) {
                    acked = index;
                    internals.recordAcked(index);
                }
                break;
            case TYPE_HEARTBEAT:
                break;
            case TYPE_ERROR:
                final int code = c.errorCode();
                final String message = "the sink at " + sink + " reports error " + code + ": " + c.errorMessage();
                if (code == ERROR_FENCED || code == ERROR_QUEUE_MISMATCH || code == ERROR_DIVERGED
                        || code == ERROR_AUTHENTICATION) {
                    throw new ReplicationException(message);
                }
                throw new IOException(message);
            default:
                throw new FrameException(typeName(c.frameType()) + " frame from the sink at " + sink + " while streaming");
        }
    }

    /**
     * Builds a DATA frame at the start of the send buffer from what the tailer has, up to the frame limit. An
     * excerpt that would take the frame past the limit is read anyway (a tailer cannot peek at a length) and carried
     * to the next frame, unless it is alone.
     *
     * @return true if a frame was built.
     */
    private boolean fillBatch() {
        while (batchPosition < frameLimit) {
            final int entry = batchPosition;
            if (!tailer.read(batcher)) {
                break;
            }
            batchCount++;
            if (batchPosition > frameLimit && batchCount > 1) {
                carryStart = entry;
                carryLength = batchPosition - entry;
                batchCount--;
                batchPosition = entry;
                break;
            }
        }
        if (batchCount == 0) {
            return false;
        }
        final ByteBuffer send = connection.send();
        final int offset = connection.beginFrame(TYPE_DATA);
        send.putInt(offset + DATA_COUNT_OFFSET, batchCount);
        send.putInt(offset + DATA_COUNT_OFFSET + Integer.BYTES, 0);
        connection.endFrame(offset, batchPosition);
        return true;
    }

    private void addToBatch(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
        final ByteBuffer send = connection.send();
        final int entry = batchPosition;
        send.putLong(entry + ENTRY_INDEX_OFFSET, index);
        send.putInt(entry + ENTRY_LENGTH_OFFSET, length);
        MEMORY.copyMemory(bytes.addressForRead(offset), connection.sendAddress() + entry + ENTRY_HEADER_LENGTH, (long) length);
        batchPosition = entry + ENTRY_HEADER_LENGTH + length;
        highestRead = index;
    }

    /** The frame is on the wire: a carried excerpt becomes the first entry of the next one. */
    private void afterFlush() {
        if (!dataInFlight) {
            return;
        }
        dataInFlight = false;
        batchPosition = DATA_ENTRIES_OFFSET;
        batchCount = 0;
        if (carryLength > 0) {
            // memmove: the ranges may overlap
            MEMORY.copyMemory(connection.sendAddress() + carryStart, connection.sendAddress() + DATA_ENTRIES_OFFSET, (long) carryLength);
            batchPosition = DATA_ENTRIES_OFFSET + carryLength;
            batchCount = 1;
            carryLength = 0;
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
            if (frameLimit < DATA_ENTRIES_OFFSET + ENTRY_HEADER_LENGTH + 1) {
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
