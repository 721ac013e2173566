package dev.spool.failover;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.replication.Failover;
import dev.spool.replication.PublishGateway;
import dev.spool.replication.ReplicaDivergedException;
import dev.spool.replication.ReplicationRole;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * The node's duty, run by Spool's agent host on the node's own thread: each pass reads the cluster's state from the
 * cache of its znodes and acts on it: follows the primary, stands as a candidate when there is none, promotes when
 * the election rule chooses this node, holds acknowledgements while a primary's connection is suspended, and fences
 * when its session is lost. Every change of role happens on this thread; ZooKeeper's threads only record connection
 * states.
 */
final class NodeAgent implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

    private final NodeConfig config;
    private final Znodes znodes;
    private final CuratorFramework client;
    private final String me;
    private final AtomicLong lostSessions = new AtomicLong();
    private final Set<String> unreadable = new HashSet<>();
    private final NodeStatus status;
    private final NodeMBeans mbeans;
    private final RebuildingMark rebuildingMark;
    private volatile boolean suspended;
    private volatile boolean connected = true;
    private volatile NodeState state = NodeState.CANDIDATE;
    private volatile long term = -1;
    private volatile String waitingFor;
    private volatile long promotions;
    private volatile long directoriesSetAside;
    private volatile long holds;
    private CuratorCache cache;
    private PersistentNode registration;
    private long lostSeen;
    /** The term of the election this node stands in, while a candidate; -1 otherwise. */
    private long standingIn = -1;
    private Candidate candidacy;
    private LeaderLatch latch;
    private ReplicationSink sink;
    private SpoolQueue queue;
    private ReplicationSource source;
    private PublishGateway gateway;
    private boolean held;
    private final NanoClock clock = SystemNanoClock.INSTANCE;
    private long waitingSinceNs;
    private boolean warnedWaiting;
    /** The primary's last index as its znode last said, while following. */
    private long primaryLastIndex = -1;

    NodeAgent(final NodeConfig config, final Znodes znodes, final CuratorFramework client, final RebuildingMark mark) {
        this.config = config;
        this.rebuildingMark = mark;
        this.znodes = znodes;
        this.client = client;
        this.me = config.nodeId();
        this.status = new NodeStatus(config, this);
        this.mbeans = new NodeMBeans(config);
    }

    NodeStatus status() {
        return status;
    }

    /** After the node's duty stopped and its services closed. */
    void closed() {
        state = NodeState.CLOSED;
        waitingFor = null;
    }

    void registration(final PersistentNode registration) {
        this.registration = registration;
    }

    void cache(final CuratorCache cache) {
        this.cache = cache;
    }

    /** On a ZooKeeper thread: records the state; the node's own pass acts on it. */
    void onConnectionState(final ConnectionState connectionState) {
        if (connectionState == ConnectionState.LOST) {
            lostSessions.incrementAndGet();
        }
        suspended = connectionState == ConnectionState.SUSPENDED || connectionState == ConnectionState.LOST;
        connected = connectionState.isConnected();
    }

    NodeState state() {
        return state;
    }

    long term() {
        return term;
    }

    String waitingFor() {
        return waitingFor;
    }

    long promotions() {
        return promotions;
    }

    long directoriesSetAside() {
        return directoriesSetAside;
    }

    long holds() {
        return holds;
    }

    /** @return what this node's znode says now. */
    byte[] stateData() {
        final boolean standing = candidacy != null && state == NodeState.CANDIDATE;
        return status.znodeData(state, standing ? candidacy.term() : term, standing ? candidacy.lastIndex() : -1,
                standingIn, !rebuilding(), clock.nanoTime());
    }

    @Override
    public int doWork() {
        if (state == NodeState.CLOSED) {
            return 0;
        }
        final int work = pass();
        // a changed last index reaches ZooKeeper at most once a second, off every publish's path
        if (status.refresh(state, queue, sink, candidacy, primaryLastIndex, rebuilding(), clock.nanoTime())
                && connected && !suspended) {
            publish();
        }
        return work;
    }

    private int pass() {
        if (state == NodeState.PRIMARY) {
            return primaryPass();
        }
        if (!connected) {
            return 0;
        }
        if (state == NodeState.FENCED) {
            LOG.info("node {} has a ZooKeeper session again: it rejoins the cluster of {}", me, config.queueId());
            state = NodeState.CANDIDATE;
            standingIn = -1;
        }
        return memberPass();
    }

    @Override
    public String roleName() {
        return "spool-cluster-node";
    }

    private int primaryPass() {
        final long lost = lostSessions.get();
        if (lost != lostSeen) {
            lostSeen = lost;
            fence("its ZooKeeper session was lost, so another node may be elected");
            return 1;
        }
        if (suspended && !held) {
            source.holdAcknowledgements();
            held = true;
            holds++;
            LOG.warn("primary {} of term {}: its ZooKeeper connection is suspended; it acknowledges no commit until"
                    + " the connection is back, and fences itself if the session is lost", me, term);
            return 1;
        }
        if (!suspended && held) {
            held = false;
            source.releaseAcknowledgements();
            LOG.info("primary {} of term {}: its ZooKeeper connection is back in the same session; it acknowledges"
                    + " again", me, term);
            return 1;
        }
        if (!suspended && currentTerm() > term) {
            fence("term " + currentTerm() + " was taken in ZooKeeper by another node");
            return 1;
        }
        return 0;
    }

    /**
     * Stops acknowledging and appending, at once, then stops the services. What the queue holds after its last
     * acknowledged index is never merged: when the node rejoins, the primary compares the two term histories, and if
     * this queue holds an excerpt of this term at an index where the new primary's history names a later term, the
     * replica is refused as diverged, whatever its last excerpt, and {@link #checkSink} sets it aside and rebuilds it.
     */
    private void fence(final String why) {
        if (source != null) {
            source.holdAcknowledgements();
        }
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
        stopServices();
        state = NodeState.FENCED;
        lostSeen = lostSessions.get();
        try {
            publish();
        } catch (SpoolException e) {
            // recorded locally all the same: the znode is created again with it when a session is back
            LOG.debug("node {} will publish its fence when ZooKeeper is back: {}", me, e.getMessage());
        }
    }

    private int memberPass() {
        final long current = currentTerm();
        final Map<String, Map<String, String>> nodes = nodes();
        final String primary = primaryOf(nodes, current);
        if (primary != null && !primary.equals(me)) {
            leaveLatch();
            primaryLastIndex = Znodes.number(znodes.node(primary), "lastIndex", nodes.get(primary).get("lastIndex"));
            if (state != NodeState.FOLLOWER || sink == null) {
                follow(primary, current);
                return 1;
            }
            return checkSink(primary, current);
        }
        if (state != NodeState.CANDIDATE || standingIn != current) {
            stand(current);
            return 1;
        }
        if (rebuilding()) {
            leaveLatch();
            waiting("this node rebuilds its queue from the primary and holds none of what the cluster acknowledged"
                    + " until it has caught up (" + rebuildingMark.path() + ")");
            return 0;
        }
        final List<Candidate> candidates = candidates(nodes, current);
        final int needed = Election.candidatesNeeded(config.members().size(), config.ackQuorum());
        if (candidates.size() < needed) {
            leaveLatch();
            waiting(candidates.size() + " of the " + needed + " candidates the rule needs answered (" + names(candidates)
                    + "): a commit acknowledged by " + config.ackQuorum() + " of " + (config.members().size() - 1)
                    + " followers may be on a member that did not answer");
            return 0;
        }
        final Candidate chosen = Election.choose(candidates, promotedAt());
        if (!chosen.nodeId().equals(me)) {
            leaveLatch();
            waiting("candidate " + chosen.nodeId() + " (term " + chosen.term() + ", last index " + chosen.lastIndex()
                    + ") is chosen among " + names(candidates));
            return 0;
        }
        if (latch == null) {
            latch = new LeaderLatch(client, znodes.leader(), me);
            try {
                latch.start();
            } catch (Exception e) {
                throw new SpoolException("node " + me + " could not join the leader latch " + znodes.leader() + ": "
                        + e, e);
            }
        }
        if (!latch.hasLeadership()) {
            waiting("the leader latch " + znodes.leader() + ", held by another node");
            return 0;
        }
        return promote(current) ? 1 : 0;
    }

    /** Stops following, tells the others how far this node's replica goes, and stands in the election of a term. */
    private void stand(final long current) {
        closeSink();
        try (SpoolQueue local = LocalQueue.open(config)) {
            candidacy = new Candidate(me, Failover.term(local), local.lastIndex());
            demote(local, current + 1);
        }
        term = candidacy.term();
        state = NodeState.CANDIDATE;
        standingIn = current;
        waitingFor = null;
        publish();
        LOG.info("node {} stands in the election after term {}: its queue is of term {} and ends at {}", me, current,
                candidacy.term(), candidacy.lastIndex());
    }

    private boolean promote(final long current) {
        final Stat stat = new Stat();
        final long recorded;
        try {
            recorded = termOf(client.getData().storingStatIn(stat).forPath(znodes.term()));
        } catch (Exception e) {
            throw new SpoolException("node " + me + " could not read " + znodes.term() + ": " + e, e);
        }
        if (recorded != current) {
            return false;
        }
        // past this node's own term too: ZooKeeper's record may be younger than the queues (a cluster started again
        // on kept directories)
        final long next = Math.max(current, candidacy.term()) + 1;
        queue = LocalQueue.open(config);
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
            queue.close();
            queue = null;
            LOG.info("node {} did not take term {}: another node took it first", me, next);
            return false;
        } catch (Exception e) {
            queue.close();
            queue = null;
            throw new SpoolException("node " + me + " could not take term " + next + " at " + znodes.term() + ": "
                    + e, e);
        }
        Failover.promote(queue, next);
        term = next;
        startPrimaryServices();
        state = NodeState.PRIMARY;
        standingIn = -1;
        candidacy = null;
        waitingFor = null;
        held = false;
        lostSeen = lostSessions.get();
        promotions++;
        publish();
        LOG.info("node {} is the primary of term {} of {}, from index {}; its gateway listens on {}", me, next,
                config.queueId(), IndexFormat.format(queue.lastIndex(), queue.rollCycle()), gateway.address());
        return true;
    }

    private void startPrimaryServices() {
        final List<InetSocketAddress> followers = new ArrayList<>();
        for (final Member member : config.members()) {
            if (!member.nodeId().equals(me)) {
                followers.add(member.replication());
            }
        }
        final ReplicationSource.Builder sourceBuilder = ReplicationSource.builder(queue, followers.get(0),
                followers.subList(1, followers.size()).toArray(new InetSocketAddress[0])).ackQuorum(config.ackQuorum())
                // the followers start their sinks once they see this node is primary: every pause past that is
                // failover time
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100))
                // a follower refused as divergent sets its directory aside and listens again, empty
                .retryDivergedSinks();
        source = (config.insecure() ? sourceBuilder.insecure() : sourceBuilder.sharedSecret(config.replicationSecret()))
                .start();
        final PublishGateway.Builder gatewayBuilder = PublishGateway.builder(queue, source)
                .bindAddress(config.self().gateway().getAddress()).port(config.self().gateway().getPort());
        gateway = (config.insecure() ? gatewayBuilder.insecure() : gatewayBuilder.sharedSecret(config.clientSecret()))
                .start();
        mbeans.primary(queue, source, gateway);
    }

    private void follow(final String primary, final long current) {
        try (SpoolQueue local = LocalQueue.open(config)) {
            demote(local, current);
        }
        // the primary's: the replica takes it when that primary's source has checked its history
        term = current;
        startSink();
        state = NodeState.FOLLOWER;
        standingIn = -1;
        candidacy = null;
        waitingFor = null;
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

    private void startSink() {
        final ReplicationSink.Builder builder = ReplicationSink.builder(config.directory())
                .bindAddress(config.replicationListen().getAddress()).port(config.replicationListen().getPort())
                .queueSettings(config.queueSettings());
        sink = (config.insecure() ? builder.insecure() : builder.sharedSecret(config.replicationSecret())).start();
        mbeans.sink(sink);
    }

    /** A follower whose replica the primary refused as divergent sets its directory aside and starts afresh. */
    private int checkSink(final String primary, final long current) {
        final ReplicaDivergedException divergence = sink.divergence();
        final Throwable failure = divergence != null ? divergence : sink.failure();
        if (failure == null) {
            return rebuilding() ? checkCaughtUp(primary) : 0;
        }
        closeSink();
        if (divergence != null) {
            // marked first: a crash while the directory moves leaves a node that stands in no election
            rebuildingMark.mark("its directory was set aside: it held excerpts " + primary + ", the primary of term "
                    + current + ", lacks");
            final Path aside = LocalQueue.moveAside(config, current);
            directoriesSetAside++;
            LOG.error("node {} holds excerpts that {}, the primary of term {}, lacks or holds of another term ({}):"
                    + " its directory is set aside as {}, kept and never merged, and its queue is rebuilt from the"
                    + " primary", me, primary, current, failure.getMessage(), aside);
            LocalQueue.prepare(config);
        } else {
            LOG.warn("node {}: its sink stopped ({}); it starts again", me, failure.toString());
        }
        startSink();
        return 1;
    }

    /** A rebuilding follower that holds what its primary held when it connected may stand in elections again. */
    private int checkCaughtUp(final String primary) {
        final long target = sink.sourceLastIndex();
        if (target < -1 || sink.lastIndex() < target) {
            return 0;
        }
        rebuildingMark.clear();
        LOG.info("node {} has rebuilt its queue from {} up to {}: it stands in elections again", me, primary,
                sink.lastIndexText());
        publish();
        return 1;
    }

    private boolean rebuilding() {
        return rebuildingMark.isMarked(cache);
    }

    private void publish() {
        try {
            registration.setData(stateData());
        } catch (Exception e) {
            throw new SpoolException("node " + me + " could not update " + znodes.node(me) + ": " + e, e);
        }
    }

    /**
     * Records why this candidate does not promote: logged at INFO when the reason changes (an election passes
     * through several), and at WARN once it has held for a session timeout, when it is no longer a passing state.
     */
    private void waiting(final String why) {
        final long now = clock.nanoTime();
        if (!why.equals(waitingFor)) {
            waitingFor = why;
            waitingSinceNs = now;
            warnedWaiting = false;
            LOG.info("node {} does not promote: {}", me, why);
        } else if (!warnedWaiting && now - waitingSinceNs > config.sessionTimeout().toNanos()) {
            warnedWaiting = true;
            LOG.warn("node {} does not promote, for {} ms now: {}", me,
                    TimeUnit.NANOSECONDS.toMillis(now - waitingSinceNs), why);
        }
    }

    private long currentTerm() {
        final Optional<ChildData> data = cache.get(znodes.term());
        if (data.isEmpty()) {
            throw new SpoolException("znode " + znodes.term() + " is missing: the cluster's term was removed from"
                    + " ZooKeeper by something other than Spool");
        }
        return termOf(data.get().getData());
    }

    private long termOf(final byte[] data) {
        final Map<String, String> fields = Znodes.decode(znodes.term(), data, Znodes.TERM_FORMAT, "term");
        return Znodes.number(znodes.term(), "term", fields.get("term"));
    }

    /** @return by term, the last index its primary held when promoted. */
    private NavigableMap<Long, Long> promotedAt() {
        final NavigableMap<Long, Long> promoted = new TreeMap<>();
        final String prefix = znodes.terms() + "/";
        cache.stream().filter(data -> data.getPath().startsWith(prefix)).forEach(data -> {
            final String path = data.getPath();
            final Map<String, String> fields = readable(path, data.getData(), Znodes.PROMOTION_FORMAT, "lastIndex");
            if (fields != null) {
                promoted.put(Znodes.number(path, "term", path.substring(prefix.length())),
                        Znodes.number(path, "lastIndex", fields.get("lastIndex")));
            }
        });
        return promoted;
    }

    /** @return the state of every registered node, by id; a znode that is not a node's is logged and skipped. */
    private Map<String, Map<String, String>> nodes() {
        final Map<String, Map<String, String>> nodes = new TreeMap<>();
        final String prefix = znodes.nodes() + "/";
        cache.stream().filter(data -> data.getPath().startsWith(prefix)).forEach(data -> {
            final Map<String, String> fields = readable(data.getPath(), data.getData(), Znodes.NODE_FORMAT, "node",
                    "state", "term", "lastIndex", "election");
            if (fields != null) {
                nodes.put(data.getPath().substring(prefix.length()), fields);
            }
        });
        return nodes;
    }

    private Map<String, String> readable(final String path, final byte[] data, final String format,
            final String... keys) {
        try {
            final Map<String, String> fields = Znodes.decode(path, data, format, keys);
            unreadable.remove(path);
            return fields;
        } catch (SpoolException e) {
            if (unreadable.add(path)) {
                LOG.error("node {} ignores {}", me, e.getMessage());
            }
            return null;
        }
    }

    private static String primaryOf(final Map<String, Map<String, String>> nodes, final long current) {
        for (final Map.Entry<String, Map<String, String>> node : nodes.entrySet()) {
            final Map<String, String> fields = node.getValue();
            if (NodeState.PRIMARY.name().equals(fields.get("state"))
                    && Long.toString(current).equals(fields.get("term"))) {
                return node.getKey();
            }
        }
        return null;
    }

    /** @return the candidates of the election after {@code current}: this node's own candidacy and the others'. */
    private List<Candidate> candidates(final Map<String, Map<String, String>> nodes, final long current) {
        final List<Candidate> candidates = new ArrayList<>();
        candidates.add(candidacy);
        nodes.forEach((id, fields) -> {
            if (!id.equals(me) && NodeState.CANDIDATE.name().equals(fields.get("state"))
                    && Long.toString(current).equals(fields.get("election")) && isMember(id)
                    && !"false".equals(fields.get("eligible"))) {
                final String path = znodes.node(id);
                candidates.add(new Candidate(id, Znodes.number(path, "term", fields.get("term")),
                        Znodes.number(path, "lastIndex", fields.get("lastIndex"))));
            }
        });
        return candidates;
    }

    private boolean isMember(final String id) {
        for (final Member member : config.members()) {
            if (member.nodeId().equals(id)) {
                return true;
            }
        }
        return false;
    }

    private static String names(final List<Candidate> candidates) {
        return candidates.stream().map(Candidate::nodeId).collect(Collectors.joining(", "));
    }

    private void leaveLatch() {
        if (latch != null) {
            try {
                latch.close();
            } catch (IOException e) {
                LOG.warn("node {} could not leave the leader latch {}: {}", me, znodes.leader(), e.toString());
            }
            latch = null;
        }
    }

    private void closeSink() {
        if (sink != null) {
            mbeans.sinkStops();
            sink.close();
            sink = null;
        }
    }

    /** Stops whatever runs: the gateway, the source and the queue of a primary, the sink of a follower, the latch. */
    void stopServices() {
        mbeans.primaryStops();
        if (gateway != null) {
            gateway.close();
            gateway = null;
        }
        if (source != null) {
            source.close();
            source = null;
        }
        if (queue != null) {
            queue.close();
            queue = null;
        }
        closeSink();
        leaveLatch();
    }
}
