package dev.spool.failover;

/** What a {@link ClusterNode} is doing now. */
public enum NodeState {
    /** Copying the primary's queue through its replication sink. */
    FOLLOWER,
    /**
     * No primary of the current term is alive: the node's sink is stopped and it told the others how far its replica
     * goes; the chosen one becomes the primary.
     */
    CANDIDATE,
    /** Appending through its publish gateway and replicating to the followers. */
    PRIMARY,
    /**
     * Was the primary and lost its ZooKeeper session: its queue refuses appends and it acknowledges nothing; it
     * rejoins as a follower once it has a session again.
     */
    FENCED,
    /** {@link ClusterNode#close()} was called: the node left the cluster and runs nothing. */
    CLOSED
}
