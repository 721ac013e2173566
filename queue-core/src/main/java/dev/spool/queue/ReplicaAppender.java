package dev.spool.queue;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Writes a replica queue ({@link QueueRole#REPLICA}): each excerpt at the index its primary gave it. The index must
 * be the next one of its cycle, or the first of a later cycle, which ends the current one as a roll would; an
 * earlier index or a gap is a {@link SpoolException} naming both indices. Only the replication sink should write a
 * replica. One instance belongs to one thread at a time.
 */
public final class ReplicaAppender implements AutoCloseable {
    private final StoreAppender appender;

    ReplicaAppender(final StoreAppender appender) {
        this.appender = appender;
    }

    /**
     * @param index  the index the excerpt has in the primary.
     * @param src    holds the payload.
     * @param offset where it starts in {@code src}.
     * @param length its length.
     * @return {@code index}.
     */
    public long appendAt(final long index, final BytesStore<?, ?> src, final long offset, final int length) {
        return appender.appendAt(index, src, offset, length);
    }

    /**
     * @param index  the index the excerpt has in the primary.
     * @param src    holds the payload.
     * @param offset where it starts in {@code src}.
     * @param length its length.
     * @return {@code index}.
     */
    public long appendAt(final long index, final byte[] src, final int offset, final int length) {
        return appender.appendAt(index, src, offset, length);
    }

    /**
     * Flushes everything written so far to disk, as {@link ExcerptAppender#sync()} does.
     *
     * @return the last index now on disk, or -1 if the queue is empty.
     */
    public long sync() {
        return appender.sync();
    }

    /** Releases the appender's resources. */
    @Override
    public void close() {
        appender.close();
    }
}
