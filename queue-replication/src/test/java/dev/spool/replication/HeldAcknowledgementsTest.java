package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/** A primary that may have been deposed holds its acknowledgements: no acknowledged stage is reached until released. */
class HeldAcknowledgementsTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final CommitStage[] ACKNOWLEDGED = {CommitStage.ACKED, CommitStage.ACKED_OR_SYNCED,
            CommitStage.ACKED_BY_QUORUM, CommitStage.ACKED_BY_QUORUM_OR_SYNCED, CommitStage.ACKED_BY_ALL,
            CommitStage.ACKED_BY_ALL_OR_SYNCED};

    private ReplicationSink sink() {
        return ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET)
                .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).start();
    }

    private static ReplicationSource source(final SpoolQueue queue, final ReplicationSink sink) {
        return ReplicationSource.builder(queue, sink.address()).sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100)).start();
    }

    @Test
    void shouldReachNoAcknowledgedStageWhileHeldEvenWhenSyncedAndEveryOneAfterRelease() throws InterruptedException {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink);
             CommitWaiter waiter = source.commitWaiter(appender)) {
            assertTrue(waiter.await(appender.append(message(0)), CommitStage.ACKED, 30, TimeUnit.SECONDS));
            source.holdAcknowledgements();
            assertTrue(source.acknowledgementsHeld());
            final Map<CommitStage, Long> written = new EnumMap<>(CommitStage.class);
            for (final CommitStage stage : ACKNOWLEDGED) {
                final long index = appender.append(message(written.size() + 1));
                written.put(stage, index);
                assertFalse(waiter.await(index, stage, 50, TimeUnit.MILLISECONDS), stage + " is not reached while held");
            }
            final long last = primary.lastIndex();
            assertTrue(primary.lastSyncedIndex() < written.get(CommitStage.ACKED_OR_SYNCED),
                    "no _OR_SYNCED stage fell back to a sync");
            await(() -> Failover.quorumAckedIndex(primary) >= last, "the replica acknowledged everything");
            final long synced = appender.append(message(99));
            assertTrue(waiter.await(synced, CommitStage.SYNCED, 30, TimeUnit.SECONDS), "SYNCED is not held");
            assertTrue(waiter.await(synced, CommitStage.WRITTEN, 0, TimeUnit.SECONDS), "WRITTEN is not held");
            for (final Map.Entry<CommitStage, Long> write : written.entrySet()) {
                assertFalse(waiter.isCommitted(write.getValue(), write.getKey()),
                        write.getKey() + " is not reached while held, though acknowledged and synced");
            }
            source.releaseAcknowledgements();
            assertFalse(source.acknowledgementsHeld());
            for (final Map.Entry<CommitStage, Long> write : written.entrySet()) {
                assertTrue(waiter.await(write.getValue(), write.getKey(), 30, TimeUnit.SECONDS),
                        write.getKey() + " is reached after the release");
            }
        }
    }

    @Test
    void shouldNotFallBackToASyncWhileHeldWithNoReplicaConnected() throws InterruptedException {
        expectWarning("lost");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink);
             CommitWaiter waiter = source.commitWaiter(appender)) {
            assertTrue(waiter.await(appender.append(message(0)), CommitStage.ACKED, 30, TimeUnit.SECONDS));
            sink.close();
            await(() -> !source.isConnected(), "the source sees the replica is away");
            source.holdAcknowledgements();
            final long index = appender.append(message(1));
            for (final CommitStage stage : new CommitStage[] {CommitStage.ACKED_OR_SYNCED,
                    CommitStage.ACKED_BY_QUORUM_OR_SYNCED, CommitStage.ACKED_BY_ALL_OR_SYNCED}) {
                assertFalse(waiter.await(index, stage, 50, TimeUnit.MILLISECONDS), stage + " is not reached while held");
            }
            assertTrue(primary.lastSyncedIndex() < index, "nothing was synced for a held stage");
            source.releaseAcknowledgements();
            assertTrue(waiter.await(index, CommitStage.ACKED_OR_SYNCED, 30, TimeUnit.SECONDS));
            assertTrue(primary.lastSyncedIndex() >= index, "released, the stage falls back to a sync again");
        }
    }

    @Test
    void shouldSendAGatewayClientNoCommitAtAnAcknowledgedStageWhileHeld() {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ReplicationSink sink = sink();
             ReplicationSource source = source(primary, sink);
             PublishGateway gateway = PublishGateway.builder(primary, source).sharedSecret(Replicas.SECRET).start();
             PublishClient client = PublishClient.connect(gateway.address(), 8192, Replicas.SECRET)) {
            await(source::isConnected, "the source is connected");
            source.holdAcknowledgements();
            final long[] correlations = new long[ACKNOWLEDGED.length];
            for (int i = 0; i < ACKNOWLEDGED.length; i++) {
                final byte[] message = message(i);
                correlations[i] = client.publish(message, 0, message.length, ACKNOWLEDGED[i]);
            }
            final byte[] synced = message(99);
            final long syncedIndex = client.awaitCommit(client.publish(synced, 0, synced.length, CommitStage.SYNCED),
                    30, TimeUnit.SECONDS);
            assertTrue(syncedIndex >= 0, "SYNCED is not held");
            await(() -> Failover.quorumAckedIndex(primary) >= syncedIndex, "the replica acknowledged everything");
            for (int i = 0; i < ACKNOWLEDGED.length; i++) {
                assertEquals(-1, client.awaitCommit(correlations[i], 50, TimeUnit.MILLISECONDS),
                        ACKNOWLEDGED[i] + " is not committed while held");
            }
            source.releaseAcknowledgements();
            for (int i = 0; i < ACKNOWLEDGED.length; i++) {
                assertTrue(client.awaitCommit(correlations[i], 30, TimeUnit.SECONDS) >= 0,
                        ACKNOWLEDGED[i] + " is committed after the release");
            }
            assertNull(gateway.failure());
        }
    }
}
