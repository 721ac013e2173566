package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.RingPaths;
import dev.spool.queue.ExcerptTailer;
import dev.spool.ringbuffer.AsyncAppender;
import dev.spool.ringbuffer.AsyncQueue;
import dev.spool.ringbuffer.AsyncTailer;
import dev.spool.ringbuffer.Drainer;
import net.openhft.chronicle.bytes.Bytes;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.nio.file.Path;

/**
 * Spool with its ring buffer on tmpfs in front of the queue (same queue settings as {@link SpoolVariant}): JLBH's
 * thread appends into the ring with an {@link AsyncAppender} and returns without touching the queue's files.
 * <ul>
 *     <li>{@code ring}: the reader thread is also the drainer's event loop: each turn it drains what the ring holds
 *     into the queue ({@link Drainer#doWork()}) and then reads the queue with a plain tailer. Two spinning threads;
 *     the queue's page faults land on the reader's thread.</li>
 *     <li>{@code ring-read}: the reader reads the ring itself with an {@link AsyncTailer}, before the drainer has
 *     copied the records; the drainer runs on its own thread, which parks when idle (not counted as spinning).</li>
 * </ul>
 */
final class RingVariant implements LatencyVariant {
    private final boolean readRing;
    private final StartTimeReader startTimeReader = new StartTimeReader();
    private Path ringPath;
    private AsyncQueue async;
    private AsyncAppender appender;
    private Drainer drainer;
    private ExcerptTailer queueTailer;
    private AsyncTailer ringTailer;
    private Bytes<?> message;

    /** @param readRing true to read from the ring ({@code ring-read}), false to read the queue ({@code ring}). */
    RingVariant(final boolean readRing) {
        this.readRing = readRing;
    }

    @Override
    public String name() {
        return readRing ? "ring-read" : "ring";
    }

    @Override
    public String description() {
        return readRing
                ? "Spool async queue: append into a /dev/shm ring, read the ring with AsyncTailer; drainer on its own parking thread"
                : "Spool async queue: append into a /dev/shm ring, reader thread drains (doWork) then reads the queue";
    }

    @Override
    public void init(final Path directory, final int length) {
        ringPath = RingPaths.create(directory);
        async = AsyncQueue.builder(Payloads.spoolQueue(directory.resolve("queue")))
                .ringPath(ringPath)
                .drainerIdleStrategy(() -> new BackoffIdleStrategy(0, 10, 10_000, 1_000_000))
                .build();
        appender = async.createAppender();
        message = Payloads.directMessage(length);
        drainer = readRing ? async.startDrainer() : async.createDrainer();
    }

    @Override
    public void openReader() {
        if (readRing) {
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
        if (readRing) {
            return ringTailer.read(startTimeReader) ? startTimeReader.startTimeNs() : NOTHING;
        }
        drainer.doWork();
        return queueTailer.read(startTimeReader) ? startTimeReader.startTimeNs() : NOTHING;
    }

    @Override
    public void closeReader() {
        if (readRing) {
            ringTailer.close();
        } else {
            queueTailer.close();
        }
    }

    @Override
    public void close() {
        appender.close();
        if (!readRing) {
            // the reader thread has stopped: this thread may run the drainer now
            drainer.close();
        }
        async.close();
        message.releaseLast();
        RingPaths.delete(ringPath);
    }
}
