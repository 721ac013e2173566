package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import net.openhft.chronicle.bytes.Bytes;

import java.nio.file.Path;

/**
 * E2's "publish without replication": only the publisher's append of a batch is timed, from the batch's due
 * time until its last message is appended to a plain queue (DAILY, 64 MiB chunks). Nobody reads the queue. The
 * sender hands what the batch took to the reader through an in-memory {@link SpscLongRing}, and the reader
 * returns its own clock minus that, so the sample is the append's time plus one {@code System.nanoTime()} call,
 * not the handoff's: the reader is only the way a sample reaches JLBH.
 */
final class PublishVariant implements LatencyVariant {
    private final int batchSize;
    private SpoolQueue queue;
    private ExcerptAppender appender;
    private SpscLongRing durations;
    private Bytes<?> message;

    /** @param batchSize messages appended back to back per JLBH iteration, at least 1. */
    PublishVariant(final int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, was " + batchSize);
        }
        this.batchSize = batchSize;
    }

    @Override
    public String name() {
        return ReplicatedVariant.batchName("spool-publish", batchSize);
    }

    @Override
    public String description() {
        return "publish only: due time to the end of appender.append(Bytes) of " + (batchSize == 1 ? "the message"
                : "a batch of " + batchSize + " back to back, one sample per batch") + " (plain queue, not read)";
    }

    @Override
    public int messagesPerSend() {
        return batchSize;
    }

    @Override
    public void init(final Path directory, final int length) {
        queue = Payloads.spoolQueue(directory)
                .openOrCreate();
        appender = queue.createAppender();
        durations = new SpscLongRing(1 << 16);
        message = Payloads.directMessage(length);
    }

    @Override
    public void openReader() {
        // the reader reads the ring alone
    }

    @Override
    public void send(final long startTimeNs) {
        Payloads.appendBatch(appender, message, startTimeNs, batchSize);
        final long durationNs = System.nanoTime() - startTimeNs;
        durations.put(durationNs);
    }

    @Override
    public long receive() {
        final long durationNs = durations.poll();
        return durationNs == SpscLongRing.EMPTY ? NOTHING : System.nanoTime() - durationNs;
    }

    @Override
    public void closeReader() {
        // nothing to release: the ring belongs to the sending side
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
        message.releaseLast();
    }
}
