package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.VariantNames;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.Pretoucher;
import dev.spool.queue.SpoolQueue;
import net.openhft.chronicle.bytes.Bytes;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A plain Spool queue: JLBH's thread appends the message, whose first eight bytes are the start time, with
 * {@code append(Bytes)}; the reader busy-spins on {@code tailer.read(handler)}, which hands it the mapped bytes.
 * Daily roll cycle and 64 MiB chunks, as in the JMH suite, so a run never rolls and maps a chunk per 64 MiB.
 * <p>
 * {@code spool-pretouch} is the same plus the queue's own {@link Pretoucher} on its daemon thread
 * ({@code startPretoucher}), every {@value #PRETOUCH_PERIOD_MS} ms, as an application would run it: it touches the
 * pages up to the default 4 MiB ahead of the writer (0.4 s of messages at 250K msg/s of 32 bytes) and maps the
 * next chunk before the writer reaches it. That thread parks between runs: it does not spin.
 */
final class SpoolVariant implements LatencyVariant {
    /** Name of {@link #pretouched()}. */
    static final String PRETOUCH = "spool-pretouch";
    /** The pretoucher's period: well inside the 400 ms the writer takes to cross 4 MiB at E1's fastest rate. */
    static final int PRETOUCH_PERIOD_MS = 10;

    private final StartTimeReader startTimeReader = new StartTimeReader();
    private final boolean pretouch;
    private SpoolQueue queue;
    private Pretoucher pretoucher;
    private ExcerptAppender appender;
    private ExcerptTailer tailer;
    private Bytes<?> message;

    /** The plain queue. */
    SpoolVariant() {
        this(false);
    }

    private SpoolVariant(final boolean pretouch) {
        this.pretouch = pretouch;
    }

    /** @return {@code spool-pretouch}: the plain queue with a pretoucher on a background thread. */
    static SpoolVariant pretouched() {
        return new SpoolVariant(true);
    }

    @Override
    public String name() {
        return pretouch ? PRETOUCH : VariantNames.SPOOL;
    }

    @Override
    public String description() {
        return pretouch
                ? "plain Spool queue + queue.startPretoucher(" + PRETOUCH_PERIOD_MS + " ms): a daemon thread, parked"
                + " between runs, touches the pages 4 MiB ahead of the writer"
                : "plain Spool queue (DAILY, 64 MiB chunks): appender.append(Bytes) / tailer.read(handler), zero-copy read";
    }

    @Override
    public void init(final Path directory, final int length) {
        queue = Payloads.spoolQueue(directory)
                .openOrCreate();
        appender = queue.createAppender();
        message = Payloads.directMessage(length);
        if (pretouch) {
            pretoucher = queue.startPretoucher(Duration.ofMillis(PRETOUCH_PERIOD_MS));
        }
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
        return tailer.read(startTimeReader) ? startTimeReader.startTimeNs() : NOTHING;
    }

    @Override
    public void closeReader() {
        tailer.close();
    }

    @Override
    public void close() {
        if (pretoucher != null) {
            pretoucher.close();
        }
        appender.close();
        queue.close();
        message.releaseLast();
    }
}
