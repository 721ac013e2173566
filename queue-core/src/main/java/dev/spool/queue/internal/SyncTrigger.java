package dev.spool.queue.internal;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * One appender's evaluation of its sync policy: made by the {@code SyncPolicy} with the appender's nano clock, asked
 * by the appender after each append. Thread-confined and allocation-free.
 */
public interface SyncTrigger {
    /** Nothing to flush. */
    int DO_NOTHING = 0;
    /** Schedule write-back: {@code msync(MS_ASYNC)}. */
    int DO_ASYNC = 1;
    /** Flush and wait: {@code msync(MS_SYNC)}. */
    int DO_SYNC = 2;

    /**
     * @param bytes  holds the excerpt just written.
     * @param offset where its payload starts.
     * @param length its payload's length.
     * @return {@link #DO_NOTHING}, {@link #DO_ASYNC} or {@link #DO_SYNC}.
     */
    int onAppend(BytesStore<?, ?> bytes, long offset, int length);

    /**
     * Resets what the flush covered.
     *
     * @param action the flush done: {@link #DO_ASYNC} or {@link #DO_SYNC}.
     */
    void flushed(int action);
}
