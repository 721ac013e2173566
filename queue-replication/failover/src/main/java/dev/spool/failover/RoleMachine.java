package dev.spool.failover;

import dev.spool.failover.RoleSnapshot.Connection;
import dev.spool.failover.RoleSnapshot.Latch;
import dev.spool.failover.RoleSnapshot.SinkStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A node's role decisions, and nothing else: each {@link #step} takes what the node's duty read of the cluster and of
 * itself (a {@link RoleSnapshot}) and chooses the one {@link RoleAction} the node carries out next. The machine reads
 * no clock (the time comes in the snapshot) and does no I/O; the duty tells it what it carried out ({@link #followed},
 * {@link #stood}, {@link #promoted}, {@link #fenced}, {@link #held}, {@link #released}, {@link #closed}), and each of
 * those changes the state in {@link #transition}, the one place that does, which logs every change at INFO and
 * counts it.
 * <p>
 * A state changes only once its action was carried out: an action that failed (an exception, or a term another node
 * took first) leaves the state as it was, and the next step chooses again. {@link State#CLOSED} is terminal.
 */
final class RoleMachine {
    private static final Logger LOG = LoggerFactory.getLogger(RoleMachine.class);
    /** Nothing to do: one instance, as most steps choose it. */
    private static final Step IDLE = new Step(RoleAction.IDLE, -1, null);

    /** The node's role, with the primary's held acknowledgements as a state of their own. */
    enum State {
        /** Stands, or is about to stand, in the election after the cluster's term. */
        CANDIDATE,
        /** Copies the primary's queue through its sink. */
        FOLLOWER,
        /** Appends through its gateway and replicates. */
        PRIMARY,
        /** A primary whose ZooKeeper connection is suspended: it acknowledges nothing until it is back. */
        HOLDING,
        /** A primary that lost its session or its term: it refuses appends until it has a session again. */
        FENCED,
        /** The node was closed: it runs nothing, for good. */
        CLOSED;

        /** @return the state as {@link ClusterNode#state()} shows it: a holding primary is a primary. */
        NodeState nodeState() {
            switch (this) {
                case CANDIDATE:
                    return NodeState.CANDIDATE;
                case FOLLOWER:
                    return NodeState.FOLLOWER;
                case PRIMARY:
                case HOLDING:
                    return NodeState.PRIMARY;
                case FENCED:
                    return NodeState.FENCED;
                default:
                    return NodeState.CLOSED;
            }
        }
    }

    /**
     * One decision.
     *
     * @param action what the node does.
     * @param term   for {@link RoleAction#FOLLOW} the primary's term, for {@link RoleAction#STAND} the term whose
     *               successor is elected, for {@link RoleAction#PROMOTE} the term to take; otherwise the node's.
     * @param why    for {@link RoleAction#FENCE} and the waits, the reason; otherwise null.
     */
    record Step(RoleAction action, long term, String why) {
    }

    private final String me;
    private final int members;
    private final int ackQuorum;
    private final long warnAfterNs;
    private final String leaderPath;
    private final String rebuildingPath;
    private volatile State state = State.CANDIDATE;
    private volatile long term = -1;
    /** The term whose successor this node stands to be elected in, while a candidate; -1 otherwise. */
    private volatile long standingIn = -1;
    /** The sessions lost as of the last promotion or fence: one more means this primary's session is gone. */
    private long lostSeen;
    private volatile String waitingFor;
    private long waitingSinceNs;
    private boolean warnedWaiting;
    private volatile long promotions;
    private volatile long holds;
    private volatile long transitions;
    private volatile String lastTransition = "";

    /**
     * @param me             this node's id.
     * @param members        the number of members, this node among them.
     * @param ackQuorum      k: the followers whose acknowledgement commits at ACKED_BY_QUORUM.
     * @param warnAfterNs    how long a candidate waits for one reason before it is logged at WARN.
     * @param leaderPath     the leader latch's znode, to name in a reason.
     * @param rebuildingPath this node's rebuilding mark, to name in a reason.
     */
    RoleMachine(final String me, final int members, final int ackQuorum, final long warnAfterNs,
            final String leaderPath, final String rebuildingPath) {
        this.me = me;
        this.members = members;
        this.ackQuorum = ackQuorum;
        this.warnAfterNs = warnAfterNs;
        this.leaderPath = leaderPath;
        this.rebuildingPath = rebuildingPath;
    }

    /**
     * @param s what the node read.
     * @return the one action to carry out now.
     */
    Step step(final RoleSnapshot s) {
        switch (state) {
            case PRIMARY:
            case HOLDING:
                return primaryStep(s);
            case FENCED:
                if (s.connection() != Connection.CONNECTED) {
                    return idle();
                }
                transition(State.CANDIDATE, s.nowNs(), "it has a ZooKeeper session again and rejoins the cluster");
                standingIn = -1;
                return memberStep(s);
            case CANDIDATE:
            case FOLLOWER:
                return s.connection() != Connection.CONNECTED ? idle() : memberStep(s);
            default:
                return idle();
        }
    }

    private Step primaryStep(final RoleSnapshot s) {
        if (s.sessionsLost() != lostSeen) {
            return new Step(RoleAction.FENCE, term, "its ZooKeeper session was lost, so another node may be elected");
        }
        if (s.connection() != Connection.CONNECTED) {
            return state == State.PRIMARY ? new Step(RoleAction.HOLD, term, null) : idle();
        }
        if (state == State.HOLDING) {
            return new Step(RoleAction.RELEASE, term, null);
        }
        if (s.term() > term) {
            return new Step(RoleAction.FENCE, term, "term " + s.term() + " was taken in ZooKeeper by another node");
        }
        return idle();
    }

    private Step memberStep(final RoleSnapshot s) {
        if (s.primary() != null && !s.primary().equals(me)) {
            if (state != State.FOLLOWER || s.sink() == SinkStatus.NONE) {
                return new Step(RoleAction.FOLLOW, s.term(), null);
            }
            if (s.sink() == SinkStatus.DIVERGED) {
                return new Step(RoleAction.REBUILD, s.term(), null);
            }
            if (s.sink() == SinkStatus.FAILED) {
                return new Step(RoleAction.RESTART_SINK, s.term(), null);
            }
            return s.rebuilding() && s.caughtUp() ? new Step(RoleAction.REBUILT, term, null) : idle();
        }
        if (state != State.CANDIDATE || standingIn != s.term() || s.candidacy() == null) {
            return new Step(RoleAction.STAND, s.term(), null);
        }
        if (s.rebuilding()) {
            return waitFor(RoleAction.WAIT, "this node rebuilds its queue from the primary and holds none of what the"
                    + " cluster acknowledged until it has caught up (" + rebuildingPath + ")", s.nowNs());
        }
        final List<Candidate> candidates = new ArrayList<>(s.candidates().size() + 1);
        candidates.add(s.candidacy());
        candidates.addAll(s.candidates());
        final int needed = Election.candidatesNeeded(members, ackQuorum);
        if (candidates.size() < needed) {
            return waitFor(RoleAction.WAIT, candidates.size() + " of the " + needed + " candidates the rule needs"
                    + " answered (" + names(candidates) + "): a commit acknowledged by " + ackQuorum + " of "
                    + (members - 1) + " followers may be on a member that did not answer", s.nowNs());
        }
        final Candidate chosen = Election.choose(candidates, s.promotedAt());
        if (!chosen.nodeId().equals(me)) {
            return waitFor(RoleAction.WAIT, "candidate " + chosen.nodeId() + " (term " + chosen.term()
                    + ", last index " + chosen.lastIndex() + ") is chosen among " + names(candidates), s.nowNs());
        }
        if (s.latch() == Latch.OUT) {
            return new Step(RoleAction.JOIN_LATCH, term, null);
        }
        if (s.latch() == Latch.WAITING) {
            return waitFor(RoleAction.AWAIT_LATCH, "the leader latch " + leaderPath + ", held by another node",
                    s.nowNs());
        }
        // past this node's own term too: ZooKeeper's record may be younger than the queues (a cluster started again
        // on kept directories)
        return new Step(RoleAction.PROMOTE, Math.max(s.term(), s.candidacy().term()) + 1, null);
    }

    /** The node follows the primary of {@code primaryTerm}: its sink runs. */
    void followed(final long primaryTerm, final long nowNs) {
        if (transition(State.FOLLOWER, nowNs, "it follows the primary of term " + primaryTerm)) {
            term = primaryTerm;
            standingIn = -1;
            waitingFor = null;
        }
    }

    /** The node stands in the election after {@code election}, as {@code candidacy} told the others. */
    void stood(final long election, final Candidate candidacy, final long nowNs) {
        if (transition(State.CANDIDATE, nowNs, "it stands in the election after term " + election)) {
            term = candidacy.term();
            standingIn = election;
            waitingFor = null;
        }
    }

    /** The node took {@code newTerm} and runs as its primary; {@code sessionsLost} as it counts them now. */
    void promoted(final long newTerm, final long sessionsLost, final long nowNs) {
        if (transition(State.PRIMARY, nowNs, "it took term " + newTerm)) {
            term = newTerm;
            standingIn = -1;
            waitingFor = null;
            lostSeen = sessionsLost;
            promotions++;
        }
    }

    /** The primary fenced its queue and stopped its services; {@code sessionsLost} as it counts them now. */
    void fenced(final String why, final long sessionsLost, final long nowNs) {
        if (transition(State.FENCED, nowNs, why)) {
            lostSeen = sessionsLost;
        }
    }

    /** The primary holds its acknowledgements. */
    void held(final long nowNs) {
        if (transition(State.HOLDING, nowNs, "its ZooKeeper connection is suspended")) {
            holds++;
        }
    }

    /** The primary acknowledges again. */
    void released(final long nowNs) {
        transition(State.PRIMARY, nowNs, "its ZooKeeper connection is back in the same session");
    }

    /** The node's duty stopped and its services are closed. */
    void closed(final long nowNs) {
        transition(State.CLOSED, nowNs, "it was closed");
        waitingFor = null;
    }

    /**
     * The one place the state changes: logs the change at INFO, counts it and records it for JMX.
     *
     * @return false if the machine is closed, which no change leaves.
     */
    private boolean transition(final State next, final long nowNs, final String why) {
        final State from = state;
        if (from == State.CLOSED) {
            return false;
        }
        if (from != next) {
            transitions++;
            lastTransition = from + " -> " + next + " at " + nowNs + " ns: " + why;
            LOG.info("node {}: {} -> {} (term {}): {}", me, from, next, term, why);
            state = next;
        }
        return true;
    }

    /**
     * Records why this candidate does not promote: logged at INFO when the reason changes (an election passes
     * through several), and at WARN once it has held past {@code warnAfterNs}, when it is no longer a passing state.
     */
    private Step waitFor(final RoleAction action, final String why, final long nowNs) {
        if (!why.equals(waitingFor)) {
            waitingFor = why;
            waitingSinceNs = nowNs;
            warnedWaiting = false;
            LOG.info("node {} does not promote: {}", me, why);
        } else if (!warnedWaiting && nowNs - waitingSinceNs > warnAfterNs) {
            warnedWaiting = true;
            LOG.warn("node {} does not promote, for {} ms now: {}", me,
                    TimeUnit.NANOSECONDS.toMillis(nowNs - waitingSinceNs), why);
        }
        return new Step(action, term, why);
    }

    private static Step idle() {
        return IDLE;
    }

    private static String names(final List<Candidate> candidates) {
        return candidates.stream().map(Candidate::nodeId).collect(Collectors.joining(", "));
    }

    State state() {
        return state;
    }

    long term() {
        return term;
    }

    /** @return the term whose successor this node stands to be elected in, while a candidate; -1 otherwise. */
    long standingIn() {
        return standingIn;
    }

    String waitingFor() {
        return waitingFor;
    }

    long promotions() {
        return promotions;
    }

    long holds() {
        return holds;
    }

    long transitions() {
        return transitions;
    }

    /** @return the last change of state, "from -> to at time: why", or "" before the first. */
    String lastTransition() {
        return lastTransition;
    }
}
