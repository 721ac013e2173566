package dev.spool.replication;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.protocol.CommitFlyweight;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.SECRET;
import static dev.spool.replication.Replicas.awaitReplicated;
import static dev.spool.replication.Replicas.message;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_IN_DOUBT;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_SEQUENCE;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_WRITER_FENCED;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_COMMIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writer identity is fenced as Kafka fences a producer: a new instance of a client id gets the id's next epoch and
 * fences the old one; sequences are contiguous per epoch; a re-send is acknowledged as the original only if its bytes
 * match; one whose state the gateway forgot is refused as in doubt. The epochs survive a gateway restart and a
 * failover to a replica, because each excerpt stores its writer's epoch.
 */
class WriterEpochTest extends SpoolTestBase {
    private static final int MAX_MESSAGE = 8192;

    private static SpoolQueue openWithPublisherIds(final Path directory) {
        return SpoolQueue.builder(directory).chunkLength(1 << 20).checksums(true).publisherIds(true).openOrCreate();
    }

    /** @return every payload of the queue, in index order. */
    private static List<byte[]> readAll(final SpoolQueue queue) {
        final List<byte[]> read = new ArrayList<>();
        try (ExcerptTailer tailer = queue.createTailer()) {
            while (tailer.read((bytes, offset, length, index) -> {
                final byte[] payload = new byte[length];
                bytes.read(offset, payload, 0, length);
                read.add(payload);
            })) {
                assertFalse(read.isEmpty());
            }
        }
        return read;
    }

    private static long count(final SpoolQueue queue, final byte[] payload) {
        return readAll(queue).stream().filter(p -> Arrays.equals(p, payload)).count();
    }

    private static long commitIndex(final ByteBuffer frame, final long sequence) {
        assertEquals(TYPE_COMMIT, Wire.type(frame), () -> "a COMMIT, not " + RawWriter.text(frame));
        final CommitFlyweight commit = new CommitFlyweight().wrap(frame, 0);
        assertEquals(sequence, commit.sequence());
        return commit.index();
    }

    private static long publish(final PublishClient client, final long message) {
        final byte[] bytes = message(message);
        return client.publish(bytes, 0, bytes.length, CommitStage.WRITTEN);
    }

    @Test
    void shouldFenceTheFirstInstanceOfAClientIdAndWriteEveryMessageOfTheSecond() {
        expectWarning("fenced by epoch 2");
        try (SpoolQueue queue = openWithPublisherIds(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(SECRET).start();
             PublishClient first = PublishClient.builder(gateway.address(), MAX_MESSAGE).sharedSecret(SECRET)
                     .clientId(0xA11CE).connect()) {
            final List<Long> firstIndices = new ArrayList<>();
            for (long i = 1; i <= 3; i++) {
                firstIndices.add(first.awaitCommit(publish(first, i), 30, TimeUnit.SECONDS));
            }
            // a restarted process with the same fixed id: a new instance, numbering its messages from 1 again
            try (PublishClient second = PublishClient.builder(gateway.address(), MAX_MESSAGE).sharedSecret(SECRET)
                    .clientId(0xA11CE).connect()) {
                for (long i = 101; i <= 103; i++) {
                    final long sequence = publish(second, i);
                    assertEquals(i - 100, sequence, "the new instance numbers its messages from 1");
                    final long index = second.awaitCommit(sequence, 30, TimeUnit.SECONDS);
                    assertTrue(index >= 0);
                    assertFalse(firstIndices.contains(index), "message " + i + " of the second instance committed"
                            + " at index " + index + ", which holds a message of the first");
                }
                for (long i = 1; i <= 3; i++) {
                    assertEquals(1, count(queue, message(i)), "message " + i + " of the first instance, once");
                    assertEquals(1, count(queue, message(100 + i)), "message " + (100 + i) + " of the second, once");
                }
                assertEquals(6, readAll(queue).size());
                final SpoolException fenced = assertThrows(SpoolException.class, () -> {
                    first.awaitCommit(publish(first, 4), 30, TimeUnit.SECONDS);
                }, "the fenced instance's next publish fails, at once");
                assertTrue(fenced.getMessage().contains("client id 0xa11ce epoch 1 was fenced by epoch 2"),
                        fenced.getMessage());
                assertEquals(6, readAll(queue).size(), "nothing of the fenced instance is written");
            }
            assertNull(gateway.failure());
        }
    }

    @Test
    void shouldRefuseSequencesOutOfRangeAndKeepTheIdUsableAfterARestart() throws IOException {
        expectWarning("is insecure()");
        expectWarning("where 2 was expected");
        expectWarning("where 1 was expected");
        final Path directory = tempDir.resolve("primary");
        try (SpoolQueue queue = openWithPublisherIds(directory)) {
            try (PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start()) {
                try (RawWriter writer = RawWriter.open(gateway.address(), 0x77)) {
                    assertEquals(1, writer.epoch);
                    commitIndex(writer.publish(1, message(1)), 1);
                    final ByteBuffer huge = writer.publish(Long.MAX_VALUE, message(2));
                    assertEquals(ERROR_SEQUENCE, RawWriter.code(huge));
                    assertTrue(RawWriter.text(huge).contains("client id 0x77 epoch 1 sent sequence "
                            + Long.MAX_VALUE + ", where 2 was expected"), RawWriter.text(huge));
                }
                for (final long bad : new long[]{Long.MAX_VALUE, 0, -1, 1L << 48}) {
                    try (RawWriter writer = RawWriter.open(gateway.address(), 0x78)) {
                        final ByteBuffer refused = writer.publish(bad, message(3));
                        assertEquals(ERROR_SEQUENCE, RawWriter.code(refused));
                        assertTrue(RawWriter.text(refused).contains("client id 0x78 epoch " + writer.epoch
                                + " sent sequence " + bad + ", where 1 was expected"), RawWriter.text(refused));
                    }
                }
                assertEquals(1, readAll(queue).size(), "no sequence out of range is written");
            }
            // neither the id nor a later instance of it is poisoned, also after the gateway's restart
            try (PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start();
                 PublishClient client = PublishClient.builder(gateway.address(), MAX_MESSAGE).insecure()
                         .clientId(0x77).connect()) {
                final long last = queue.lastIndex();
                assertEquals(last + 1, client.awaitCommit(publish(client, 2), 30, TimeUnit.SECONDS));
                assertEquals(2, client.epoch(), "the restarted gateway read epoch 1 back from the queue");
            }
        }
    }

    @Test
    void shouldRefuseAGapNamingTheIdEpochAndBothSequences() throws IOException {
        expectWarning("is insecure()");
        expectWarning("a gap");
        try (SpoolQueue queue = openWithPublisherIds(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start();
             RawWriter writer = RawWriter.open(gateway.address(), 0x79)) {
            commitIndex(writer.publish(1, message(1)), 1);
            final ByteBuffer gap = writer.publish(3, message(3));
            assertEquals(ERROR_SEQUENCE, RawWriter.code(gap));
            assertTrue(RawWriter.text(gap).contains("client id 0x79 epoch 1 sent sequence 3 where 2 was expected:"
                    + " a gap"), RawWriter.text(gap));
            assertEquals(1, readAll(queue).size());
        }
    }

    @Test
    void shouldAcknowledgeAResendAsTheOriginalOnlyIfItsBytesMatch() throws IOException {
        expectWarning("is insecure()");
        expectWarning("again with");
        try (SpoolQueue queue = openWithPublisherIds(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start()) {
            final long original;
            final int epoch;
            try (RawWriter writer = RawWriter.open(gateway.address(), 0x7A)) {
                epoch = writer.epoch;
                original = commitIndex(writer.publish(1, message(1)), 1);
            }
            for (final byte[] other : new byte[][]{message(2), sameLengthOtherBytes(message(1))}) {
                try (RawWriter again = RawWriter.open(gateway.address(), 0x7A, epoch, 0, 1)) {
                    final ByteBuffer refused = again.publish(1, other);
                    assertEquals(ERROR_SEQUENCE, RawWriter.code(refused));
                    assertTrue(RawWriter.text(refused).contains("client id 0x7a epoch " + epoch + " sent sequence 1"
                            + " again with " + other.length + " bytes"), RawWriter.text(refused));
                }
            }
            try (RawWriter again = RawWriter.open(gateway.address(), 0x7A, epoch, 0, 1)) {
                assertEquals(original, commitIndex(again.publish(1, message(1)), 1), "the same bytes: the original");
            }
            assertEquals(1, readAll(queue).size());
            assertEquals(1, gateway.resentPublishes());
        }
    }

    private static byte[] sameLengthOtherBytes(final byte[] bytes) {
        final byte[] other = bytes.clone();
        other[other.length - 1] ^= 1;
        return other;
    }

    @Test
    void shouldRefuseAResendAsInDoubtAfterItsIdWasForgottenPastMaxPublishers() throws IOException {
        expectWarning("is insecure()");
        expectWarning("in doubt");
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(16L << 20)
                .publisherIds(true).openOrCreate();
             PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start()) {
            final int epoch;
            try (RawWriter early = RawWriter.open(gateway.address(), 0xEA21)) {
                epoch = early.epoch;
                commitIndex(early.publish(1, message(1)), 1);
                commitIndex(early.publish(2, message(2)), 2);
            }
            final byte[] small = {42};
            for (long id = 1; id <= 20_000; id++) {
                try (RawWriter other = RawWriter.open(gateway.address(), 0x100000 + id)) {
                    commitIndex(other.publish(1, small), 1);
                }
            }
            try (RawWriter again = RawWriter.open(gateway.address(), 0xEA21, epoch, 1, 2)) {
                final ByteBuffer refused = again.publish(2, message(2));
                assertEquals(ERROR_IN_DOUBT, RawWriter.code(refused));
                assertTrue(RawWriter.text(refused).contains("client id 0xea21 epoch " + epoch + " sent sequence 2"
                        + " again, but"), RawWriter.text(refused));
            }
            assertEquals(1, count(queue, message(2)), "the re-send is not written twice");
            try (RawWriter again = RawWriter.open(gateway.address(), 0xEA21, epoch, 2, 2)) {
                commitIndex(again.publish(3, message(3)), 3);
            }
            assertEquals(20_003, readAll(queue).size());
        }
    }

    @Test
    void shouldKeepEpochsAndResendsAcrossAGatewayRestart() throws IOException {
        expectWarning("is insecure()");
        expectWarning("fenced by epoch 2");
        final Path directory = tempDir.resolve("primary");
        final long[] indices = new long[4];
        try (SpoolQueue queue = openWithPublisherIds(directory)) {
            final int epoch;
            try (PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start();
                 RawWriter writer = RawWriter.open(gateway.address(), 0x5EED)) {
                epoch = writer.epoch;
                for (int i = 1; i <= 3; i++) {
                    indices[i] = commitIndex(writer.publish(i, message(i)), i);
                }
            }
            try (PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start()) {
                try (RawWriter again = RawWriter.open(gateway.address(), 0x5EED, epoch, 0, 3)) {
                    for (int i = 1; i <= 3; i++) {
                        assertEquals(indices[i], commitIndex(again.publish(i, message(i)), i), "re-send " + i);
                    }
                    assertEquals(queue.lastIndex() + 1, commitIndex(again.publish(4, message(4)), 4));
                }
                try (RawWriter next = RawWriter.open(gateway.address(), 0x5EED)) {
                    assertEquals(epoch + 1, next.epoch, "a new instance gets the epoch after the one in the queue");
                }
                try (RawWriter old = RawWriter.open(gateway.address(), 0x5EED, epoch, 4, 4)) {
                    assertEquals(ERROR_WRITER_FENCED, RawWriter.code(old.refusal));
                    assertTrue(RawWriter.text(old.refusal).contains("client id 0x5eed epoch " + epoch
                            + " was fenced by epoch " + (epoch + 1)), RawWriter.text(old.refusal));
                }
                assertEquals(4, readAll(queue).size());
                assertEquals(3, gateway.resentPublishes());
            }
        }
    }

    @Test
    void shouldHonourTheEpochsOfTheOldPrimaryOnAPromotedReplica() throws IOException {
        expectWarning("is insecure()");
        expectWarning("fenced by epoch 2");
        final Path replicaDirectory = tempDir.resolve("replica");
        final long[] secondIndices = new long[3];
        try (SpoolQueue primary = openWithPublisherIds(tempDir.resolve("primary"));
             ReplicationSink sink = ReplicationSink.builder(replicaDirectory).sharedSecret(SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).start()) {
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(SECRET)
                    .start();
                 PublishGateway gateway = PublishGateway.builder(primary, source).insecure().start()) {
                try (RawWriter first = RawWriter.open(gateway.address(), 0xFA11)) {
                    assertEquals(1, first.epoch);
                    commitIndex(first.publish(1, message(1)), 1);
                    commitIndex(first.publish(2, message(2)), 2);
                }
                try (RawWriter second = RawWriter.open(gateway.address(), 0xFA11)) {
                    assertEquals(2, second.epoch);
                    secondIndices[1] = commitIndex(second.publish(1, message(11)), 1);
                    secondIndices[2] = commitIndex(second.publish(2, message(12)), 2);
                }
                awaitReplicated(primary, sink);
            }
            assertEquals(1, sink.promote());
            try (SpoolQueue promoted = SpoolQueue.builder(replicaDirectory).open();
                 PublishGateway gateway = PublishGateway.builder(promoted, null).insecure().start()) {
                try (RawWriter first = RawWriter.open(gateway.address(), 0xFA11, 1, 2, 2)) {
                    assertEquals(ERROR_WRITER_FENCED, RawWriter.code(first.refusal));
                    assertTrue(RawWriter.text(first.refusal).contains("client id 0xfa11 epoch 1 was fenced by"
                            + " epoch 2"), RawWriter.text(first.refusal));
                }
                try (RawWriter second = RawWriter.open(gateway.address(), 0xFA11, 2, 1, 2)) {
                    assertEquals(secondIndices[2], commitIndex(second.publish(2, message(12)), 2),
                            "the promoted replica recognises the re-send of epoch 2");
                    commitIndex(second.publish(3, message(13)), 3);
                }
                try (RawWriter third = RawWriter.open(gateway.address(), 0xFA11)) {
                    assertEquals(3, third.epoch);
                }
                assertEquals(5, readAll(promoted).size());
            }
        }
    }
}
