package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/** A source whose streaming runs on the caller's threads, through {@link ReplicationSource#doWork()}. */
class InvokedSourceTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    private ReplicationSink sink(final int port) {
        return ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(1 << 20))
                .port(port).heartbeatInterval(HEARTBEAT).start();
    }

    private static ReplicationSource invokedSource(final SpoolQueue primary, final ReplicationSink sink) {
        return ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100)).invoked().start();
    }

    /** Calls {@code doWork} until the condition holds: nothing else streams for an invoked source. */
    private static void invokeUntil(final ReplicationSource source, final java.util.function.BooleanSupplier done,
                                    final String what) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out invoking the source until " + what);
            }
            if (source.doWork() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void shouldStreamWhileTheWaiterWaitsAndResumeWithoutGapAfterTheSinkRestarts() throws InterruptedException {
        expectWarning("lost");
        expectWarning("connection to");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            try (ReplicationSink sink = sink(0); ReplicationSource source = invokedSource(primary, sink);
                 CommitWaiter waiter = source.commitWaiter(appender)) {
                assertTrue(source.isInvoked());
                invokeUntil(source, source::isConnected, "the source connected, invoked: it has no thread to do so");
                for (int sequence = 0; sequence < 500; sequence++) {
                    final long index = appender.append(message(sequence));
                    if (sequence % 50 == 49) {
                        assertTrue(waiter.await(index, CommitStage.ACKED, 30, TimeUnit.SECONDS),
                                "the waiter streamed message " + sequence + " and read its acknowledgement");
                    }
                }
                final int port = sink.address().getPort();
                sink.close();
                append(appender, 500, 1_000);
                invokeUntil(source, () -> !source.isConnected(), "the source hands the lost connection back");
                try (ReplicationSink restarted = sink(port)) {
                    invokeUntil(source, () -> restarted.lastIndex() == primary.lastIndex()
                            && Failover.lastAckedIndex(primary) == primary.lastIndex(), "the restarted sink caught up");
                }
            }
            try (SpoolQueue replica = open(tempDir.resolve("replica"))) {
                assertEquals(1_000, assertIdentical(primary, replica));
            }
        }
    }

    @Test
    void shouldRefuseDoWorkOnASourceWithItsOwnThread() {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ReplicationSink sink = sink(0);
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).start()) {
            assertFalse(source.isInvoked());
            final SpoolException refused = assertThrows(SpoolException.class, source::doWork);
            assertTrue(refused.getMessage().contains("runs on its own thread"), refused.getMessage());
        }
    }

    @Test
    void shouldLetTheGatewayStreamForAnInvokedSource() {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ReplicationSink sink = sink(0);
             ReplicationSource source = invokedSource(primary, sink);
             PublishGateway gateway = PublishGateway.builder(primary, source).sharedSecret(Replicas.SECRET).start();
             PublishClient client = PublishClient.connect(gateway.address(), 8192, Replicas.SECRET)) {
            await(source::isConnected, "the source is connected");
            final CommitStage[] stages = CommitStage.values();
            for (int sequence = 0; sequence < 100; sequence++) {
                final CommitStage stage = stages[sequence % stages.length];
                final byte[] message = message(sequence);
                final long index = client.awaitCommit(client.publish(message, 0, message.length, stage), 30,
                        TimeUnit.SECONDS);
                assertTrue(index >= 0, "message " + sequence + " committed at " + stage);
                if (stage == CommitStage.ACKED) {
                    assertTrue(sink.lastIndex() >= index && Failover.lastAckedIndex(primary) >= index,
                            "the gateway streamed message " + sequence + " to the replica before its commit");
                }
            }
        }
    }
}
