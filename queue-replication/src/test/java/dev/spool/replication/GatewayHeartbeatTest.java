package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.FrozenGatewayTest.commit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The heartbeats of a publish gateway and its client: they keep a client that waits long on a live gateway, both
 * ways, and cost no allocation; the client's liveness settings are checked.
 */
class GatewayHeartbeatTest extends SpoolTestBase {
    /** One-offs the JIT may cause inside the window; one object per heartbeat would be thousands of bytes. */
    private static final long ONE_OFF_BYTES = 16 * 1024;

    @Test
    void shouldKeepAClientThatWaitsPastItsLivenessTimeoutThroughHeartbeatsBothWays() {
        try (SpoolQueue queue = Replicas.open(tempDir.resolve("q"));
             PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(Replicas.SECRET)
                     .heartbeatInterval(Duration.ofMillis(100)).idleTimeout(Duration.ofMillis(700)).start()) {
            warmUp(gateway);
            try (PublishClient client = PublishClient.builder(gateway.address(), 1024).sharedSecret(Replicas.SECRET)
                    .heartbeatInterval(Duration.ofMillis(100)).livenessTimeout(Duration.ofMillis(700)).connect()) {
                final byte[] message = Replicas.message(1);
                // without a replica, ACKED never commits: the client waits three liveness timeouts, and the gateway
                // three idle timeouts, each side hearing only the other's heartbeats
                assertEquals(-1, client.awaitCommit(client.publish(message, 0, message.length, CommitStage.ACKED), 2_100,
                        TimeUnit.MILLISECONDS));
                assertTrue(commit(client, 2) >= 0, "the same connection commits: a fixed address does not reconnect");
            }
        }
    }

    /**
     * The gateway's first append creates the cycle file, which a loaded disk may take longer than a short liveness
     * timeout for: done by a patient client first.
     */
    private static void warmUp(final PublishGateway gateway) {
        try (PublishClient patient = PublishClient.builder(gateway.address(), 1024).sharedSecret(Replicas.SECRET)
                .livenessTimeout(Duration.ofSeconds(60)).connect()) {
            assertTrue(commit(patient, 0) >= 0);
        }
    }

    @Test
    void shouldRefuseAHeartbeatIntervalNotShorterThanTheLivenessTimeout() {
        final InetSocketAddress nowhere = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
        final SpoolException refused = assertThrows(SpoolException.class, () -> PublishClient.builder(nowhere, 64)
                .insecure().heartbeatInterval(Duration.ofSeconds(2)).livenessTimeout(Duration.ofSeconds(2)).connect());
        assertEquals("heartbeatInterval=PT2S of a client of the publish gateway at " + nowhere
                + " must be shorter than its livenessTimeout=PT2S", refused.getMessage());
    }

    @Test
    void shouldAllocateNothingPerHeartbeatOrLookOfAClientWaitingForACommit() {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (SpoolQueue queue = Replicas.open(tempDir.resolve("q"));
             PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(Replicas.SECRET)
                     .heartbeatInterval(Duration.ofMillis(20)).start()) {
            warmUp(gateway);
            final PublishClient client = PublishClient.builder(gateway.address(), 1024).sharedSecret(Replicas.SECRET)
                    .heartbeatInterval(Duration.ofMillis(20)).livenessTimeout(Duration.ofMillis(500)).connect();
            final byte[] message = Replicas.message(1);
            final long sequence = client.publish(message, 0, message.length, CommitStage.ACKED);
            // warm up: the waits' first passes, heartbeats both ways
            assertEquals(-1, client.awaitCommit(sequence, 1_000, TimeUnit.MILLISECONDS));
            final long before = threads.getCurrentThreadAllocatedBytes();
            // about 100 heartbeats each way and 200 looks
            assertEquals(-1, client.awaitCommit(sequence, 2_000, TimeUnit.MILLISECONDS));
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            System.out.println("a client waiting 2 s for a commit, heartbeats every 20 ms: " + allocated
                    + " bytes allocated");
            assertTrue(allocated <= ONE_OFF_BYTES, "the waiting client allocated " + allocated + " bytes");
            client.close();
        }
    }
}
