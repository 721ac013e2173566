package dev.spool.queue.internal;

import dev.spool.queue.ExcerptAppender;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Not API: appends each payload with the id and sequence of the client that published it, for the replication
 * module's publish gateway. In a queue with publisher ids ({@code MetadataDescriptor.FEATURE_PUBLISHER_IDS}) they
 * are stored ahead of the payload, where {@link QueueInternals#readLastPublishers} finds them again, on this queue or
 * on a replica promoted in its place; in a queue without, they are dropped and the payload is appended as
 * {@link ExcerptAppender#append(BytesStore, long, int)} appends it. Allocates nothing. Obtained from
 * {@link QueueInternals#createPublisherAppender()}, refused where {@code createAppender} is; one instance belongs to
 * one thread at a time.
 */
public interface PublisherAppender extends AutoCloseable {
    /**
     * @param publisherId the publishing client's id; 0 means none.
     * @param sequence    the client's number for this publish; 0 means none.
     * @param src         holds the payload.
     * @param offset      where it starts in {@code src}.
     * @param length      its length, 1 to the queue's longest message.
     * @return the excerpt's index.
     */
    long append(long publisherId, long sequence, BytesStore<?, ?> src, long offset, int length);

    /**
     * Flushes everything written so far to disk, as {@link ExcerptAppender#sync()} does.
     *
     * @return the last index now on disk, or -1 if the queue is empty.
     */
    long sync();

    /** Releases the appender's resources. */
    @Override
    void close();
}
