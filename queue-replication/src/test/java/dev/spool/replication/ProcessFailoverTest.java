package dev.spool.replication;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Gateway (primary, source, publish gateway) and sinks in separate child JVMs, the client in the test's: the
 * primary is killed, its replica promoted, the promoted queue served by a new gateway to a new replica, and the
 * old primary, restarted, is fenced; with two replicas, the most advanced is promoted and the other follows it.
 */
class ProcessFailoverTest extends SpoolTestBase {
    @Test
    void shouldPromoteTheReplicaOfAKilledPrimaryAndFenceThePrimaryWhenItReturns() throws Exception {
        final Path a = tempDir.resolve("a");
        final Path b = tempDir.resolve("b");
        final Path c = tempDir.resolve("c");
        final Path stderr = tempDir.resolve("children.err");
        final int portB = freePort();
        final int portC = freePort();
        long lastAcked = -1;
        try (ChildJvm sinkB = startSink(b, portB, stderr)) {
            try (ChildJvm gatewayA = ChildJvm.start(ReplicationMains.Gateway.class, stderr, a.toString(), String.valueOf(portB))) {
                try (PublishClient client = PublishClient.connect(gatewayAddress(gatewayA), 8192, Replicas.SECRET)) {
                    for (long sequence = 0; sequence < 200; sequence++) {
                        final byte[] message = message(sequence);
                        final long index = client.awaitCommit(client.publish(message, 0, message.length, CommitStage.ACKED),
                                30, TimeUnit.SECONDS);
                        assertTrue(index > lastAcked, "message " + sequence + " committed once acked");
                        lastAcked = index;
                    }
                    for (long sequence = 200; sequence < 220; sequence++) {
                        final byte[] message = message(sequence);
                        client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN), 30, TimeUnit.SECONDS);
                    }
                }
                gatewayA.kill();
            }
            sinkB.send("PROMOTE");
            assertEquals("PROMOTED 1", sinkB.awaitLine("PROMOTED", 60, TimeUnit.SECONDS));
            assertEquals(0, sinkB.awaitExit(60, TimeUnit.SECONDS));
        }
        try (SpoolQueue promoted = open(b)) {
            assertEquals(ReplicationRole.PRIMARY, Failover.role(promoted));
            assertEquals(1, Failover.term(promoted));
            assertTrue(promoted.lastIndex() >= lastAcked, "every index acknowledged to the client is on the promoted replica");
        }
        assertPromotedContinuesAndOldIsFenced(a, b, c, portC, stderr, CommitStage.ACKED, lastAcked);
        try (SpoolQueue old = open(a); SpoolQueue promoted = open(b); SpoolQueue replica = open(c)) {
            assertEquals(ReplicationRole.FENCED, Failover.role(old));
            assertThrows(SpoolException.class, old::createAppender);
            assertEquals(promoted.lastIndex(), replica.lastIndex());
            assertIdentical(promoted, replica);
            assertEquals(1, Failover.term(replica));
        }
    }

    @Test
    void shouldPromoteTheMostAdvancedOfTwoReplicasWhichTheOtherFollowsWhileTheOldPrimaryIsFenced() throws Exception {
        final Path a = tempDir.resolve("a");
        final Path b = tempDir.resolve("b");
        final Path c = tempDir.resolve("c");
        final Path stderr = tempDir.resolve("children.err");
        final int portB = freePort();
        final int portC = freePort();
        long quorumAcked = -1;
        long acked = -1;
        try (ChildJvm sinkB = startSink(b, portB, stderr)) {
            try (ChildJvm sinkC = startSink(c, portC, stderr);
                 ChildJvm gatewayA = ChildJvm.start(ReplicationMains.Gateway.class, stderr, a.toString(), portB + "," + portC);
                 PublishClient client = PublishClient.connect(gatewayAddress(gatewayA), 8192, Replicas.SECRET)) {
                for (long sequence = 0; sequence < 100; sequence++) {
                    final byte[] message = message(sequence);
                    quorumAcked = client.awaitCommit(client.publish(message, 0, message.length,
                            CommitStage.ACKED_BY_QUORUM), 30, TimeUnit.SECONDS);
                }
                sinkC.kill();
                for (long sequence = 100; sequence < 150; sequence++) {
                    final byte[] message = message(sequence);
                    acked = client.awaitCommit(client.publish(message, 0, message.length, CommitStage.ACKED),
                            30, TimeUnit.SECONDS);
                }
                for (long sequence = 150; sequence < 160; sequence++) {
                    final byte[] message = message(sequence);
                    client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN), 30, TimeUnit.SECONDS);
                }
                gatewayA.kill();
            }
            sinkB.send("STOP");
            assertEquals(0, sinkB.awaitExit(60, TimeUnit.SECONDS));
        }
        try (SpoolQueue replicaB = open(b); SpoolQueue replicaC = open(c)) {
            assertTrue(replicaC.lastIndex() >= quorumAcked, "every index acknowledged by 2 of 2 is on c too");
            assertTrue(replicaB.lastIndex() >= acked, "every index acknowledged by any is on b, the only one connected");
            assertTrue(replicaC.lastIndex() < replicaB.lastIndex(), "c was killed before the last 60");
            assertSame(replicaB, Failover.mostAdvanced(List.of(replicaC, replicaB)));
            assertEquals(1, Failover.promote(replicaB));
        }
        assertPromotedContinuesAndOldIsFenced(a, b, c, portC, stderr, CommitStage.ACKED_BY_QUORUM, acked);
        try (SpoolQueue old = open(a); SpoolQueue promoted = open(b); SpoolQueue follower = open(c)) {
            assertEquals(ReplicationRole.FENCED, Failover.role(old));
            assertEquals(ReplicationRole.REPLICA, Failover.role(follower));
            assertEquals(1, Failover.term(follower), "the follower took the new primary's term");
            assertTrue(assertIdentical(promoted, follower) >= 151, "c caught up from its last index, no gap, no duplicate");
        }
    }

    /**
     * With the promoted queue {@code b} replicating to {@code c}, a client publishes through {@code b}'s gateway up
     * to {@code stage}, which must land after {@code after}; then the old primary {@code a} starts again as a primary
     * replicating to {@code c}, and must fail, fenced by term 1.
     */
    private static void assertPromotedContinuesAndOldIsFenced(final Path a, final Path b, final Path c, final int portC,
                                                              final Path stderr, final CommitStage stage,
                                                              final long after) throws Exception {
        try (ChildJvm sinkC = startSink(c, portC, stderr);
             ChildJvm gatewayB = ChildJvm.start(ReplicationMains.Gateway.class, stderr, b.toString(), String.valueOf(portC))) {
            try (PublishClient client = PublishClient.connect(gatewayAddress(gatewayB), 8192, Replicas.SECRET)) {
                final byte[] message = message(1_000);
                final long index = client.awaitCommit(client.publish(message, 0, message.length, stage), 30,
                        TimeUnit.SECONDS);
                assertTrue(index > after, "the promoted queue continues after its last index");
            }
            try (ChildJvm oldA = ChildJvm.start(ReplicationMains.Gateway.class, stderr, a.toString(), String.valueOf(portC))) {
                gatewayAddress(oldA);
                final String failed = oldA.awaitLine("FAILED", 60, TimeUnit.SECONDS);
                assertTrue(failed.contains("is fenced"), failed);
                assertTrue(failed.contains("has term 1"), failed);
            }
        }
    }

    private static InetSocketAddress gatewayAddress(final ChildJvm gateway) throws InterruptedException {
        final String line = gateway.awaitLine("GATEWAY", 60, TimeUnit.SECONDS);
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(line.substring("GATEWAY ".length())));
    }

    private static ChildJvm startSink(final Path dir, final int port, final Path stderr) throws Exception {
        final ChildJvm sink = ChildJvm.start(ReplicationMains.Sink.class, stderr, dir.toString(), String.valueOf(port));
        sink.awaitLine("LISTENING", 60, TimeUnit.SECONDS);
        return sink;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
