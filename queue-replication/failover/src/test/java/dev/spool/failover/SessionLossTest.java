package dev.spool.failover;

import dev.spool.queue.SpoolTestBase;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A node whose ZooKeeper session ends, on a 3-server ensemble that it reaches through relays the test cuts: it
 * reaches ZooKeeper only through the connect string it was given, and what it was doing when the session ended does
 * not outlive the session.
 */
class SessionLossTest extends SpoolTestBase {
    private final UUID queueId = UUID.randomUUID();
    private final List<Relay> relays = new ArrayList<>();
    private TestingCluster zooKeeper;
    private ZooKeeperView view;

    @BeforeEach
    void startZooKeeper() throws Exception {
        // ZooKeeper's clients log the connections this test breaks on purpose
        expectWarning("org.apache.zookeeper");
        expectWarning("org.apache.curator");
        final List<InstanceSpec> specs = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            specs.add(new InstanceSpec(Files.createDirectories(tempDir.resolve("zk" + s)).toFile(), -1, -1, -1, true,
                    s + 1, 100, -1));
        }
        zooKeeper = new TestingCluster(specs);
        zooKeeper.start();
        for (final InstanceSpec spec : specs) {
            relays.add(new Relay(spec.getPort(), "zk" + spec.getServerId()));
        }
        view = new ZooKeeperView(zooKeeper.getConnectString(), queueId);
    }

    @AfterEach
    void stopZooKeeper() throws IOException {
        view.close();
        for (final Relay relay : relays) {
            relay.close();
        }
        zooKeeper.close();
    }

    @Test
    void shouldLoseItsSessionWhenEveryAddressOfItsConnectStringIsCutEvenIfTheServersAreReachable() throws Exception {
        // with k = 1 of 2 followers, the lone node of three waits for a second candidate all along: the election
        // rule, not a fault
        expectWarning("node a does not promote, for");
        try (ClusterNode node = node("a", "b", "c")) {
            ClusterNodeTest.await(() -> node.waitingFor() != null && node.waitingFor().startsWith("1 of the 2"),
                    "node a waits for a second candidate");
            assertEquals(List.of("a"), List.copyOf(view.nodes().keySet()));
            relays.forEach(Relay::block);
            ClusterNodeTest.await(() -> !registered("a"), "the session of node a, cut off from every address it was"
                    + " given, ends");
            relays.forEach(Relay::unblock);
            ClusterNodeTest.await(() -> node.state() == NodeState.CANDIDATE && registered("a"),
                    "node a is back with a new session");
        }
    }

    @Test
    void shouldPromoteAChosenCandidateWhoseSessionEndedWhileItAwaitedTheLeaderLatch() throws Exception {
        expectWarning("node a does not promote, for");
        try (CuratorFramework other = CuratorFrameworkFactory.newClient(zooKeeper.getConnectString(),
                new RetryOneTime(50))) {
            other.start();
            final LeaderLatch held = new LeaderLatch(other, new Znodes(ClusterNode.DEFAULT_ROOT, queueId).leader(),
                    "other");
            held.start();
            ClusterNodeTest.await(held::hasLeadership, "the test holds the leader latch");
            try (ClusterNode node = node("a", "b")) {
                ClusterNodeTest.await(() -> node.waitingFor() != null && node.waitingFor().contains("leader latch"),
                        "node a, the only candidate the rule needs, awaits the latch");
                relays.forEach(Relay::block);
                ClusterNodeTest.await(() -> !registered("a"), "the session of node a ends");
                held.close();
                relays.forEach(Relay::unblock);
                ClusterNodeTest.await(node::isPrimary, "node a, back with a new session and the latch free, is the"
                        + " primary");
            }
        }
    }

    private ClusterNode node(final String... members) throws IOException {
        final List<String> connect = new ArrayList<>();
        relays.forEach(relay -> connect.add("127.0.0.1:" + relay.port()));
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final ClusterNode.Builder builder = ClusterNode.builder(String.join(",", connect), queueId, members[0],
                tempDir.resolve(members[0])).ackQuorum(1)
                // the most the ensemble's tickTime of 100 ms grants: a node asking for more would be told so
                .sessionTimeout(Duration.ofSeconds(2))
                .sharedSecret(ClusterNodeTest.SECRET);
        for (final String id : members) {
            builder.member(Member.of(id, new InetSocketAddress(loopback, ClusterNodeTest.freePort()),
                    new InetSocketAddress(loopback, ClusterNodeTest.freePort())));
        }
        return builder.start();
    }

    private boolean registered(final String nodeId) {
        try {
            return view.nodes().containsKey(nodeId);
        } catch (Exception e) {
            throw new AssertionError("reading ZooKeeper at " + zooKeeper.getConnectString(), e);
        }
    }
}
