package dev.spool.replication;

import dev.spool.replication.source.ReplicaAcks;

/**
 * What "committed" means for one write, from the cheapest to the safest; a writer picks one per message and waits
 * for it with {@link CommitWaiter#await}. Combine with the queue's content-based {@link dev.spool.queue.SyncPolicy}:
 * an excerpt the policy synced already counts as {@link #SYNCED} and as every {@code _OR_SYNCED} stage at once.
 * <p>
 * With N replicas ({@link ReplicationSource#builder(dev.spool.queue.SpoolQueue, java.net.InetSocketAddress,
 * java.net.InetSocketAddress...)}) an acknowledgement comes in three forms: by any one replica ({@link #ACKED}), by
 * the source's ack quorum of k of the N ({@link #ACKED_BY_QUORUM}, Apache BookKeeper's ack quorum: the k-th highest
 * index the replicas acknowledged, see {@link ReplicationSource.Builder#ackQuorum(int)}), and by every replica
 * connected at the time ({@link #ACKED_BY_ALL}). Each has an {@code _OR_SYNCED} form that falls back to the local
 * disk while the acknowledgement cannot come: no replica connected, or fewer than k. With one replica the three
 * forms are the same. The ordinals travel in the publish gateway's PUBLISH frame: constants are only ever added at
 * the end.
 * <p>
 * While the source's acknowledgements are {@link ReplicationSource#holdAcknowledgements() held} (a primary that
 * cannot reach its coordinator and may have been deposed), no stage from {@link #ACKED} on is reached: an
 * {@code _OR_SYNCED} stage does not fall back to a sync, and an excerpt the sync policy synced does not count for
 * it. {@link #PUBLISHED}, {@link #WRITTEN} and {@link #SYNCED} are not affected.
 */
public enum CommitStage {
    /**
     * Visible in memory to readers of this machine. An append to a queue returns only once its excerpt is in the
     * mapped file, so this is complete when the append returns; the publish gateway's client completes it when its
     * message is handed to the socket.
     */
    PUBLISHED(Acks.NONE, false),
    /** In the local queue's mapped file: survives the writer's process, not the machine. Complete when the append returns. */
    WRITTEN(Acks.NONE, false),
    /** On the local disk: flushed with {@code msync(MS_SYNC)}, by this writer's appender if need be. */
    SYNCED(Acks.NONE, true),
    /** In the queue of at least one replica (or on its disk, if the sink acks synced): survives this machine. */
    ACKED(Acks.ANY, false),
    /**
     * {@link #ACKED} while a replica is connected, else {@link #SYNCED}: the replica's acknowledgement costs about
     * one network round trip, a local sync typically far more, and when every replica is away the disk is the
     * fallback.
     */
    ACKED_OR_SYNCED(Acks.ANY, true),
    /** In the queues of k replicas, k the source's {@link ReplicationSource.Builder#ackQuorum(int) ack quorum}. */
    ACKED_BY_QUORUM(Acks.QUORUM, false),
    /** {@link #ACKED_BY_QUORUM} while at least k replicas are connected, else {@link #SYNCED}. */
    ACKED_BY_QUORUM_OR_SYNCED(Acks.QUORUM, true),
    /**
     * In the queue of every replica connected when checked (at least one): a replica that connects while a write
     * waits joins the ones that must acknowledge it, one that leaves no longer holds it back.
     */
    ACKED_BY_ALL(Acks.ALL, false),
    /** {@link #ACKED_BY_ALL} while a replica is connected, else {@link #SYNCED}. */
    ACKED_BY_ALL_OR_SYNCED(Acks.ALL, true);

    /** Every stage by ordinal, made once: a lookup allocates nothing. */
    private static final CommitStage[] STAGES = values();

    /** Which acknowledgements a stage waits for. */
    private enum Acks { NONE, ANY, QUORUM, ALL }

    private final Acks acks;
    /** {@link #SYNCED}, or an acknowledged stage that falls back to a sync. */
    private final boolean sync;

    CommitStage(final Acks acks, final boolean sync) {
        this.acks = acks;
        this.sync = sync;
    }

    /** @return the stage of that ordinal, as a PUBLISH frame carries it (checked there). */
    static CommitStage of(final int ordinal) {
        return STAGES[ordinal];
    }

    /**
     * @param acks the source's acknowledgements, or null if there is no source: then no acknowledgement ever comes.
     * @return true if this stage is {@link #SYNCED}, or falls back to a sync now because its acknowledgement cannot
     * come: too few replicas connected; never while the source's acknowledgements are
     * {@link ReplicationSource#holdAcknowledgements() held}.
     */
    boolean syncsNow(final ReplicaAcks acks) {
        if (!sync) {
            return false;
        }
        switch (this.acks) {
            case NONE:
                return true;
            case QUORUM:
                return acks == null || !acks.held() && acks.connectedCount() < acks.quorum();
            default:
                return acks == null || !acks.held() && acks.connectedCount() == 0;
        }
    }

    /**
     * @param index  the write's index.
     * @param acks   the source's acknowledgements, or null if there is none.
     * @param synced the queue's last synced index.
     * @return true if the write has reached this stage; never waits. A stage that waits for acknowledgements is not
     * reached while they are {@link ReplicationSource#holdAcknowledgements() held}, even if the index was synced.
     */
    boolean isReached(final long index, final ReplicaAcks acks, final long synced) {
        if (this.acks == Acks.NONE) {
            return sync ? synced >= index : index >= 0;
        }
        if (acks == null) {
            return sync && synced >= index;
        }
        if (acks.held()) {
            return false;
        }
        if (sync && synced >= index) {
            return true;
        }
        switch (this.acks) {
            case ANY:
                return acks.byAny() >= index;
            case QUORUM:
                return acks.byQuorum() >= index;
            default:
                return acks.byAll() >= index;
        }
    }
}
