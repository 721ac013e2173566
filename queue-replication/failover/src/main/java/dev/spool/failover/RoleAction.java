package dev.spool.failover;

/**
 * What a node does after one look at the cluster: the one action {@link RoleMachine#step} chooses, which the node's
 * duty then carries out. Each names what the node does, not what it saw.
 */
enum RoleAction {
    /** Nothing to do: a primary with its session, a follower in step, a node without a connection. */
    IDLE,
    /** Leaves the election, makes its queue a replica of the primary's term and starts its sink. */
    FOLLOW,
    /** Its sink stopped with an error that is not a divergence: it starts it again. */
    RESTART_SINK,
    /**
     * The primary refused its replica as diverged: it marks itself rebuilding, sets its directory aside (kept, never
     * merged) and starts its sink on an empty one.
     */
    REBUILD,
    /** A rebuilding follower now holds what its primary held when it connected: it clears its rebuilding mark. */
    REBUILT,
    /** Stops following, reads how far its queue goes and tells the others, as a candidate of the next election. */
    STAND,
    /** A candidate that may not promote now: it leaves the leader latch and waits ({@link RoleMachine#waitingFor}). */
    WAIT,
    /** The candidate the rule chose joins the leader latch. */
    JOIN_LATCH,
    /** The chosen candidate waits for the leader latch, which another node holds: it keeps its place in it. */
    AWAIT_LATCH,
    /** The chosen candidate, holding the latch, takes the next term by compare-and-set and starts as primary. */
    PROMOTE,
    /** A primary whose ZooKeeper connection is suspended holds every acknowledgement until it is back. */
    HOLD,
    /** A holding primary whose connection came back in the same session acknowledges again. */
    RELEASE,
    /**
     * A primary whose session was lost, or whose term another node took, stops acknowledging and appending at once
     * (its acknowledgements held first), stops its services and says so in its znode.
     */
    FENCE
}
