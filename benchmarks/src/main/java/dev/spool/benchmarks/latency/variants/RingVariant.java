package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.RingPaths;
import dev.spool.queue.ExcerptTailer;
import dev.spool.ringbuffer.AsyncAppender;
import dev.spool.ringbuffer.AsyncQueue;
import dev.spool.ringbuffer.AsyncQueueBuilder;
import dev.spool.ringbuffer.AsyncTailer;
import dev.spool.ringbuffer.Drainer;
import dev.spool.ringbuffer.LowDutyIdleStrategy;
import dev.spool.ringbuffer.RingHandler;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.Bytes;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Spool with its ring buffer on tmpfs in front of the queue (same queue settings as {@link SpoolVariant}): JLBH's
 * thread appends into the ring with an {@link AsyncAppender} and returns without touching the queue's files. The
 * modes ({@link Mode}) differ in who drains and what the reader reads; together they show whether the queue's
 * stalls reach the ring's reader and appender, and what the ring costs without them.
 */
final class RingVariant implements LatencyVariant {
    /** How long the drainer of {@code ring-stall} stalls, and how often. */
    static final Duration STALL = Duration.ofMillis(100);
    static final Duration STALL_PERIOD = Duration.ofSeconds(1);
    /** The park of {@code ring-lowduty-100us}'s drainer after a batch that was not full. */
    static final Duration LOW_DUTY_SHORT_PERIOD = Duration.ofNanos(100_000);

    /** Who drains, and what the reader reads. */
    enum Mode {
        /** The reader thread drains ({@link Drainer#doWork()}) and then reads the queue with a plain tailer. */
        RING("ring", "Spool async queue: append into a /dev/shm ring, reader thread drains (doWork) then reads the queue"),
        /** The reader reads the ring with an {@link AsyncTailer}; the drainer on its own parking thread. */
        READ("ring-read", "Spool async queue: append into a /dev/shm ring, read the ring with AsyncTailer; drainer on"
                + " its own parking thread"),
        /** The reader thread invokes the drainer each turn, then reads the ring with an {@link AsyncTailer}. */
        INVOKED("ring-invoked", "Spool async queue: append into a /dev/shm ring, reader thread drains (doWork) then"
                + " reads the ring with AsyncTailer"),
        /** As {@link #READ}, with the queue's directory on tmpfs too: the control without the disk. */
        TMPFS("ring-tmpfs", "control: as ring-read, with the queue on /dev/shm too"),
        /**
         * The ring alone, its floor: no drainer and no queue; the reader consumes the ring itself with
         * {@code RingBuffer.read}, which frees each record as it reads it, so a run of any length fits.
         */
        NO_DRAIN("ring-nodrain", "control: the /dev/shm ring alone, no drainer, no queue: the reader consumes the ring"
                + " (RingBuffer.read)"),
        /** As {@link #READ}, with the drainer thread's idle strategy left to the builder's default for the machine. */
        DEFAULT("ring-default", "as ring-read, the drainer's idle strategy the default for this machine's cores"),
        /** As {@link #READ}, the drainer parking 100 us after every batch that was not full, a tenth of the default. */
        LOW_DUTY_SHORT("ring-lowduty-100us", "as ring-read, the drainer low-duty with a 100 us period (the 2-CPU default"
                + " parks 1 ms)"),
        /** As {@link #READ}, the drainer stalled mid-batch for {@link #STALL} every {@link #STALL_PERIOD}. */
        STALLED("ring-stall", "as ring-read, the drainer stalled mid-batch for 100 ms every second (diagnosticDrainStall)");

        private final String variantName;
        private final String description;

        Mode(final String variantName, final String description) {
            this.variantName = variantName;
            this.description = description;
        }

        boolean readsRing() {
            return this != RING && this != NO_DRAIN;
        }

        boolean drainerOnItsOwnThread() {
            return this == READ || this == DEFAULT || this == LOW_DUTY_SHORT || this == TMPFS || this == STALLED;
        }

        boolean readerDrains() {
            return this == RING || this == INVOKED;
        }
    }

    private final Mode mode;
    private boolean pinDrainer;
    private final StartTimeReader startTimeReader = new StartTimeReader();
    private final RingStartTimeReader ringStartTimeReader = new RingStartTimeReader();
    private Path ringPath;
    private BenchmarkDirectory tmpfsQueue;
    private AsyncQueue async;
    private AsyncAppender appender;
    private Drainer drainer;
    private ExcerptTailer queueTailer;
    private AsyncTailer ringTailer;
    private Bytes<?> message;

    RingVariant(final Mode mode) {
        this.mode = mode;
    }

    @Override
    public String name() {
        return mode.variantName;
    }

    @Override
    public String description() {
        return mode.description;
    }

    @Override
    public void pinBackgroundThread() {
        pinDrainer = mode.drainerOnItsOwnThread();
    }

    @Override
    public void init(final Path directory, final int length) {
        ringPath = RingPaths.create(directory);
        final Path queueDirectory;
        if (mode == Mode.TMPFS) {
            tmpfsQueue = BenchmarkDirectory.createOnTmpfs("spool-bench-queue-");
            queueDirectory = tmpfsQueue.path();
        } else {
            queueDirectory = directory.resolve("queue");
        }
        final AsyncQueueBuilder builder = AsyncQueue.builder(Payloads.spoolQueue(queueDirectory)).ringPath(ringPath);
        if (mode == Mode.LOW_DUTY_SHORT) {
            builder.drainerIdleStrategy(() -> new LowDutyIdleStrategy(AsyncQueueBuilder.DEFAULT_DRAIN_BATCH,
                    LOW_DUTY_SHORT_PERIOD.toNanos()));
        } else if (mode != Mode.DEFAULT) {
            builder.drainerIdleStrategy(() -> new BackoffIdleStrategy(0, 10, 10_000, 1_000_000));
        }
        if (mode == Mode.STALLED) {
            builder.diagnosticDrainStall(STALL_PERIOD, STALL);
        }
        builder.pinDrainer(pinDrainer);
        async = builder.build();
        appender = async.createAppender();
        message = Payloads.directMessage(length);
        if (mode.drainerOnItsOwnThread()) {
            drainer = async.startDrainer();
        } else if (mode.readerDrains()) {
            drainer = async.createDrainer();
        }
    }

    @Override
    public void openReader() {
        if (mode == Mode.NO_DRAIN) {
            return;
        }
        if (mode.readsRing()) {
            ringTailer = async.createTailer();
        } else {
            queueTailer = async.queue().createTailer();
        }
    }

    @Override
    public void send(final long startTimeNs) {
        final Bytes<?> message = this.message;
        message.writeLong(0, startTimeNs);
        appender.append(message.bytesStore(), message.readPosition(), (int) message.readRemaining());
    }

    @Override
    public long receive() {
        if (mode.readerDrains()) {
            drainer.doWork();
        }
        if (mode == Mode.NO_DRAIN) {
            return async.ring().read(ringStartTimeReader, 1) > 0 ? ringStartTimeReader.startTimeNs : NOTHING;
        }
        if (mode.readsRing()) {
            return ringTailer.read(startTimeReader) ? startTimeReader.startTimeNs() : NOTHING;
        }
        return queueTailer.read(startTimeReader) ? startTimeReader.startTimeNs() : NOTHING;
    }

    @Override
    public void closeReader() {
        if (mode.readsRing()) {
            ringTailer.close();
        } else if (queueTailer != null) {
            queueTailer.close();
        }
    }

    @Override
    public void close() {
        appender.close();
        if (mode.readerDrains()) {
            // the reader thread has stopped: this thread may run the drainer now
            drainer.close();
        }
        async.close();
        message.releaseLast();
        RingPaths.delete(ringPath);
        if (tmpfsQueue != null) {
            tmpfsQueue.delete();
        }
    }

    /** Keeps the start time of the ring record just read: a field, so a read allocates nothing. */
    private static final class RingStartTimeReader implements RingHandler {
        private long startTimeNs;

        @Override
        public void onRecord(final BytesStore<?, ?> buffer, final long offset, final int length, final long position) {
            startTimeNs = buffer.readLong(offset);
        }
    }
}
