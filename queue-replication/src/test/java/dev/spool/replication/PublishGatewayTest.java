package dev.spool.replication;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

class PublishGatewayTest extends SpoolTestBase {
    @Test
    void shouldCommitEachPublishAtTheStageItsClientAskedFor() {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).start();
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET)
                     .heartbeatInterval(Duration.ofMillis(200)).start();
             PublishGateway gateway = PublishGateway.builder(primary, source).sharedSecret(Replicas.SECRET).start();
             PublishClient client = PublishClient.connect(gateway.address(), 8192, Replicas.SECRET)) {
            await(source::isConnected, "the source is connected");
            final CommitStage[] stages = CommitStage.values();
            for (int sequence = 0; sequence < 200; sequence++) {
                final CommitStage stage = stages[sequence % stages.length];
                final byte[] message = message(sequence);
                final long correlation = client.publish(message, 0, message.length, stage);
                final long index = client.awaitCommit(correlation, 30, TimeUnit.SECONDS);
                assertTrue(index >= 0, "message " + sequence + " committed at " + stage);
                if (stage == CommitStage.SYNCED) {
                    assertTrue(primary.lastSyncedIndex() >= index, "synced before the commit");
                }
                if (stage == CommitStage.ACKED || stage == CommitStage.ACKED_OR_SYNCED) {
                    assertTrue(Failover.lastAckedIndex(primary) >= index || primary.lastSyncedIndex() >= index);
                }
                if (stage == CommitStage.ACKED) {
                    assertTrue(sink.lastIndex() >= index, "on the replica before the commit");
                }
            }
            final Bytes<?> bytes = Bytes.allocateElasticOnHeap();
            try (ExcerptTailer tailer = primary.createTailer()) {
                for (int sequence = 0; sequence < 200; sequence++) {
                    bytes.clear();
                    assertTrue(tailer.read(bytes) >= 0);
                    assertEquals(sequence, sequenceOf(bytes.toByteArray()));
                }
            } finally {
                bytes.releaseLast();
            }
        }
    }

    @Test
    void shouldReleaseABurstOfCommitsLargerThanTheClientsSendBuffer() {
        // one sync releases every SYNCED publish read so far: thousands of 32-byte commits at once, more than the
        // gateway's 64 KiB send buffer for the client holds
        final int burst = 10_000;
        final byte[] tiny = {7};
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(Replicas.SECRET).start();
             PublishClient client = PublishClient.connect(gateway.address(), 8192, Replicas.SECRET)) {
            for (final CommitStage stage : new CommitStage[] {CommitStage.SYNCED, CommitStage.WRITTEN}) {
                final long first = client.publish(tiny, 0, 1, stage);
                for (int sequence = 1; sequence < burst; sequence++) {
                    client.publish(tiny, 0, 1, stage);
                }
                for (long correlation = first; correlation < first + burst; correlation++) {
                    assertTrue(client.awaitCommit(correlation, 30, TimeUnit.SECONDS) >= 0,
                            stage + " commit " + (correlation - first) + " of the burst arrived");
                }
                assertNull(gateway.failure(), "the gateway still runs");
            }
            long appended = 0;
            try (ExcerptTailer tailer = primary.createTailer()) {
                while (tailer.read((bytes, offset, length, index) -> { })) {
                    appended++;
                }
            }
            assertEquals(2L * burst, appended, "every publish appended once");
        }
    }

    @Test
    void shouldSyncForAckedOrSyncedWithoutAReplicaAndNeverAck() {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(Replicas.SECRET).start();
             PublishClient client = PublishClient.connect(gateway.address(), 8192, Replicas.SECRET)) {
            final byte[] message = message(1);
            final long synced = client.awaitCommit(client.publish(message, 0, message.length, CommitStage.ACKED_OR_SYNCED),
                    30, TimeUnit.SECONDS);
            assertTrue(synced >= 0);
            assertTrue(primary.lastSyncedIndex() >= synced);
            final long acked = client.publish(message, 0, message.length, CommitStage.ACKED);
            assertEquals(-1, client.awaitCommit(acked, 100, TimeUnit.MILLISECONDS), "no replica, no ack");
        }
    }
}
