package dev.spool.failover;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.Failover;
import dev.spool.replication.ReplicationSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What a node shows of itself, in JMX and in its znode: a snapshot of its indices that the node's duty refreshes
 * every {@link #REFRESH_INTERVAL_NS} and at each change of role, from the queue, the sink or the candidacy it holds,
 * so that a JMX thread never reaches into a service that may be closing. ZooKeeper hears of a changed last index at
 * most once per {@link #PUBLISH_INTERVAL_NS}, never on the path of a publish.
 */
final class NodeStatus implements ClusterNodeMXBean {
    /** How often at most a node writes a changed last index to its znode. */
    static final long PUBLISH_INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    /** How often at most a node reads its indices while its role stays the same. */
    static final long REFRESH_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final Logger LOG = LoggerFactory.getLogger(NodeStatus.class);

    private final NodeConfig config;
    private final NodeAgent agent;
    private volatile RollCycle rollCycle;
    private volatile long lastIndex = -1;
    private volatile long quorumAckedIndex = -1;
    private volatile long primaryLastIndex = -1;
    private volatile boolean rebuilding;
    private volatile long grantedSessionTimeoutMs;
    private NodeState refreshedState;
    private long refreshedAtNs;
    private long publishedLastIndex = -1;
    private long publishedAtNs;

    NodeStatus(final NodeConfig config, final NodeAgent agent) {
        this.config = config;
        this.agent = agent;
        this.grantedSessionTimeoutMs = config.sessionTimeout().toMillis();
    }

    /** @param rollCycle the queue's roll cycle, to count excerpts between two indices. */
    void rollCycle(final RollCycle rollCycle) {
        this.rollCycle = rollCycle;
    }

    /**
     * On the node's duty, after each pass: records its indices from what it holds in its role, when its role changed
     * or {@link #REFRESH_INTERVAL_NS} passed (reading a queue's last index opens a tailer: not for every pass).
     *
     * @param state        the node's state.
     * @param queue        a primary's queue, else null.
     * @param sink         a follower's sink, else null.
     * @param candidacy    a candidate's candidacy, else null.
     * @param primaryLast  on a follower, the primary's last index as its znode last said it.
     * @param isRebuilding true while the node is marked rebuilding.
     * @param nowNs        the node's monotonic clock.
     * @return true if the node's znode should be written again: its last index changed since it was last written,
     * at least {@link #PUBLISH_INTERVAL_NS} ago, and the node is not a candidate (whose znode holds its candidacy).
     */
    boolean refresh(final NodeState state, final SpoolQueue queue, final ReplicationSink sink,
            final Candidate candidacy, final long primaryLast, final boolean isRebuilding, final long nowNs) {
        rebuilding = isRebuilding;
        if (state != refreshedState || nowNs - refreshedAtNs >= REFRESH_INTERVAL_NS) {
            refreshedState = state;
            refreshedAtNs = nowNs;
            if (state == NodeState.PRIMARY) {
                final long last = queue.lastIndex();
                lastIndex = last;
                quorumAckedIndex = Failover.quorumAckedIndex(queue);
                primaryLastIndex = last;
            } else if (state == NodeState.FOLLOWER || state == NodeState.CANDIDATE) {
                lastIndex = sink != null ? sink.lastIndex() : candidacy != null ? candidacy.lastIndex() : lastIndex;
                quorumAckedIndex = -1;
                primaryLastIndex = sink != null ? primaryLast : -1;
            }
        }
        return state != NodeState.CANDIDATE && lastIndex != publishedLastIndex
                && nowNs - publishedAtNs >= PUBLISH_INTERVAL_NS;
    }

    /** @param last the last index a primary had written when it fenced its queue. */
    void fenced(final long last) {
        lastIndex = last;
        quorumAckedIndex = -1;
        primaryLastIndex = -1;
    }

    /**
     * @param state     the node's state.
     * @param term      the term to show: its candidacy's while a candidate, else the node's.
     * @param candidate the last index of its candidacy while a candidate (what the election reads), else ignored.
     * @param election  the term of the election it stands in, -1 if none.
     * @param eligible  false while the node is marked rebuilding.
     * @param nowNs     the node's monotonic clock.
     * @return the node znode's bytes.
     */
    byte[] znodeData(final NodeState state, final long term, final long candidate, final long election,
            final boolean eligible, final long nowNs) {
        final long last = state == NodeState.CANDIDATE ? candidate : lastIndex;
        publishedLastIndex = last;
        publishedAtNs = nowNs;
        final Map<String, String> fields = new LinkedHashMap<>();
        fields.put("node", config.nodeId());
        fields.put("state", state.name());
        fields.put("term", Long.toString(term));
        fields.put("lastIndex", Long.toString(last));
        fields.put("election", Long.toString(election));
        fields.put("eligible", Boolean.toString(eligible));
        fields.put("replication", address(config.self().replication()));
        fields.put("gateway", address(config.self().gateway()));
        return Znodes.encode(Znodes.NODE_FORMAT, fields);
    }

    /**
     * On connecting and on each new session: records the session timeout ZooKeeper granted, and warns once per
     * value when it is not the one asked, since the failover time follows the granted one.
     *
     * @param grantedMs the negotiated session timeout; 0 if not known yet.
     */
    void sessionGranted(final int grantedMs) {
        if (grantedMs <= 0 || grantedMs == grantedSessionTimeoutMs) {
            return;
        }
        grantedSessionTimeoutMs = grantedMs;
        final long requested = config.sessionTimeout().toMillis();
        if (grantedMs != requested) {
            LOG.warn("node {} asked ZooKeeper for a session timeout of {} ms and was granted {} ms: its servers keep it"
                    + " between 2 and 20 times their tickTime; a dead primary is replaced about {} ms after its last"
                    + " heartbeat", config.nodeId(), requested, grantedMs, grantedMs);
        }
    }

    long lastIndex() {
        return lastIndex;
    }

    @Override
    public String getState() {
        return agent.state().name();
    }

    @Override
    public long getTerm() {
        return agent.term();
    }

    @Override
    public String getWaitingFor() {
        final String why = agent.waitingFor();
        return why == null ? "" : why;
    }

    @Override
    public long getPromotions() {
        return agent.promotions();
    }

    @Override
    public long getHolds() {
        return agent.holds();
    }

    @Override
    public long getDirectoriesSetAside() {
        return agent.directoriesSetAside();
    }

    @Override
    public long getLastIndex() {
        return lastIndex;
    }

    @Override
    public long getQuorumAckedIndex() {
        return quorumAckedIndex;
    }

    @Override
    public long getPrimaryLastIndex() {
        return primaryLastIndex;
    }

    @Override
    public long getLag() {
        final long quorum = quorumAckedIndex;
        final long last = lastIndex;
        return agent.state() == NodeState.PRIMARY ? excerptsAfter(quorum, last) : excerptsAfter(last, primaryLastIndex);
    }

    @Override
    public boolean isRebuilding() {
        return rebuilding;
    }

    @Override
    public long getSessionTimeoutMillis() {
        return grantedSessionTimeoutMs;
    }

    @Override
    public long getRequestedSessionTimeoutMillis() {
        return config.sessionTimeout().toMillis();
    }

    /**
     * @return the excerpts after {@code from} up to {@code to}: exact within a cycle; across a roll, those of
     * {@code to}'s cycle only (the cycles between are not read), a lower bound.
     */
    private long excerptsAfter(final long from, final long to) {
        final RollCycle cycles = rollCycle;
        if (to < 0 || from >= to || cycles == null) {
            return 0;
        }
        if (from >= 0 && cycles.toCycle(from) == cycles.toCycle(to)) {
            return cycles.toSequence(to) - cycles.toSequence(from);
        }
        return cycles.toSequence(to) + 1;
    }

    private static String address(final InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }
}
