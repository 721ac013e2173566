package dev.spool.failover;

/**
 * A {@link ClusterNode} in JMX, as {@code dev.spool:type=ClusterNode,name="<node id>"}, and through
 * {@link ClusterNode#metrics()}: its role and term, why a candidate does not promote, how far its queue goes and how
 * far behind it is, and the session ZooKeeper granted it, for a dashboard or an alert. The indices are those the
 * node's duty last read, at most 50 ms ago; they keep their last values after close.
 */
public interface ClusterNodeMXBean {
    /** @return {@link ClusterNode#state()}, by name. */
    String getState();

    /** @return {@link ClusterNode#term()}. */
    long getTerm();

    /** @return {@link ClusterNode#waitingFor()}, or "" when the node is not waiting. */
    String getWaitingFor();

    /** @return {@link ClusterNode#promotions()}. */
    long getPromotions();

    /** @return {@link ClusterNode#holds()}. */
    long getHolds();

    /** @return {@link ClusterNode#directoriesSetAside()}. */
    long getDirectoriesSetAside();

    /**
     * @return the last index of the node's queue, -1 if empty: a primary's, a follower's replica's, the one a
     * candidate stood with, the one a fenced primary had written.
     */
    long getLastIndex();

    /** @return on the primary, the highest index k followers acknowledged (ACKED_BY_QUORUM); -1 on other nodes. */
    long getQuorumAckedIndex();

    /**
     * @return the primary's last index: on the primary its own; on a follower as the primary's znode last said it
     * (written at most once a second, so up to a second old); -1 if unknown.
     */
    long getPrimaryLastIndex();

    /**
     * @return how many excerpts the node is behind: on the primary, those after {@link #getQuorumAckedIndex()} (not
     * yet committed at ACKED_BY_QUORUM); on a follower, those after its {@link #getLastIndex()} up to
     * {@link #getPrimaryLastIndex()}. Exact within a cycle; across a roll it counts the later cycle's excerpts only,
     * a lower bound. 0 on a candidate or a fenced node.
     */
    long getLag();

    /**
     * @return true while the node rebuilds its queue from the primary (its directory was set aside, or it joined
     * empty after the cluster had a history): it stands in no election until it caught up.
     */
    boolean isRebuilding();

    /**
     * @return the session timeout ZooKeeper granted the node's current session, in milliseconds: the servers keep
     * it between 2 and 20 times their tickTime, whatever was asked; a dead primary is replaced about this long after
     * its last heartbeat.
     */
    long getSessionTimeoutMillis();

    /** @return the session timeout the node asked for ({@link ClusterNode.Builder#sessionTimeout}), in milliseconds. */
    long getRequestedSessionTimeoutMillis();
}
