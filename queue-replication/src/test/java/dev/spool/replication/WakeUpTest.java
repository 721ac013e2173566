package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Threads that sleep until something happens are woken by that event, not by a timer: every sleep and park here
 * is capped at a minute or more, and every wait fails after 10 s, so a missed wake-up fails the test.
 */
class WakeUpTest extends SpoolTestBase {
    /** The source sleeps at most half of it, the sink's select as long. */
    private static final Duration HEARTBEAT = Duration.ofMinutes(4);
    private static final Duration LONG_SLEEP = Duration.ofMinutes(10);
    private static final int MESSAGES = 50;

    private ReplicationSink sink() {
        return ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(1 << 20))
                .heartbeatInterval(HEARTBEAT).start();
    }

    private static ReplicationSource source(final SpoolQueue primary, final ReplicationSink sink) {
        return ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT).maxSleep(LONG_SLEEP)
                .start();
    }

    @Test
    void shouldWakeTheSleepingSourceOnAppendAndTheParkedWaiterOnAck() throws InterruptedException {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink);
             CommitWaiter waiter = new CommitWaiter(primary, source, appender, null, LONG_SLEEP.toNanos(), 0, 0)) {
            await(source::isConnected, "the source is connected");
            for (int sequence = 0; sequence < MESSAGES; sequence++) {
                await(source::isSleeping, "the source sleeps before message " + sequence);
                final long index = appender.append(message(sequence));
                assertTrue(waiter.await(index, CommitStage.ACKED, 10, TimeUnit.SECONDS),
                        "message " + sequence + " is acknowledged within 10 s although the source sleeps for minutes");
            }
            assertTrue(waiter.parks > 0, "the waiter parked, and acknowledgements unparked it");
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(MESSAGES, assertIdentical(primary, replica));
        }
    }

    @Test
    void shouldWakeTheGatewayWaitingForTheReplicaOnAck() {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink);
             PublishGateway gateway = gateway(primary, source);
             PublishClient client = PublishClient.connect(gateway.address(), 8192, Replicas.SECRET)) {
            await(source::isConnected, "the source is connected");
            for (int sequence = 0; sequence < MESSAGES; sequence++) {
                final byte[] message = message(sequence);
                final long correlation = client.publish(message, 0, message.length, CommitStage.ACKED);
                final long index = client.awaitCommit(correlation, 10, TimeUnit.SECONDS);
                assertTrue(index >= 0 && Failover.lastAckedIndex(primary) >= index,
                        "message " + sequence + " committed on the replica's ack within 10 s");
            }
        }
    }

    private static PublishGateway gateway(final SpoolQueue primary, final ReplicationSource source) {
        final PublishGateway.Builder builder = PublishGateway.builder(primary, source).sharedSecret(Replicas.SECRET);
        builder.maxSleepMs = LONG_SLEEP.toMillis();
        return builder.start();
    }
}
