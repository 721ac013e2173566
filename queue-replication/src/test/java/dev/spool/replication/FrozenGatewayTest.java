package dev.spool.replication;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A gateway whose process is frozen (SIGSTOP: its sockets stay open, it answers nothing) is declared dead by its
 * client within the client's liveness timeout: a client with a locator leaves it for the gateway the locator names
 * then, and one with a fixed address fails the call, naming the gateway and its silence; a locator that counts a change
 * moves its client at once.
 */
class FrozenGatewayTest extends SpoolTestBase {
    /** What a loaded machine may add to the liveness timeout: a heartbeat interval, a pass, a reconnection. */
    private static final long SLACK_MS = 1_500;

    @Test
    void shouldLeaveAFrozenGatewayWithinTheLivenessTimeoutForTheOneTheLocatorNamesThen() throws Exception {
        expectWarning("sent nothing for");
        final Path stderr = tempDir.resolve("gateways.err");
        try (ChildJvm frozen = ChildJvm.start(ReplicationMains.LoneGateway.class, stderr, tempDir.resolve("a").toString());
             ChildJvm other = ChildJvm.start(ReplicationMains.LoneGateway.class, stderr, tempDir.resolve("b").toString())) {
            final InetSocketAddress first = address(frozen);
            final InetSocketAddress second = address(other);
            final AtomicReference<InetSocketAddress> named = new AtomicReference<>(first);
            try (PublishClient client = PublishClient.builder(named::get, 1024).sharedSecret(Replicas.SECRET).connect()) {
                for (long m = 0; m < 3; m++) {
                    assertTrue(commit(client, m) >= 0, "message " + m + " committed by the first gateway");
                }
                assertEquals(first, client.gateway());
                frozen.freeze();
                try {
                    final long frozeAt = System.nanoTime();
                    named.set(second);
                    final long index = commit(client, 3);
                    final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozeAt);
                    System.out.println("frozen gateway: next commit " + ms + " ms after the freeze, from " + client.gateway());
                    assertTrue(index >= 0, "the message published to the frozen gateway is committed");
                    assertEquals(second, client.gateway(), "the commit came from the gateway the locator names");
                    assertTrue(ms <= PublishClient.DEFAULT_LIVENESS_TIMEOUT_MS + SLACK_MS, "next commit after " + ms
                            + " ms, more than the liveness timeout of " + PublishClient.DEFAULT_LIVENESS_TIMEOUT_MS + " ms");
                } finally {
                    frozen.thaw();
                }
            }
        }
    }

    @Test
    void shouldFailACallOnAFrozenGatewayOfAFixedAddressNamingItAndItsSilence() throws Exception {
        expectWarning("sent nothing for");
        final Path stderr = tempDir.resolve("gateway.err");
        try (ChildJvm frozen = ChildJvm.start(ReplicationMains.LoneGateway.class, stderr, tempDir.resolve("a").toString())) {
            final InetSocketAddress gateway = address(frozen);
            try (PublishClient client = PublishClient.connect(gateway, 1024, Replicas.SECRET)) {
                assertTrue(commit(client, 0) >= 0);
                frozen.freeze();
                try {
                    final long frozeAt = System.nanoTime();
                    final byte[] message = Replicas.message(1);
                    final long sequence = client.publish(message, 0, message.length, CommitStage.WRITTEN);
                    final UncheckedIOException failed = assertThrows(UncheckedIOException.class, () -> {
                        final long index = client.awaitCommit(sequence, 20, TimeUnit.SECONDS);
                        fail("the frozen gateway's commit returned " + index + " after "
                                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozeAt) + " ms");
                    });
                    final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozeAt);
                    final String why = String.valueOf(failed.getCause().getMessage());
                    assertTrue(why.startsWith("the publish gateway at " + gateway + " sent nothing for "), why);
                    assertTrue(ms <= PublishClient.DEFAULT_LIVENESS_TIMEOUT_MS + SLACK_MS, "failed after " + ms + " ms");
                } finally {
                    frozen.thaw();
                }
            }
        }
    }

    @Test
    void shouldLeaveAFrozenGatewayAtOnceWhenTheLocatorCountsAChange() throws Exception {
        final Path stderr = tempDir.resolve("gateways.err");
        try (ChildJvm frozen = ChildJvm.start(ReplicationMains.LoneGateway.class, stderr, tempDir.resolve("a").toString());
             ChildJvm other = ChildJvm.start(ReplicationMains.LoneGateway.class, stderr, tempDir.resolve("b").toString())) {
            final InetSocketAddress first = address(frozen);
            final InetSocketAddress second = address(other);
            final AtomicReference<InetSocketAddress> named = new AtomicReference<>(first);
            final AtomicLong generation = new AtomicLong();
            final GatewayLocator locator = new GatewayLocator() {
                @Override
                public InetSocketAddress gateway() {
                    return named.get();
                }

                @Override
                public long generation() {
                    return generation.get();
                }
            };
            // a liveness timeout longer than the test: only the locator's change can move the client
            try (PublishClient client = PublishClient.builder(locator, 1024).sharedSecret(Replicas.SECRET)
                    .livenessTimeout(Duration.ofSeconds(60)).timeout(Duration.ofSeconds(60)).connect()) {
                assertTrue(commit(client, 0) >= 0);
                frozen.freeze();
                try {
                    final byte[] message = Replicas.message(1);
                    final long sequence = client.publish(message, 0, message.length, CommitStage.WRITTEN);
                    assertEquals(-1, client.awaitCommit(sequence, 200, TimeUnit.MILLISECONDS), "the frozen gateway answers nothing");
                    final long changedAt = System.nanoTime();
                    named.set(second);
                    generation.incrementAndGet();
                    final long index = client.awaitCommit(sequence, 20, TimeUnit.SECONDS);
                    final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - changedAt);
                    assertTrue(index >= 0, "the message is committed after the change");
                    assertEquals(second, client.gateway());
                    assertTrue(ms <= SLACK_MS, "committed " + ms + " ms after the locator's change");
                } finally {
                    frozen.thaw();
                }
            }
        }
    }

    static long commit(final PublishClient client, final long m) {
        final byte[] message = Replicas.message(m);
        return client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN), 20, TimeUnit.SECONDS);
    }

    private static InetSocketAddress address(final ChildJvm gateway) throws InterruptedException {
        final String line = gateway.awaitLine("GATEWAY", 60, TimeUnit.SECONDS);
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(line.substring("GATEWAY ".length())));
    }
}
