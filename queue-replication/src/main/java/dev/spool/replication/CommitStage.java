package dev.spool.replication;

/**
 * What "committed" means for one write, from the cheapest to the safest; a writer picks one per message and waits
 * for it with {@link CommitWaiter#await}. Combine with the queue's content-based {@link dev.spool.queue.SyncPolicy}:
 * an excerpt the policy synced already counts as {@link #SYNCED} and as {@link #ACKED_OR_SYNCED} at once.
 */
public enum CommitStage {
    /**
     * Visible in memory to readers of this machine. An append to a queue returns only once its excerpt is in the
     * mapped file, so this is complete when the append returns; the publish gateway's client completes it when its
     * message is handed to the socket.
     */
    PUBLISHED,
    /** In the local queue's mapped file: survives the writer's process, not the machine. Complete when the append returns. */
    WRITTEN,
    /** On the local disk: flushed with {@code msync(MS_SYNC)}, by this writer's appender if need be. */
    SYNCED,
    /** In the replica's queue (or on its disk, if the sink acks synced): survives this machine. */
    ACKED,
    /**
     * {@link #ACKED} while the replica is connected, else {@link #SYNCED}: the replica's acknowledgement costs about
     * one network round trip, a local sync typically far more, and when the replica is away the disk is the fallback.
     */
    ACKED_OR_SYNCED
}
