package dev.spool.replication;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/** The services as Agrona agents: composed on one application thread, invoked with no thread, never blocking. */
class AgentModelTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    /** Longer than any pause a busy machine gave a test thread here (up to 150 ms seen), shorter than the handshake's 600 ms. */
    private static final Duration BACK_OFF = Duration.ofMillis(400);

    @Test
    void shouldRunSinkSourceAndGatewayComposedOnOneApplicationThreadAndStartNoThreadOfTheirOwn() {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).invoked().start();
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT)
                     .invoked().start();
             PublishGateway gateway = PublishGateway.builder(primary, source).sharedSecret(Replicas.SECRET).invoked().start()) {
            for (final String name : List.of(ReplicationSink.THREAD_NAME, ReplicationSource.THREAD_NAME,
                    PublishGateway.THREAD_NAME)) {
                assertFalse(threadNames().contains(name), "an invoked service starts no thread: " + threadNames());
            }
            final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), Throwable::printStackTrace, null,
                    new CompositeAgent(sink, source, gateway));
            final Thread thread = AgentRunner.startOnThread(runner);
            try (PublishClient client = PublishClient.connect(gateway.address(), 8192, Replicas.SECRET)) {
                for (int sequence = 0; sequence < 100; sequence++) {
                    final byte[] message = message(sequence);
                    final long index = client.awaitCommit(client.publish(message, 0, message.length,
                            CommitStage.ACKED), 30, TimeUnit.SECONDS);
                    assertTrue(index >= 0 && sink.lastIndex() >= index, "message " + sequence
                            + " went through the gateway, the source and the sink, all on " + thread.getName());
                }
            } finally {
                runner.close();
            }
            assertNull(sink.failure());
            assertNull(source.failure());
            assertNull(gateway.failure());
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(100, assertIdentical(primary, replica));
        }
    }

    @Test
    void shouldNeverBlockInDoWorkWhileTheSinkIsSilentAndRetryAfterTheBackOff() throws Exception {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ServerSocketChannel silent = ServerSocketChannel.open()) {
            // accepts and never answers: the connect completes, the handshake waits for a WELCOME that never comes
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            silent.configureBlocking(false);
            final List<SocketChannel> accepted = new ArrayList<>();
            try (ReplicationSource source = ReplicationSource.builder(primary,
                    (InetSocketAddress) silent.getLocalAddress()).sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT)
                    .reconnectBackoff(BACK_OFF, BACK_OFF).invoked().start()) {
                long longestNs = 0;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (accepted.size() < 4) {
                    assertTrue(System.nanoTime() - deadline < 0, "the source retried " + accepted.size() + " times");
                    final long start = System.nanoTime();
                    source.doWork();
                    if (accepted.size() >= 2) {
                        // after the first attempt's one-offs (class loading, the nonces' SecureRandom, logging)
                        longestNs = Math.max(longestNs, System.nanoTime() - start);
                    }
                    final SocketChannel channel = silent.accept();
                    if (channel != null) {
                        accepted.add(channel);
                    }
                }
                assertFalse(source.isConnected());
                assertNull(source.failure(), "a silent sink is retried, not fatal");
                // two 600 ms handshake timeouts and two 400 ms back-offs passed in calls that each returned before
                // the shortest of them could have: none of them waited (the margin is for a busy machine's pauses)
                assertTrue(longestNs < BACK_OFF.toNanos() * 7 / 8, "the longest doWork took " + longestNs + " ns");
            } finally {
                for (final SocketChannel channel : accepted) {
                    channel.close();
                }
            }
        }
    }

    private static List<String> threadNames() {
        final List<String> names = new ArrayList<>();
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            names.add(thread.getName());
        }
        return names;
    }
}
