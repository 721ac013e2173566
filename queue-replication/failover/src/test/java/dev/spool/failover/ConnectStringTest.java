package dev.spool.failover;

import dev.spool.queue.SpoolTestBase;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A node reaches ZooKeeper only through the connect string it was given, never through the addresses the ensemble
 * publishes of itself: one behind a proxy that drops it is cut off, and its session ends.
 */
class ConnectStringTest extends SpoolTestBase {
    @Test
    void shouldLoseItsSessionWhenEveryAddressOfItsConnectStringIsCutEvenIfTheServersAreReachable() throws Exception {
        // ZooKeeper's clients log the connections this test breaks on purpose
        expectWarning("org.apache.zookeeper");
        expectWarning("org.apache.curator");
        // the lone node of three waits for a second candidate all along: the election rule, not a fault
        expectWarning("node a does not promote, for");
        final List<InstanceSpec> specs = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            specs.add(new InstanceSpec(Files.createDirectories(tempDir.resolve("zk" + s)).toFile(), -1, -1, -1, true,
                    s + 1, 100, -1));
        }
        final UUID queueId = UUID.randomUUID();
        final List<Relay> relays = new ArrayList<>();
        try (TestingCluster zooKeeper = new TestingCluster(specs)) {
            zooKeeper.start();
            final List<String> connect = new ArrayList<>();
            for (final InstanceSpec spec : specs) {
                final Relay relay = new Relay(spec.getPort(), "zk" + spec.getServerId());
                relays.add(relay);
                connect.add("127.0.0.1:" + relay.port());
            }
            final InetAddress loopback = InetAddress.getLoopbackAddress();
            final ClusterNode.Builder builder = ClusterNode.builder(String.join(",", connect), queueId, "a",
                    tempDir.resolve("a")).sessionTimeout(ClusterNodeTest.SESSION).sharedSecret(ClusterNodeTest.SECRET);
            for (final String id : List.of("a", "b", "c")) {
                builder.member(Member.of(id, new InetSocketAddress(loopback, ClusterNodeTest.freePort()),
                        new InetSocketAddress(loopback, ClusterNodeTest.freePort())));
            }
            try (ClusterNode node = builder.start();
                 ZooKeeperView view = new ZooKeeperView(zooKeeper.getConnectString(), queueId)) {
                assertEquals(List.of("a"), List.copyOf(view.nodes().keySet()));
                relays.forEach(Relay::block);
                ClusterNodeTest.await(() -> {
                    try {
                        return view.nodes().isEmpty();
                    } catch (Exception e) {
                        throw new AssertionError("reading " + zooKeeper.getConnectString(), e);
                    }
                }, "the session of node a, cut off from every address it was given, ends");
                relays.forEach(Relay::unblock);
                ClusterNodeTest.await(() -> node.state() == NodeState.CANDIDATE && registered(view),
                        "node a is back with a new session");
            }
        } finally {
            for (final Relay relay : relays) {
                relay.close();
            }
        }
    }

    private static boolean registered(final ZooKeeperView view) {
        try {
            return view.nodes().containsKey("a");
        } catch (Exception e) {
            throw new AssertionError("reading ZooKeeper", e);
        }
    }
}
