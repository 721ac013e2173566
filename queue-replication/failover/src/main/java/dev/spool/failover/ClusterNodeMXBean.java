package dev.spool.failover;

/**
 * A {@link ClusterNode} in JMX, as {@code dev.spool:type=ClusterNode,name="<node id>"}: its role and term, and why a
 * candidate does not promote, for a dashboard or an alert.
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
}
