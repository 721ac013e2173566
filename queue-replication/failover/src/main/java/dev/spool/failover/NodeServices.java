package dev.spool.failover;

import dev.spool.failover.RoleSnapshot.Latch;
import dev.spool.failover.RoleSnapshot.SinkStatus;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.PublishGateway;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a node runs in its role, and only that: a primary's queue, source and gateway, a follower's sink, a chosen
 * candidate's place in the leader latch. Started and stopped on the node's duty; {@link #stopAll} also on close.
 */
final class NodeServices {
    private static final Logger LOG = LoggerFactory.getLogger(NodeServices.class);

    private final NodeConfig config;
    private final CuratorFramework client;
    private final String leaderPath;
    private final String me;
    private final NodeMBeans mbeans;
    private LeaderLatch latch;
    private ReplicationSink sink;
    private SpoolQueue queue;
    private ReplicationSource source;
    private PublishGateway gateway;

    NodeServices(final NodeConfig config, final CuratorFramework client, final String leaderPath) {
        this.config = config;
        this.client = client;
        this.leaderPath = leaderPath;
        this.me = config.nodeId();
        this.mbeans = new NodeMBeans(config);
    }

    /** @return a primary's queue, else null. */
    SpoolQueue queue() {
        return queue;
    }

    /** @return a primary's source, else null. */
    ReplicationSource source() {
        return source;
    }

    /** @return a follower's sink, else null. */
    ReplicationSink sink() {
        return sink;
    }

    /** @return a primary's gateway, else null. */
    PublishGateway gateway() {
        return gateway;
    }

    /** @return the state of the sink, as its last failure says. */
    SinkStatus sinkStatus() {
        if (sink == null) {
            return SinkStatus.NONE;
        }
        if (sink.divergence() != null) {
            return SinkStatus.DIVERGED;
        }
        return sink.failure() != null ? SinkStatus.FAILED : SinkStatus.RUNNING;
    }

    /** @return true if the sink holds what its primary held when it connected. */
    boolean sinkCaughtUp() {
        if (sink == null) {
            return false;
        }
        final long target = sink.sourceLastIndex();
        return target >= -1 && sink.lastIndex() >= target;
    }

    /** @return this node's place in the leader latch. */
    Latch latch() {
        if (latch == null) {
            return Latch.OUT;
        }
        return latch.hasLeadership() ? Latch.LEADER : Latch.WAITING;
    }

    void joinLatch() {
        if (latch == null) {
            latch = new LeaderLatch(client, leaderPath, me);
            try {
                latch.start();
            } catch (Exception e) {
                throw new SpoolException("node " + me + " could not join the leader latch " + leaderPath + ": " + e,
                        e);
            }
        }
    }

    void leaveLatch() {
        if (latch != null) {
            try {
                latch.close();
            } catch (IOException e) {
                LOG.warn("node {} could not leave the leader latch {}: {}", me, leaderPath, e.toString());
            }
            latch = null;
        }
    }

    /** Opens the queue a primary appends to; closed again by {@link #closeQueue} if the promotion fails. */
    SpoolQueue openQueue() {
        queue = LocalQueue.open(config);
        return queue;
    }

    void closeQueue() {
        if (queue != null) {
            queue.close();
            queue = null;
        }
    }

    /** Starts a primary's source towards every other member and its gateway, on the queue {@link #openQueue} gave. */
    void startPrimary() {
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

    void startSink() {
        final ReplicationSink.Builder builder = ReplicationSink.builder(config.directory())
                .bindAddress(config.replicationListen().getAddress()).port(config.replicationListen().getPort())
                .queueSettings(config.queueSettings());
        sink = (config.insecure() ? builder.insecure() : builder.sharedSecret(config.replicationSecret())).start();
        mbeans.sink(sink);
    }

    void closeSink() {
        if (sink != null) {
            mbeans.sinkStops();
            sink.close();
            sink = null;
        }
    }

    /** Stops whatever runs: the gateway, the source and the queue of a primary, the sink of a follower, the latch. */
    void stopAll() {
        mbeans.primaryStops();
        if (gateway != null) {
            gateway.close();
            gateway = null;
        }
        if (source != null) {
            source.close();
            source = null;
        }
        closeQueue();
        closeSink();
        leaveLatch();
    }
}
