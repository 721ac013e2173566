package dev.spool.failover;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.CommitStage;
import dev.spool.replication.PublishClient;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.spool.failover.ClusterNodeTest.SESSION;
import static dev.spool.failover.ClusterNodeTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an operator sees of a node, on a real ZooKeeper server in this JVM: its state after close, its two secrets,
 * its MBeans through the platform MBean server, its figures, its znode, and its ZooKeeper timeouts.
 */
class ClusterNodeOperationsTest extends SpoolTestBase {
    private static final byte[] REPLICATION = "the nodes' own replication secret".getBytes(StandardCharsets.UTF_8);
    private static final byte[] CLIENTS = "the secret the publish clients hold".getBytes(StandardCharsets.UTF_8);
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private TestingServer zookeeper;
    private final List<ClusterNode> nodes = new ArrayList<>();
    private final UUID queueId = UUID.randomUUID();
    private List<Member> members;

    @BeforeEach
    void startZooKeeper() throws Exception {
        // tickTime 250 ms: ZooKeeper grants session timeouts of 500 ms to 5 s
        zookeeper = new TestingServer(new InstanceSpec(Files.createDirectories(tempDir.resolve("zk")).toFile(), -1, -1,
                -1, true, -1, 250, -1), true);
    }

    @AfterEach
    void stopAll() throws Exception {
        expectWarning(": connection from ");
        expectWarning(": connection to ");
        nodes.sort((one, other) -> Boolean.compare(other.isPrimary(), one.isPrimary()));
        for (final ClusterNode node : nodes) {
            node.close();
        }
        zookeeper.close();
    }

    @Test
    void shouldReportClosedAfterCloseAndCloseAgainQuietly() throws Exception {
        members = ClusterNodeTest.members(2);
        final ClusterNode node = start("a");
        await(node::isPrimary, "a primary alone");
        node.close();
        assertEquals(NodeState.CLOSED, node.state());
        assertFalse(node.isPrimary());
        assertEquals("CLOSED", node.metrics().getState());
        node.close();
        assertEquals(NodeState.CLOSED, node.state());
    }

    @Test
    void shouldReplicateWithTheReplicationSecretAndServeOnlyClientsOfTheClientSecret() throws Exception {
        members = ClusterNodeTest.members(2);
        final ClusterNode a = start("a");
        final ClusterNode b = start("b");
        await(() -> a.isPrimary() || b.isPrimary(), "a primary");
        final ClusterNode primary = a.isPrimary() ? a : b;
        try (PublishClient client = PublishClient.builder(primary.member().gateway(), 1024).sharedSecret(CLIENTS)
                .connect()) {
            final byte[] message = "committed by both".getBytes(StandardCharsets.UTF_8);
            final long sequence = client.publish(message, 0, message.length, CommitStage.ACKED_BY_QUORUM);
            assertTrue(client.awaitCommit(sequence, 10, TimeUnit.SECONDS) >= 0, "acknowledged by the follower");
        }
        expectWarning("did not prove the shared secret");
        final RuntimeException refused = assertThrows(RuntimeException.class, () -> {
            try (PublishClient replicationHolder = PublishClient.builder(primary.member().gateway(), 1024)
                    .sharedSecret(REPLICATION).timeout(Duration.ofSeconds(2)).connect()) {
                final byte[] message = "from a holder of the replication secret".getBytes(StandardCharsets.UTF_8);
                replicationHolder.awaitCommit(replicationHolder.publish(message, 0, message.length,
                        CommitStage.WRITTEN), 2, TimeUnit.SECONDS);
            }
        }, "a client holding the replication secret is refused by the gateway");
        final String why = String.valueOf(refused.getCause());
        assertTrue(why.contains("did not prove the shared secret") && why.contains("secret differs"), why);
    }

    @Test
    void shouldRefuseAMissingOrShortClientSecretNamingIt() throws Exception {
        members = ClusterNodeTest.members(2);
        final SpoolException shortOne = assertThrows(SpoolException.class, () -> builder("a")
                .clientSecret(new byte[8]).start());
        assertTrue(shortOne.getMessage().contains("clientSecret of 8 bytes"), shortOne.getMessage());
        final ClusterNode.Builder noClients = ClusterNode.builder(zookeeper.getConnectString(), queueId, "a",
                tempDir.resolve("a")).replicationSecret(REPLICATION);
        members.forEach(noClients::member);
        final SpoolException none = assertThrows(SpoolException.class, noClients::start);
        assertTrue(none.getMessage().contains("clientSecret"), none.getMessage());
        assertFalse(Files.exists(tempDir.resolve("a")), "nothing created");
    }

    @Test
    void shouldRegisterEachRolesMBeansUnderItsNodeAndUnregisterThemWhenTheRoleChangesOrTheNodeCloses()
            throws Exception {
        members = ClusterNodeTest.members(3);
        for (final Member member : members) {
            nodes.add(builder(member.nodeId()).registerMBean().start());
        }
        await(() -> primary() != null && followers() == 2, "a primary and two followers");
        final ClusterNode first = primary();
        for (final ClusterNode node : nodes) {
            final Set<String> expected = node == first ? Set.of("ClusterNode", "PublishGateway", "ReplicationSource")
                    : Set.of("ClusterNode", "ReplicationSink");
            await(() -> expected.equals(types(node.nodeId())), node.nodeId() + "'s MBeans " + expected + ": "
                    + types(node.nodeId()));
        }
        final ObjectName gateway = name("PublishGateway", first);
        final String address = (String) SERVER.getAttribute(gateway, "Address");
        assertTrue(address.endsWith(":" + first.member().gateway().getPort()), address);
        final ObjectName sourceName = name("ReplicationSource", first);
        assertEquals(2, SERVER.getAttribute(sourceName, "Replicas"));
        expectWarning(": connection from ");
        expectWarning(": connection to ");
        first.close();
        nodes.remove(first);
        assertEquals(Set.of(), types(first.nodeId()), "the closed node's MBeans are gone");
        await(() -> primary() != null, "a second primary");
        final ClusterNode second = primary();
        await(() -> Set.of("ClusterNode", "PublishGateway", "ReplicationSource").equals(types(second.nodeId())),
                "the new primary's MBeans: " + types(second.nodeId()));
        for (final ClusterNode node : nodes) {
            node.close();
            assertEquals(Set.of(), types(node.nodeId()), node.nodeId() + "'s MBeans after close");
        }
        nodes.clear();
    }

    @Test
    void shouldFollowWithoutItsSinkMBeanWhenTheNameIsTakenAndSaySo() throws Exception {
        members = ClusterNodeTest.members(2);
        final ObjectName taken = new ObjectName("dev.spool:type=ReplicationSink,name="
                + ObjectName.quote(tempDir.resolve("b").toAbsolutePath().normalize().toString()) + ",node=\"b\"");
        SERVER.registerMBean(new javax.management.timer.Timer(), taken);
        try {
            final ClusterNode a = builder("a").registerMBean().start();
            nodes.add(a);
            await(a::isPrimary, "a primary alone");
            expectWarning("node b runs its ReplicationSink without its MBean");
            final ClusterNode b = builder("b").registerMBean().start();
            nodes.add(b);
            await(() -> b.state() == NodeState.FOLLOWER, "b follows");
            publish(a, 5, CommitStage.ACKED_BY_QUORUM);
            assertEquals(1, countLogged("node b runs its ReplicationSink without its MBean"));
            assertEquals(NodeState.FOLLOWER, b.state());
        } finally {
            SERVER.unregisterMBean(taken);
        }
    }

    @Test
    void shouldShowLastIndexQuorumIndexAndLagOfPrimaryAndFollowerInJmxAndInTheirZnodes() throws Exception {
        members = ClusterNodeTest.members(2);
        final ClusterNode a = start("a");
        await(a::isPrimary, "a primary alone");
        final ClusterNode b = start("b");
        await(() -> b.state() == NodeState.FOLLOWER, "b follows");
        publish(a, 10, CommitStage.ACKED_BY_QUORUM);
        final long last = lastIndex(a);
        await(() -> b.metrics().getLastIndex() == last, "b's last index " + b.metrics().getLastIndex());
        await(() -> a.metrics().getQuorumAckedIndex() == last && a.metrics().getLag() == 0, "a's quorum index");
        assertEquals(last, a.metrics().getLastIndex());
        await(() -> b.metrics().getPrimaryLastIndex() == last && b.metrics().getLag() == 0, "b's lag "
                + b.metrics().getLag());
        await(() -> last == znodeLastIndex("a") && last == znodeLastIndex("b"), "the znodes' last indices");
        assertFalse(a.metrics().isRebuilding());
        assertFalse(b.metrics().isRebuilding());

        expectWarning(": connection from ");
        expectWarning(": connection to ");
        b.close();
        nodes.remove(b);
        publish(a, 3, CommitStage.WRITTEN);
        final long written = lastIndex(a);
        await(() -> a.metrics().getLastIndex() == written && a.metrics().getLag() == 3,
                "3 excerpts not acknowledged by the quorum: lag " + a.metrics().getLag());
        assertEquals(last, a.metrics().getQuorumAckedIndex());
        await(() -> written == znodeLastIndex("a"), "a's znode at its new last index");
    }

    @Test
    void shouldShowARebuildingNodeUntilItCaughtUp() throws Exception {
        members = ClusterNodeTest.members(2);
        final ClusterNode a = start("a");
        await(a::isPrimary, "a primary alone");
        publish(a, 5, CommitStage.WRITTEN);
        a.close();
        nodes.remove(a);
        final ClusterNode b = start("b");
        await(() -> b.metrics().isRebuilding() && b.waitingFor() != null, "b rebuilding: " + b.waitingFor());
        assertEquals(-1, b.metrics().getLastIndex());
        final ClusterNode again = start("a");
        await(again::isPrimary, "a primary again");
        await(() -> !b.metrics().isRebuilding() && b.metrics().getLastIndex() == lastIndex(again),
                "b caught up and no longer rebuilding");
    }

    @Test
    void shouldShowAndWarnOnceWhenZooKeeperGrantsAnotherSessionTimeout() throws Exception {
        members = ClusterNodeTest.members(2);
        expectWarning("was granted 5000 ms");
        final ClusterNode node = nodeBuilder("a").sessionTimeout(Duration.ofSeconds(6)).start();
        nodes.add(node);
        assertEquals(6000, node.metrics().getRequestedSessionTimeoutMillis());
        assertEquals(5000, node.metrics().getSessionTimeoutMillis());
        assertEquals(1, countLogged("node a asked ZooKeeper for a session timeout of 6000 ms and was granted 5000 ms"));
        final ClusterNode asked = start("b");
        assertEquals(SESSION.toMillis(), asked.metrics().getSessionTimeoutMillis());
    }

    @Test
    void shouldNotWarnOfTheConnectTimeoutWithAShortSessionTimeout() throws Exception {
        members = ClusterNodeTest.members(2);
        final ClusterNode.Builder builder = ClusterNode.builder(zookeeper.getConnectString(), queueId, "a",
                tempDir.resolve("a")).replicationSecret(REPLICATION).clientSecret(CLIENTS)
                .sessionTimeout(Duration.ofSeconds(1));
        members.forEach(builder::member);
        final ClusterNode node = builder.start();
        nodes.add(node);
        await(node::isPrimary, "a primary");
        assertFalse(logged("is less than connection timeout"), "Curator's WARN of a connect timeout over the session");
    }

    private ClusterNode start(final String id) {
        final ClusterNode node = builder(id).start();
        nodes.add(node);
        return node;
    }

    private ClusterNode.Builder builder(final String id) {
        return nodeBuilder(id).sessionTimeout(SESSION);
    }

    private ClusterNode.Builder nodeBuilder(final String id) {
        final ClusterNode.Builder builder = ClusterNode.builder(zookeeper.getConnectString(), queueId, id,
                tempDir.resolve(id)).ackQuorum(1).connectTimeout(SESSION).replicationSecret(REPLICATION)
                .clientSecret(CLIENTS);
        members.forEach(builder::member);
        return builder;
    }

    private ClusterNode primary() {
        for (final ClusterNode node : nodes) {
            if (node.isPrimary()) {
                return node;
            }
        }
        return null;
    }

    private long followers() {
        return nodes.stream().filter(node -> node.state() == NodeState.FOLLOWER).count();
    }

    private static void publish(final ClusterNode primary, final int count, final CommitStage stage) {
        try (PublishClient client = PublishClient.builder(primary.member().gateway(), 1024).sharedSecret(CLIENTS)
                .connect()) {
            for (int i = 0; i < count; i++) {
                final byte[] message = ("message " + i).getBytes(StandardCharsets.UTF_8);
                assertTrue(client.awaitCommit(client.publish(message, 0, message.length, stage), 10,
                        TimeUnit.SECONDS) >= 0, "commit of message " + i);
            }
        }
    }

    private long lastIndex(final ClusterNode node) {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve(node.nodeId())).readOnly().open()) {
            return queue.lastIndex();
        }
    }

    private long znodeLastIndex(final String id) {
        final Znodes znodes = new Znodes(ClusterNode.DEFAULT_ROOT, queueId);
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(),
                new RetryOneTime(100))) {
            client.start();
            final Map<String, String> fields = Znodes.decode(znodes.node(id), client.getData().forPath(znodes.node(id)),
                    Znodes.NODE_FORMAT, "lastIndex");
            return Long.parseLong(fields.get("lastIndex"));
        } catch (Exception e) {
            throw new AssertionError("cannot read " + znodes.node(id), e);
        }
    }

    /** @return the types of the MBeans registered for a node: its ClusterNode and those of its roles. */
    private static Set<String> types(final String nodeId) {
        final Set<String> types = new TreeSet<>();
        try {
            for (final ObjectName name : SERVER.queryNames(new ObjectName("dev.spool:node=" + ObjectName.quote(nodeId)
                    + ",*"), null)) {
                types.add(name.getKeyProperty("type"));
            }
            if (SERVER.isRegistered(new ObjectName("dev.spool:type=ClusterNode,name=" + ObjectName.quote(nodeId)))) {
                types.add("ClusterNode");
            }
        } catch (javax.management.MalformedObjectNameException e) {
            throw new AssertionError(e);
        }
        return types;
    }

    private ObjectName name(final String type, final ClusterNode node) throws Exception {
        final ObjectName name = new ObjectName("dev.spool:type=" + type + ",name="
                + ObjectName.quote(tempDir.resolve(node.nodeId()).toAbsolutePath().normalize().toString()) + ",node="
                + ObjectName.quote(node.nodeId()));
        assertTrue(SERVER.isRegistered(name), name + " registered");
        assertNotEquals(null, SERVER.getMBeanInfo(name));
        return name;
    }
}
