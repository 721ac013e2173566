package dev.spool.benchmarks;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;

import java.nio.file.Path;

/**
 * A plain Spool queue: JLBH's thread appends the message, whose first eight bytes are the start time, with
 * {@code append(Bytes)}; the reader busy-spins on {@code tailer.read(handler)}, which hands it the mapped bytes.
 * Daily roll cycle and 64 MiB chunks, as in the JMH suite, so a run never rolls and maps a chunk per 64 MiB.
 */
final class SpoolVariant implements LatencyVariant {
    private final StartTimeReader startTimeReader = new StartTimeReader();
    private SpoolQueue queue;
    private ExcerptAppender appender;
    private ExcerptTailer tailer;
    private Bytes<?> message;

    @Override
    public String name() {
        return "spool";
    }

    @Override
    public String description() {
        return "plain Spool queue (DAILY, 64 MiB chunks): appender.append(Bytes) / tailer.read(handler), zero-copy read";
    }

    @Override
    public void init(final Path directory, final int length) {
        queue = SpoolQueue.builder(directory)
                .rollCycle(RollCycle.DAILY)
                .chunkLength(Payloads.CHUNK_LENGTH)
                .build();
        appender = queue.createAppender();
        message = Payloads.directMessage(length);
    }

    @Override
    public void openReader() {
        tailer = queue.createTailer();
    }

    @Override
    public void send(final long startTimeNs) {
        final Bytes<?> message = this.message;
        message.writeLong(0, startTimeNs);
        appender.append(message);
    }

    @Override
    public long receive() {
        return tailer.read(startTimeReader) ? startTimeReader.startTimeNs : NOTHING;
    }

    @Override
    public void closeReader() {
        tailer.close();
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
        message.releaseLast();
    }

    /** Keeps the start time of the excerpt just read: a field, so the read allocates nothing. */
    private static final class StartTimeReader implements ExcerptHandler {
        private long startTimeNs;

        @Override
        public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
            startTimeNs = bytes.readLong(offset);
        }
    }
}
