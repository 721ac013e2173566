package dev.spool.queue.internal;

/**
 * Not API: told of each excerpt {@link QueueInternals#readLastPublishers} reads that a publisher appended, in index
 * order: a publish gateway rebuilds from them what each client published last.
 */
@FunctionalInterface
public interface PublisherReader {
    /**
     * @param publisherId the publishing client's id, not 0.
     * @param sequence    the client's number for the publish.
     * @param index       the excerpt's index.
     */
    void onPublish(long publisherId, long sequence, long index);
}
