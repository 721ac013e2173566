package dev.spool.queue.internal;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.format.ExcerptDescriptor;

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
    /** Shift of the writer epoch in the stored sequence: its top 16 bits ({@code ExcerptDescriptor}'s layout). */
    int EPOCH_SHIFT = ExcerptDescriptor.PUBLISHER_EPOCH_SHIFT;
    /** Mask of the client's sequence in the stored sequence: its low 48 bits. */
    long SEQUENCE_MASK = ExcerptDescriptor.PUBLISHER_SEQUENCE_MASK;
    /** The highest writer epoch a stored sequence holds. */
    int MAX_EPOCH = ExcerptDescriptor.MAX_PUBLISHER_EPOCH;

    /**
     * @param publisherId the publishing client's id; 0 means none.
     * @param sequence    the client's writer epoch and number for this publish, stored as given:
     *                    {@code epoch << EPOCH_SHIFT | number}; 0 means none.
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
