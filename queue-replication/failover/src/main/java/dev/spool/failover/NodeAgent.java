package dev.spool.failover;

import dev.spool.failover.RoleSnapshot.Connection;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.replication.Failover;
import dev.spool.replication.ReplicationRole;
import dev.spool.replication.ReplicationSink;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's duty, run by Spool's agent host on the node's own thread. Each pass reads what the node knows into a
 * {@link RoleSnapshot} (the cache of its znodes, its connection, its sink, its latch, its clock), asks its
 * {@link RoleMachine} for the one action to take, and carries it out: follows the primary, stands as a candidate,
 * promotes, holds acknowledgements while a primary's connection is suspended, fences when its session is lost.
 * Every decision is the machine's; this class does the I/O. ZooKeeper's threads only record connection states.
 */
final class NodeAgent implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

    private final NodeConfig config;
    private final Znodes znodes;
    private final CuratorFramework client;
    private final String me;
    private final NanoClock clock;
    private final AtomicLong lostSessions = new AtomicLong();
    private final NodeStatus status;
    private final RebuildingMark rebuildingMark;
    private final ClusterView view;
    private final NodeServices services;
    private final RoleMachine machine;
    private volatile Connection connection = Connection.CONNECTED;
    private volatile long directoriesSetAside;
    private PersistentNode registration;
    /** What this node told the others when it last stood, until it follows or promotes. */
    private Candidate candidacy;
    /** The primary's last index as its znode last said, while following. */
    private long primaryLastIndex = -1;

    NodeAgent(final NodeConfig config, final Znodes znodes, final CuratorFramework client, final RebuildingMark mark) {
        this.config = config;
        this.rebuildingMark = mark;
        this.znodes = znodes;
        this.client = client;
        this.me = config.nodeId();
        this.clock = config.nanoClock();
        this.status = new NodeStatus(config, this);
        this.view = new ClusterView(config, znodes);
        this.services = new NodeServices(config, client, znodes.leader());
        this.machine = new RoleMachine(me, config.members().size(), config.ackQuorum(),
                config.sessionTimeout().toNanos(), znodes.leader(), mark.path());
    }

    NodeStatus status() {
        return status;
    }

    /** After the node's duty stopped and its services closed. */
    void closed() {
        machine.closed(clock.nanoTime());
    }

    void registration(final PersistentNode registration) {
        this.registration = registration;
    }

    void cache(final CuratorCache cache) {
        view.cache(cache);
    }

    /** On a ZooKeeper thread: records the state; the node's own pass acts on it. */
    void onConnectionState(final ConnectionState connectionState) {
        if (connectionState == ConnectionState.LOST) {
            lostSessions.incrementAndGet();
            connection = Connection.LOST;
        } else {
            connection = connectionState.isConnected() ? Connection.CONNECTED : Connection.SUSPENDED;
        }
    }

    NodeState state() {
        return machine.state().nodeState();
    }

    long term() {
        return machine.term();
    }

    String waitingFor() {
        return machine.waitingFor();
    }

    long promotions() {
        return machine.promotions();
    }

    long directoriesSetAside() {
        return directoriesSetAside;
    }

    long holds() {
        return machine.holds();
    }

    long transitions() {
        return machine.transitions();
    }

    String lastTransition() {
        return machine.lastTransition();
    }

    /** @return what this node's znode says now. */
    byte[] stateData() {
        final NodeState state = state();
        final boolean standing = candidacy != null && state == NodeState.CANDIDATE;
        return status.znodeData(state, standing ? candidacy.term() : term(), standing ? candidacy.lastIndex() : -1,
                machine.standingIn(), !rebuilding(), clock.nanoTime());
    }

    @Override
    public int doWork() {
        if (machine.state() == RoleMachine.State.CLOSED) {
            return 0;
        }
        final RoleSnapshot snapshot = snapshot();
        final int work = carryOut(machine.step(snapshot), snapshot);
        // a changed last index reaches ZooKeeper at most once a second, off every publish's path
        if (status.refresh(state(), services.queue(), services.sink(), candidacy, primaryLastIndex, rebuilding(),
                clock.nanoTime()) && connection == Connection.CONNECTED) {
            publish();
        }
        return work;
    }

    @Override
    public String roleName() {
        return "spool-cluster-node";
    }

    private RoleSnapshot snapshot() {
        final long current = view.currentTerm();
        final Map<String, Map<String, String>> nodes = view.nodes();
        final String primary = ClusterView.primaryOf(nodes, current);
        if (primary != null && !primary.equals(me)) {
            primaryLastIndex = Znodes.number(znodes.node(primary), "lastIndex", nodes.get(primary).get("lastIndex"));
        }
        return new RoleSnapshot(clock.nanoTime(), current, primary, view.candidates(nodes, current), view.promotedAt(),
                connection, lostSessions.get(), services.sinkStatus(), services.sinkCaughtUp(), rebuilding(),
                candidacy, services.latch());
    }

    private int carryOut(final RoleMachine.Step step, final RoleSnapshot snapshot) {
        switch (step.action()) {
            case FOLLOW:
                follow(snapshot.primary(), step.term());
                return 1;
            case RESTART_SINK:
                restartSink();
                return 1;
            case REBUILD:
                rebuild(snapshot.primary(), step.term());
                return 1;
            case REBUILT:
                rebuilt(snapshot.primary());
                return 1;
            case STAND:
                stand(step.term());
                return 1;
            case WAIT:
                services.leaveLatch();
                return 0;
            case JOIN_LATCH:
                services.joinLatch();
                return 1;
            case PROMOTE:
                return promote(snapshot.term(), step.term()) ? 1 : 0;
            case HOLD:
                hold();
                return 1;
            case RELEASE:
                release();
                return 1;
            case FENCE:
                fence(step.why());
                return 1;
            default:
                return 0;
        }
    }

    private void hold() {
        services.source().holdAcknowledgements();
        machine.held(clock.nanoTime());
        LOG.warn("primary {} of term {}: its ZooKeeper connection is suspended; it acknowledges no commit until"
                + " the connection is back, and fences itself if the session is lost", me, term());
    }

    private void release() {
        machine.released(clock.nanoTime());
        services.source().releaseAcknowledgements();
        LOG.info("primary {} of term {}: its ZooKeeper connection is back in the same session; it acknowledges"
                + " again", me, term());
    }

    /**
     * Stops acknowledging and appending, at once, then stops the services. What the queue holds after its last
     * acknowledged index is never merged: when the node rejoins, the primary compares the two term histories, and if
     * this queue holds an excerpt of this term at an index where the new primary's history names a later term, the
     * replica is refused as diverged, whatever its last excerpt, and {@link #rebuild} sets it aside and rebuilds it.
     */
    private void fence(final String why) {
        if (services.source() != null) {
            services.source().holdAcknowledgements();
        }
        final SpoolQueue queue = services.queue();
        final long term = term();
        final QueueInternals internals = queue.unwrap(QueueInternals.class);
        final long lastAcked = internals.quorumAckedIndex();
        final long last = queue.lastIndex();
        internals.fence(term + 1);
        status.fenced(last);
        LOG.error("primary {} of term {} fenced its queue {}: {}. Acknowledged by a quorum up to {}; written up to {}:"
                + " what lies after the acknowledged index is never merged: when the node rejoins, the new primary"
                + " compares term histories, and if this queue holds excerpts of term {} where the new primary's are"
                + " of a later term, the directory is set aside as {}.diverged-term-<n> and rebuilt from the primary",
                me, term, config.directory(), why, IndexFormat.format(lastAcked, queue.rollCycle()),
                IndexFormat.format(last, queue.rollCycle()), term, config.directory().getFileName());
        services.stopAll();
        machine.fenced(why, lostSessions.get(), clock.nanoTime());
        try {
            publish();
        } catch (SpoolException e) {
            // recorded locally all the same: the znode is created again with it when a session is back
            LOG.debug("node {} will publish its fence when ZooKeeper is back: {}", me, e.getMessage());
        }
    }

    /** Stops following, tells the others how far this node's replica goes, and stands in the election of a term. */
    private void stand(final long current) {
        services.closeSink();
        try (SpoolQueue local = LocalQueue.open(config)) {
            candidacy = new Candidate(me, Failover.term(local), local.lastIndex());
            demote(local, current + 1);
        }
        machine.stood(current, candidacy, clock.nanoTime());
        publish();
        LOG.info("node {} stands in the election after term {}: its queue is of term {} and ends at {}", me, current,
                candidacy.term(), candidacy.lastIndex());
    }

    private boolean promote(final long current, final long next) {
        final Stat stat = new Stat();
        final long recorded;
        try {
            recorded = view.termOf(client.getData().storingStatIn(stat).forPath(znodes.term()));
        } catch (Exception e) {
            throw new SpoolException("node " + me + " could not read " + znodes.term() + ": " + e, e);
        }
        if (recorded != current) {
            return false;
        }
        final SpoolQueue queue = services.openQueue();
        try {
            final Map<String, String> promotion = new LinkedHashMap<>();
            promotion.put("node", me);
            promotion.put("lastIndex", Long.toString(queue.lastIndex()));
            final CuratorOp setTerm = client.transactionOp().setData().withVersion(stat.getVersion())
                    .forPath(znodes.term(), Znodes.encode(Znodes.TERM_FORMAT, Map.of("term", Long.toString(next))));
            final CuratorOp record = client.transactionOp().create()
                    .forPath(znodes.termOf(next), Znodes.encode(Znodes.PROMOTION_FORMAT, promotion));
            client.transaction().forOperations(setTerm, record);
        } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException e) {
            services.closeQueue();
            LOG.info("node {} did not take term {}: another node took it first", me, next);
            return false;
        } catch (Exception e) {
            services.closeQueue();
            throw new SpoolException("node " + me + " could not take term " + next + " at " + znodes.term() + ": "
                    + e, e);
        }
        Failover.promote(queue, next);
        services.startPrimary();
        candidacy = null;
        machine.promoted(next, lostSessions.get(), clock.nanoTime());
        publish();
        LOG.info("node {} is the primary of term {} of {}, from index {}; its gateway listens on {}", me, next,
                config.queueId(), IndexFormat.format(queue.lastIndex(), queue.rollCycle()),
                services.gateway().address());
        return true;
    }

    private void follow(final String primary, final long current) {
        services.leaveLatch();
        try (SpoolQueue local = LocalQueue.open(config)) {
            demote(local, current);
        }
        services.startSink();
        // the primary's term: the replica takes it when that primary's source has checked its history
        machine.followed(current, clock.nanoTime());
        candidacy = null;
        publish();
        LOG.info("node {} follows {}, the primary of term {}", me, primary, current);
    }

    /**
     * A primary, or a fenced one, becomes a replica that keeps its term: the sink raises it once the new primary's
     * source has checked its history, so that a tail no replica acknowledged never ranks as a later term's.
     *
     * @param laterTerm the term of the primary to follow, or the term the next primary will have.
     */
    private static void demote(final SpoolQueue local, final long laterTerm) {
        if (Failover.role(local) != ReplicationRole.REPLICA) {
            Failover.demote(local, Math.max(laterTerm, Failover.term(local) + 1));
        }
    }

    /** A follower whose replica the primary refused as divergent sets its directory aside and starts afresh. */
    private void rebuild(final String primary, final long current) {
        final Throwable failure = services.sink().divergence();
        services.closeSink();
        // marked first: a crash while the directory moves leaves a node that stands in no election
        rebuildingMark.mark("its directory was set aside: it held excerpts " + primary + ", the primary of term "
                + current + ", lacks");
        final Path aside = LocalQueue.moveAside(config, current);
        directoriesSetAside++;
        LOG.error("node {} holds excerpts that {}, the primary of term {}, lacks or holds of another term ({}):"
                + " its directory is set aside as {}, kept and never merged, and its queue is rebuilt from the"
                + " primary", me, primary, current, failure.getMessage(), aside);
        LocalQueue.prepare(config);
        services.startSink();
    }

    private void restartSink() {
        final Throwable failure = services.sink().failure();
        services.closeSink();
        LOG.warn("node {}: its sink stopped ({}); it starts again", me, failure.toString());
        services.startSink();
    }

    /** A rebuilding follower that holds what its primary held when it connected may stand in elections again. */
    private void rebuilt(final String primary) {
        final ReplicationSink sink = services.sink();
        rebuildingMark.clear();
        LOG.info("node {} has rebuilt its queue from {} up to {}: it stands in elections again", me, primary,
                sink.lastIndexText());
        publish();
    }

    private boolean rebuilding() {
        return rebuildingMark.isMarked(view.cache());
    }

    private void publish() {
        try {
            registration.setData(stateData());
        } catch (Exception e) {
            throw new SpoolException("node " + me + " could not update " + znodes.node(me) + ": " + e, e);
        }
    }

    /** Stops whatever runs: the gateway, the source and the queue of a primary, the sink of a follower, the latch. */
    void stopServices() {
        services.stopAll();
    }
}
