package example.monitoring;

import dev.spool.failover.ClusterNode;
import dev.spool.failover.Member;
import dev.spool.failover.NodeState;
import dev.spool.failover.ZooKeeperGatewayLocator;
import dev.spool.replication.CommitStage;
import dev.spool.replication.PublishClient;
import org.apache.curator.test.TestingServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The cluster half of the monitored application: a ZooKeeper server and two failover nodes in this JVM (their
 * MBeans keyed by node id), a client publishing through the primary's gateway at ACKED_BY_QUORUM. In production
 * each node is a process of its own on its own machine, and ZooKeeper an ensemble you run (docs/deployment.md).
 */
final class MonitoredCluster implements AutoCloseable {
    /** Messages published through the gateway before the service says it is ready. */
    static final int MESSAGES = 100;
    /** Secrets for the recipe only: a deployment reads them from files only its service user may read. */
    private static final byte[] REPLICATION_SECRET = "the nodes' replication secret, 32+".getBytes(StandardCharsets.UTF_8);
    private static final byte[] CLIENT_SECRET = "the gateway clients' secret, 32 b+".getBytes(StandardCharsets.UTF_8);

    private final TestingServer zookeeper;
    private final List<ClusterNode> nodes;

    private MonitoredCluster(final TestingServer zookeeper, final List<ClusterNode> nodes) {
        this.zookeeper = zookeeper;
        this.nodes = nodes;
    }

    /**
     * Starts ZooKeeper and two nodes, waits for a primary and publishes {@link #MESSAGES} through it.
     *
     * @param work the directory for the nodes' queues.
     * @return the running cluster.
     * @throws Exception if ZooKeeper or a node cannot start, or a publish is not committed within 30 s.
     */
    static MonitoredCluster start(final Path work) throws Exception {
        final TestingServer zookeeper = new TestingServer(true);
        final UUID queueId = UUID.randomUUID();
        final List<Member> members = List.of(member("a"), member("b"));
        final List<ClusterNode> nodes = List.of(node(zookeeper, queueId, "a", members, work),
                node(zookeeper, queueId, "b", members, work));
        final MonitoredCluster cluster = new MonitoredCluster(zookeeper, nodes);
        try {
            cluster.awaitPrimary();
            try (ZooKeeperGatewayLocator primary = ZooKeeperGatewayLocator.connect(zookeeper.getConnectString(),
                    queueId);
                 PublishClient client = PublishClient.builder(primary, 1024).sharedSecret(CLIENT_SECRET).connect()) {
                long sequence = 0;
                for (int message = 0; message < MESSAGES; message++) {
                    final byte[] payload = ("order " + message).getBytes(StandardCharsets.UTF_8);
                    sequence = client.publish(payload, 0, payload.length, CommitStage.ACKED_BY_QUORUM);
                }
                if (client.awaitCommit(sequence, 30, TimeUnit.SECONDS) < 0) {
                    throw new IllegalStateException("message " + sequence + " not committed at ACKED_BY_QUORUM"
                            + " within 30 s");
                }
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static ClusterNode node(final TestingServer zookeeper, final UUID queueId, final String id,
                                    final List<Member> members, final Path work) {
        final ClusterNode.Builder builder = ClusterNode.builder(zookeeper.getConnectString(), queueId, id,
                work.resolve("node-" + id));
        members.forEach(builder::member);
        return builder.ackQuorum(1).replicationSecret(REPLICATION_SECRET).clientSecret(CLIENT_SECRET)
                .registerMBean().start();
    }

    private static Member member(final String id) throws IOException {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        return Member.of(id, new InetSocketAddress(loopback, freePort()), new InetSocketAddress(loopback, freePort()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private void awaitPrimary() throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (nodes.stream().noneMatch(node -> node.state() == NodeState.PRIMARY)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no primary within 30 s: " + nodes.stream()
                        .map(node -> node.nodeId() + " " + node.state()).toList());
            }
            Thread.sleep(10);
        }
    }

    @Override
    public void close() throws IOException {
        for (final ClusterNode node : nodes) {
            node.close();
        }
        zookeeper.close();
    }
}
