package dev.spool.failover;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
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

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Nodes of one cluster in this JVM, on a real ZooKeeper server and real sockets: they elect, replicate, fail over
 * and refuse bad configurations.
 */
class ClusterNodeTest extends SpoolTestBase {
    /** Long enough for a loaded 2-CPU machine: a node stops its services itself when it closes, nothing waits it out. */
    static final Duration SESSION = Duration.ofSeconds(3);
    static final byte[] SECRET = "a secret the nodes and clients share".getBytes(StandardCharsets.UTF_8);
    private TestingServer zookeeper;
    private final List<ClusterNode> nodes = new ArrayList<>();
    private final UUID queueId = UUID.randomUUID();
    private List<Member> members;

    @BeforeEach
    void startZooKeeper() throws Exception {
        zookeeper = new TestingServer(new InstanceSpec(Files.createDirectories(tempDir.resolve("zk")).toFile(), -1, -1,
                -1, true, -1, 250, -1), true);
    }

    @AfterEach
    void stopAll() throws IOException {
        closeAll();
        zookeeper.close();
    }

    @Test
    void shouldElectOnePrimaryThatReplicatesCommitsToItsFollowers() throws Exception {
        members = members(3);
        startNodes(3, 1);
        final ClusterNode primary = awaitPrimary(1);
        final List<byte[]> sent = publish(primary, 0, 100);
        for (final ClusterNode node : nodes) {
            if (node != primary) {
                await(() -> lastIndexOf(node) == lastIndexOf(primary), node.nodeId() + " caught up");
            }
        }
        closeAll();
        for (final Member member : members) {
            assertSameMessages(sent, read(tempDir.resolve(member.nodeId())), member.nodeId());
        }
    }

    @Test
    void shouldPromoteAFollowerHoldingEveryQuorumAckedMessageWhenThePrimaryLeaves() throws Exception {
        members = members(3);
        startNodes(3, 1);
        final ClusterNode first = awaitPrimary(1);
        final List<byte[]> sent = publish(first, 0, 50);
        leave(first);
        final ClusterNode second = awaitPrimary(2);
        assertTrue(second != first);
        sent.addAll(publish(second, 50, 60));
        final List<byte[]> onSecond = read(tempDir.resolve(second.nodeId()));
        assertEquals(sent.size(), onSecond.size());
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), onSecond.get(i), "message " + i);
        }
    }

    @Test
    void shouldFollowThePrimaryThroughAFailoverAndWriteEveryMessageOnce() throws Exception {
        members = members(3);
        startNodes(3, 1);
        final ClusterNode first = awaitPrimary(1);
        final List<byte[]> sent = new ArrayList<>();
        try (ZooKeeperGatewayLocator primary = ZooKeeperGatewayLocator.connect(zookeeper.getConnectString(), queueId);
             PublishClient client = PublishClient.builder(primary, 1024).sharedSecret(SECRET)
                     .timeout(Duration.ofSeconds(20)).connect()) {
            assertTrue(client.deduplicates(), "the cluster's queue has publisher ids");
            final List<Long> sequences = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                if (i == 100) {
                    // the rest go out while the primary leaves: the client finds the next one and sends again
                    // what was not committed
                    leave(first);
                }
                final byte[] message = ("message " + i).getBytes(StandardCharsets.UTF_8);
                sequences.add(client.publish(message, 0, message.length, CommitStage.ACKED_BY_QUORUM));
                sent.add(message);
            }
            for (final long sequence : sequences) {
                assertTrue(client.awaitCommit(sequence, 20, TimeUnit.SECONDS) >= 0, "commit of " + sequence);
            }
        }
        final ClusterNode second = awaitPrimary(2);
        closeAll();
        assertSameMessages(sent, read(tempDir.resolve(second.nodeId())), "the new primary");
    }

    @Test
    void shouldFailOverToANodeWhoseWallClockIsHoursBehind() throws Exception {
        members = members(2);
        nodes.add(builder("a", tempDir.resolve("a"), 1).start());
        final ClusterNode first = awaitPrimary(1);
        final long behind = TimeUnit.HOURS.toMillis(30);
        nodes.add(builder("b", tempDir.resolve("b"), 1)
                .queueSettings(settings -> settings.epochClock(() -> System.currentTimeMillis() - behind)).start());
        await(() -> nodes.get(1).state() == NodeState.FOLLOWER, "b follows");
        final List<byte[]> sent = publish(first, 0, 10);
        leave(first);
        final ClusterNode second = awaitPrimary(2);
        assertEquals("b", second.nodeId());
        final ClusterNode back = builder("a", tempDir.resolve("a"), 1).start();
        nodes.add(back);
        await(() -> back.state() == NodeState.FOLLOWER, "a follows b");
        sent.addAll(publish(second, 10, 20));
        await(() -> lastIndexOf(back) == lastIndexOf(second), "a caught up");
        closeAll();
        assertSameMessages(sent, read(tempDir.resolve("b")), "the primary whose clock is behind");
        assertSameMessages(sent, read(tempDir.resolve("a")), "its follower");
    }

    @Test
    void shouldStartAgainOnKeptDirectoriesWhenZooKeeperForgotTheCluster() throws Exception {
        members = members(2);
        startNodes(2, 1);
        final ClusterNode first = awaitPrimary(1);
        final List<byte[]> sent = publish(first, 0, 10);
        final ClusterNode follower = nodes.get(first.nodeId().equals("a") ? 1 : 0);
        await(() -> lastIndexOf(follower) == lastIndexOf(first), "the follower caught up");
        leave(follower);
        closeAll();
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(),
                new RetryOneTime(100))) {
            client.start();
            client.delete().deletingChildrenIfNeeded().forPath("/spool/" + queueId);
        }
        startNodes(2, 1);
        await(() -> primary() != null, "a primary of the cluster started again");
        final ClusterNode again = primary();
        assertTrue(again.term() > 1, "a term past the queues' own: " + again.term());
        sent.addAll(publish(again, 10, 20));
        closeAll();
        assertSameMessages(sent, read(tempDir.resolve(again.nodeId())), "the primary after the restart");
    }

    @Test
    void shouldFailOverBetweenTwoNodes() throws Exception {
        members = members(2);
        startNodes(2, 1);
        final ClusterNode first = awaitPrimary(1);
        final List<byte[]> sent = publish(first, 0, 20);
        leave(first);
        final ClusterNode second = awaitPrimary(2);
        final ClusterNode back = builder(first.nodeId(), tempDir.resolve(first.nodeId()), 1).start();
        nodes.add(back);
        await(() -> back.state() == NodeState.FOLLOWER, "the node that left follows again");
        sent.addAll(publish(second, 20, 30));
        await(() -> lastIndexOf(back) == lastIndexOf(second), "the returning node caught up");
        closeAll();
        assertSameMessages(sent, read(tempDir.resolve(second.nodeId())), "the new primary");
        assertSameMessages(sent, read(tempDir.resolve(back.nodeId())), "the returning node");
    }

    @Test
    void shouldSetAsideANodeHoldingExcerptsTheNewPrimaryLacksAndRebuildItFromThePrimary() throws Exception {
        members = members(2);
        startNodes(2, 1);
        final ClusterNode first = awaitPrimary(1);
        final String oldId = first.nodeId();
        final String otherId = oldId.equals("a") ? "b" : "a";
        final List<byte[]> sent = publish(first, 0, 10);
        // the follower leaves first, so that nobody is elected before the primary leaves too
        expectWarning("lost: dev.spool.replication.protocol.Connection$PeerClosedException");
        final ClusterNode follower = nodes.get(oldId.equals("a") ? 1 : 0);
        await(() -> lastIndexOf(follower) == lastIndexOf(first), "the follower caught up");
        leave(follower);
        closeAll();
        try (SpoolQueue old = SpoolQueue.open(tempDir.resolve(oldId)); ExcerptAppender appender = old.createAppender()) {
            for (int i = 0; i < 3; i++) {
                appender.append(("never acknowledged " + i).getBytes(StandardCharsets.UTF_8));
            }
        }
        nodes.add(builder(otherId, tempDir.resolve(otherId), 1).start());
        final ClusterNode second = awaitPrimary(2);
        expectWarning("is set aside as");
        expectWarning("is ahead of the source");
        final ClusterNode back = builder(oldId, tempDir.resolve(oldId), 1).start();
        nodes.add(back);
        await(() -> back.directoriesSetAside() == 1 && back.state() == NodeState.FOLLOWER,
                "the returning node set aside and following");
        sent.addAll(publish(second, 10, 15));
        await(() -> lastIndexOf(back) == lastIndexOf(second), "the rebuilt node caught up");
        closeAll();
        assertSameMessages(sent, read(tempDir.resolve(oldId)), "the rebuilt node");
        final Path aside = tempDir.resolve(oldId + ".diverged-term-2");
        assertTrue(Files.isDirectory(aside), "kept as " + aside);
        assertEquals(13, read(aside).size(), "the set-aside directory keeps the tail no replica acknowledged");
    }

    @Test
    void shouldNotPromoteWhenTooFewCandidatesAnswer() throws Exception {
        members = members(3);
        startNodes(3, 1);
        final ClusterNode first = awaitPrimary(1);
        publish(first, 0, 10);
        ClusterNode follower = null;
        for (final ClusterNode node : nodes) {
            if (node != first) {
                follower = node;
            }
        }
        expectWarning("lost: dev.spool.replication.protocol.Connection$PeerClosedException");
        leave(follower);
        leave(first);
        final ClusterNode last = nodes.get(0);
        await(() -> last.waitingFor() != null && last.waitingFor().startsWith("1 of the 2 candidates"),
                "the last follower says why it does not promote");
        expectWarning("does not promote, for");
        await(() -> logged("node " + last.nodeId() + " does not promote, for"), "a WARN once it lasted a session");
        assertEquals(NodeState.CANDIDATE, last.state());
        assertEquals(0, last.promotions());
    }

    @Test
    void shouldRefuseAnUnreachableZooKeeperNamingItAndCreateNothing() throws Exception {
        members = members(2);
        final int closed = freePort();
        final String connect = "127.0.0.1:" + closed;
        final Path directory = tempDir.resolve("a");
        final SpoolException refused = assertThrows(SpoolException.class, () -> ClusterNode.builder(connect, queueId,
                "a", directory).member(members.get(0)).member(members.get(1)).sharedSecret(SECRET)
                .connectTimeout(Duration.ofMillis(500)).start());
        assertTrue(refused.getMessage().contains(connect), refused.getMessage());
        assertTrue(refused.getMessage().contains("nothing was created"), refused.getMessage());
        assertFalse(Files.exists(directory));
    }

    @Test
    void shouldRefuseASecondNodeWithTheSameId() throws Exception {
        members = members(2);
        startNodes(1, 1);
        final SpoolException refused = assertThrows(SpoolException.class,
                () -> builder("a", tempDir.resolve("a-again"), 1).start());
        assertTrue(refused.getMessage().contains("node id a is registered"), refused.getMessage());
    }

    @Test
    void shouldRefuseADirectoryHoldingAnotherQueueNamingBothIds() throws Exception {
        members = members(2);
        final Path directory = tempDir.resolve("a");
        final UUID other;
        try (SpoolQueue queue = SpoolQueue.builder(directory).openOrCreate()) {
            other = queue.queueId();
        }
        final SpoolException refused = assertThrows(SpoolException.class, () -> builder("a", directory, 1).start());
        assertTrue(refused.getMessage().contains(other.toString()) && refused.getMessage().contains(queueId.toString()),
                refused.getMessage());
    }

    @Test
    void shouldRefuseAZnodeWrittenBySomethingElseNamingItsPath() throws Exception {
        members = members(2);
        final String path = "/spool/" + queueId + "/config";
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(),
                new RetryOneTime(100))) {
            client.start();
            client.create().creatingParentsIfNeeded().forPath(path, "hello".getBytes(StandardCharsets.UTF_8));
        }
        final SpoolException refused = assertThrows(SpoolException.class,
                () -> builder("a", tempDir.resolve("a"), 1).start());
        assertTrue(refused.getMessage().contains("znode " + path + " was not written by Spool"), refused.getMessage());
    }

    @Test
    void shouldRefuseANodeGivenOtherMembersThanTheCluster() throws Exception {
        members = members(2);
        startNodes(1, 1);
        members = members(3);
        final SpoolException refused = assertThrows(SpoolException.class,
                () -> builder("b", tempDir.resolve("b"), 1).start());
        assertTrue(refused.getMessage().contains("every node must be given the same members"), refused.getMessage());
    }

    private void startNodes(final int count, final int ackQuorum) {
        for (int i = 0; i < count; i++) {
            final String id = members.get(i).nodeId();
            nodes.add(builder(id, tempDir.resolve(id), ackQuorum).start());
        }
    }

    private ClusterNode.Builder builder(final String id, final Path directory, final int ackQuorum) {
        final ClusterNode.Builder builder = ClusterNode.builder(zookeeper.getConnectString(), queueId, id, directory)
                .ackQuorum(ackQuorum).sessionTimeout(SESSION).connectTimeout(SESSION).sharedSecret(SECRET);
        members.forEach(builder::member);
        return builder;
    }

    private ClusterNode awaitPrimary(final long term) {
        await(() -> primary() != null && primary().term() == term, "a primary of term " + term);
        return primary();
    }

    private ClusterNode primary() {
        ClusterNode found = null;
        for (final ClusterNode node : nodes) {
            if (node.isPrimary()) {
                assertTrue(found == null, "two primaries: " + found + " and " + node.nodeId());
                found = node;
            }
        }
        return found;
    }

    private static List<byte[]> publish(final ClusterNode primary, final int from, final int to) {
        final List<byte[]> sent = new ArrayList<>();
        try (PublishClient client = PublishClient.builder(primary.member().gateway(), 1024).sharedSecret(SECRET).connect()) {
            for (int i = from; i < to; i++) {
                final byte[] message = ("message " + i).getBytes(StandardCharsets.UTF_8);
                final long correlation = client.publish(message, 0, message.length, CommitStage.ACKED_BY_QUORUM);
                assertTrue(client.awaitCommit(correlation, 10, TimeUnit.SECONDS) >= 0, "commit of message " + i);
                sent.add(message);
            }
        }
        return sent;
    }

    private long lastIndexOf(final ClusterNode node) {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve(node.nodeId())).readOnly().open()) {
            return queue.lastIndex();
        }
    }

    /**
     * Closes a node while others run: their sinks and sources see its connections go, which they log at WARN.
     */
    private void leave(final ClusterNode node) {
        expectWarning(": connection from ");
        expectWarning(": connection to ");
        node.close();
        nodes.remove(node);
    }

    /** Closes the primary first, so that its source does not see its followers leave. */
    private void closeAll() {
        // a sink may be writing an ack as its source goes
        expectWarning(": connection from ");
        nodes.sort((one, other) -> Boolean.compare(other.isPrimary(), one.isPrimary()));
        for (final ClusterNode node : nodes) {
            node.close();
        }
        nodes.clear();
    }

    static List<byte[]> read(final Path directory) {
        final List<byte[]> messages = new ArrayList<>();
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            final net.openhft.chronicle.bytes.Bytes<?> bytes = net.openhft.chronicle.bytes.Bytes.allocateElasticOnHeap();
            while (true) {
                bytes.clear();
                if (tailer.read(bytes) < 0) {
                    return messages;
                }
                messages.add(bytes.toByteArray());
            }
        }
    }

    private static void assertSameMessages(final List<byte[]> expected, final List<byte[]> actual, final String where) {
        assertEquals(expected.size(), actual.size(), where);
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), actual.get(i), where + ": message " + i);
        }
    }

    static List<Member> members(final int count) throws IOException {
        final List<Member> members = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final InetAddress loopback = InetAddress.getLoopbackAddress();
            members.add(Member.of(String.valueOf((char) ('a' + i)), new InetSocketAddress(loopback, freePort()),
                    new InetSocketAddress(loopback, freePort())));
        }
        return members;
    }

    static int freePort() throws IOException {
        return Ports.free();
    }

    static void await(final BooleanSupplier condition, final String what) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting until " + what);
            }
            LockSupport.parkNanos(5_000_000);
        }
    }
}
