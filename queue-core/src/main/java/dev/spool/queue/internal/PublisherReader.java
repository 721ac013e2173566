package dev.spool.queue.internal;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Not API: told of each excerpt {@link QueueInternals#readLastPublishers} reads that a publisher appended, in index
 * order: a publish gateway rebuilds from them what each client published last.
 */
@FunctionalInterface
public interface PublisherReader {
    /**
     * @param publisherId the publishing client's id, not 0.
     * @param sequence    the client's writer epoch and number for the publish, as stored (see
     *                    {@link PublisherAppender#EPOCH_SHIFT}).
     * @param index       the excerpt's index.
     */
    void onPublish(long publisherId, long sequence, long index);

    /**
     * As {@link #onPublish(long, long, long)}, with the payload, valid during the call only: a reader that checks a
     * publish sent again against its original takes its length and checksum here. By default, calls the other.
     *
     * @param publisherId the publishing client's id, not 0.
     * @param sequence    the client's writer epoch and number for the publish, as stored.
     * @param index       the excerpt's index.
     * @param payload     holds the payload.
     * @param offset      where it starts in {@code payload}.
     * @param length      its length.
     */
    default void onPublish(long publisherId, long sequence, long index, BytesStore<?, ?> payload, long offset,
                           int length) {
        onPublish(publisherId, sequence, index);
    }
}
