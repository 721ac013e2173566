package dev.spool.failover;

import java.util.List;
import java.util.NavigableMap;

/**
 * What a node's duty read of the cluster and of itself for one step of its {@link RoleMachine}: from the cache of its
 * znodes, its ZooKeeper connection, its sink, its rebuilding mark, its leader latch and its clock. Plain data: the
 * machine reads nothing else.
 *
 * @param nowNs        the node's monotonic clock ({@link NodeConfig#nanoClock()}).
 * @param term         the cluster's term, as ZooKeeper holds it.
 * @param primary      the node whose znode says it is the primary of {@code term}, or null if none.
 * @param candidates   the other members standing, eligible, in the election after {@code term}.
 * @param promotedAt   by term, the last index its primary held when it was promoted.
 * @param connection   the node's ZooKeeper connection as last reported.
 * @param sessionsLost how many times the node's ZooKeeper session was lost since it started.
 * @param sink         the state of the node's sink.
 * @param caughtUp     true if the sink holds what its primary held when it connected.
 * @param rebuilding   true while the node's rebuilding mark exists.
 * @param candidacy    what this node told the others when it stood, or null if it does not stand.
 * @param latch        this node's place in the leader latch.
 */
record RoleSnapshot(long nowNs, long term, String primary, List<Candidate> candidates,
        NavigableMap<Long, Long> promotedAt, Connection connection, long sessionsLost, SinkStatus sink,
        boolean caughtUp, boolean rebuilding, Candidate candidacy, Latch latch) {

    /** The node's ZooKeeper connection. */
    enum Connection {
        /** Connected, or connected again within the same session. */
        CONNECTED,
        /** Suspended: the session may yet survive. */
        SUSPENDED,
        /** Lost: the session ended; {@link #sessionsLost} counted it. */
        LOST
    }

    /** The node's replication sink. */
    enum SinkStatus {
        /** The node runs no sink. */
        NONE,
        /** The sink runs. */
        RUNNING,
        /** The primary refused the replica as diverged. */
        DIVERGED,
        /** The sink stopped with another error. */
        FAILED
    }

    /** The node's place in the leader latch. */
    enum Latch {
        /** The node is not in the latch. */
        OUT,
        /** The node is in the latch, which another node holds. */
        WAITING,
        /** The node holds the latch. */
        LEADER
    }
}
