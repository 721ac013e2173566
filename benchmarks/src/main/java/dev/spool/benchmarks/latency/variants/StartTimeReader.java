package dev.spool.benchmarks.latency.variants;

import dev.spool.queue.ExcerptHandler;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Keeps the start time, the first eight bytes, of the excerpt just read: a field, so a read allocates nothing.
 * One reader thread's.
 */
final class StartTimeReader implements ExcerptHandler {
    private long startTimeNs;

    @Override
    public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
        startTimeNs = bytes.readLong(offset);
    }

    /** @return the start time of the last excerpt read. */
    long startTimeNs() {
        return startTimeNs;
    }
}
