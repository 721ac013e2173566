package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.VariantNames;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;

import java.nio.file.Path;

/**
 * Chronicle Queue open source, the scenario of the articles: JLBH's thread writes the message with
 * {@code appender.writeBytes(Bytes)}, the reader busy-spins on {@code tailer.readingDocument()} and reads the
 * start time in place. {@code FAST_DAILY} and 64 MiB blocks, as in the JMH suite and {@link SpoolVariant}.
 * Chronicle's appenders and tailers check which thread uses them, so each is created on its own thread.
 */
final class ChronicleVariant implements LatencyVariant {
    private ChronicleQueue queue;
    private ExcerptAppender appender;
    private ExcerptTailer tailer;
    private Bytes<?> message;

    @Override
    public String name() {
        return VariantNames.CHRONICLE;
    }

    @Override
    public String description() {
        return "Chronicle Queue open source (binary, FAST_DAILY, 64 MiB blocks): appender.writeBytes / "
                + "tailer.readingDocument, read in place";
    }

    @Override
    public void init(final Path directory, final int length) {
        queue = Payloads.chronicleQueue(directory)
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
        appender.writeBytes(message);
    }

    @Override
    public long receive() {
        try (DocumentContext document = tailer.readingDocument()) {
            return document.isPresent() ? document.wire().bytes().readLong() : NOTHING;
        }
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
}
