package dev.spool.replication;

import dev.spool.queue.SpoolException;

/**
 * A replica holds excerpts its source lacks: the two term histories give an index the replica holds different terms
 * (so its excerpts from there on may differ from the source's, whatever its last one), or its last excerpt is not
 * the source's at that index (the source has none there, or another one), so the two histories diverge, typically
 * because this replica was a primary that wrote excerpts no replica acknowledged before another node was promoted. Nothing is merged: the source refused the
 * replica, and its {@link ReplicationSink} reports it as its {@link ReplicationSink#divergence()}. If the source is
 * the rightful primary, set the replica's directory aside (its excerpts are kept for a person to look at) and let a
 * new sink rebuild the replica from the primary. The message names the replica, the source and both indices.
 */
public final class ReplicaDivergedException extends SpoolException {
    private static final long serialVersionUID = 1L;
    /** The replica's last index, whose excerpt the source lacks. */
    private final long replicaLastIndex;
    /** The source's last index when it connected, -1 if it had none. */
    private final long sourceLastIndex;

    /**
     * @param message          what diverges, with both indices.
     * @param replicaLastIndex the replica's last index.
     * @param sourceLastIndex  the source's last index when it connected, -1 if it had none.
     */
    public ReplicaDivergedException(final String message, final long replicaLastIndex, final long sourceLastIndex) {
        super(message);
        this.replicaLastIndex = replicaLastIndex;
        this.sourceLastIndex = sourceLastIndex;
    }

    /** @return the replica's last index, whose excerpt the source lacks. */
    public long replicaLastIndex() {
        return replicaLastIndex;
    }

    /** @return the source's last index when it connected, -1 if it had none. */
    public long sourceLastIndex() {
        return sourceLastIndex;
    }
}
