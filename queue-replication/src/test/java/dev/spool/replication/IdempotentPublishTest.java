package dev.spool.replication;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.protocol.CommitFlyweight;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.PublishFlyweight;
import dev.spool.replication.protocol.ReadyFlyweight;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.spool.replication.Replicas.SECRET;
import static dev.spool.replication.Replicas.await;
import static dev.spool.replication.Replicas.awaitReplicated;
import static dev.spool.replication.Replicas.message;
import static dev.spool.replication.Replicas.sequenceOf;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_SEQUENCE;
import static dev.spool.replication.protocol.FrameDescriptor.READY_FLAG_DEDUPLICATES;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_COMMIT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_PUBLISH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_READY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Publishes carry their client's id and sequence, and a gateway on a queue with publisher ids writes a publish sent
 * again only once: on the same gateway, on one restarted on the queue, and on the gateway of a replica promoted after
 * the primary's gateway went away, to which a client with a locator reconnects and sends what was not committed.
 */
class IdempotentPublishTest extends SpoolTestBase {
    private static final int MAX_MESSAGE = 8192;

    private static SpoolQueue openWithPublisherIds(final Path directory) {
        return SpoolQueue.builder(directory).chunkLength(1 << 20).checksums(true).publisherIds(true).openOrCreate();
    }

    /** @return every payload of the queue by the sequence it encodes, with its index; fails on a payload read twice. */
    private static Map<Long, Long> readAll(final SpoolQueue queue) {
        final Map<Long, Long> indexBySequence = new HashMap<>();
        try (ExcerptTailer tailer = queue.createTailer()) {
            final List<long[]> read = new ArrayList<>();
            while (tailer.read((bytes, offset, length, index) -> {
                final byte[] payload = new byte[length];
                bytes.read(offset, payload, 0, length);
                read.add(new long[]{sequenceOf(payload), index});
            })) {
                final long[] last = read.get(read.size() - 1);
                assertNull(indexBySequence.put(last[0], last[1]), "message " + last[0] + " is in the queue once");
            }
        }
        return indexBySequence;
    }

    private static long publish(final PublishClient client, final long sequence, final CommitStage stage) {
        final byte[] message = message(sequence);
        return client.publish(message, 0, message.length, stage);
    }

    @Test
    void shouldWriteAResendOnceAndAnswerItWithTheOriginalsIndex() throws IOException {
        expectWarning("is insecure()");
        try (SpoolQueue queue = openWithPublisherIds(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start()) {
            final long[] indices = new long[4];
            try (PublishClient client = PublishClient.builder(gateway.address(), MAX_MESSAGE).insecure()
                    .clientId(0x5EED).connect()) {
                assertTrue(client.deduplicates());
                assertEquals(0x5EED, client.clientId());
                for (int i = 1; i <= 3; i++) {
                    assertEquals(i, publish(client, i, CommitStage.WRITTEN), "publishes are numbered 1, 2, 3");
                    indices[i] = client.awaitCommit(i, 30, TimeUnit.SECONDS);
                    assertTrue(indices[i] >= 0);
                }
                assertEquals(1, client.epoch());
                // the same instance (its epoch) on a new connection, as after a lost one: 1 to 3 are re-sends
                try (RawWriter again = RawWriter.open(gateway.address(), 0x5EED, client.epoch(), 0, 3)) {
                    for (int i = 1; i <= 3; i++) {
                        final ByteBuffer commit = again.publish(i, message(i));
                        assertEquals(TYPE_COMMIT, Wire.type(commit));
                        assertEquals(indices[i], new CommitFlyweight().wrap(commit, 0).index(),
                                "re-send " + i + " is answered with the original's index");
                    }
                    assertEquals(indices[3], queue.lastIndex(), "nothing written again");
                    assertEquals(3, gateway.resentPublishes());
                    final ByteBuffer fourth = again.publish(4, message(4));
                    assertEquals(indices[3] + 1, new CommitFlyweight().wrap(fourth, 0).index(), "a new sequence is"
                            + " written");
                    final SpoolException takenOver = assertThrows(SpoolException.class,
                            () -> client.awaitCommit(4, 30, TimeUnit.SECONDS));
                    assertTrue(takenOver.getMessage().contains("client id 0x5eed epoch 1 was taken over by a"
                            + " connection"), takenOver.getMessage());
                }
            }
            assertEquals(4, readAll(queue).size());
            assertNull(gateway.failure());
        }
    }

    @Test
    void shouldRefuseASequenceThatSkipsAheadNamingTheClientIdAndBothSequences() throws IOException {
        expectWarning("a gap");
        expectWarning("is insecure()");
        expectWarning("did not IDENTIFY first");
        try (SpoolQueue queue = openWithPublisherIds(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start();
             Socket raw = new Socket(InetAddress.getLoopbackAddress(), gateway.address().getPort())) {
            raw.setSoTimeout(30_000);
            final ByteBuffer ready = Wire.read(raw);
            assertEquals(TYPE_READY, Wire.type(ready));
            assertEquals(READY_FLAG_DEDUPLICATES, new ReadyFlyweight().wrap(ready, 0).flags());
            Wire.write(raw, publishFrame(0x77, 1));
            final ByteBuffer unidentified = Wire.read(raw);
            assertEquals(TYPE_ERROR, Wire.type(unidentified), "a PUBLISH before IDENTIFY is refused");
            assertTrue(RawWriter.text(unidentified).contains("with client id 0x77, which it did not IDENTIFY first"),
                    RawWriter.text(unidentified));
            Wire.awaitClosed(raw);
            try (RawWriter writer = RawWriter.open(gateway.address(), 0x77)) {
                final ByteBuffer commit = writer.publish(1, message(1));
                assertEquals(TYPE_COMMIT, Wire.type(commit));
                assertEquals(1, new CommitFlyweight().wrap(commit, 0).sequence());
                final ByteBuffer error = writer.publish(3, message(3));
                final ErrorFlyweight refusal = new ErrorFlyweight().wrap(error, 0);
                assertEquals(ERROR_SEQUENCE, refusal.code());
                final String message = refusal.message(error.capacity());
                assertTrue(message.contains("client id 0x77 epoch 1 sent sequence 3 where 2 was expected: a gap"),
                        message);
                Wire.awaitClosed(writer.socket);
            }
            assertEquals(1, readAll(queue).size(), "the gap's publish is not written");
        }
    }

    private static ByteBuffer publishFrame(final long clientId, final long sequence) {
        final byte[] payload = message(sequence);
        final ByteBuffer frame = Wire.frame(PublishFlyweight.frameLength(payload.length), TYPE_PUBLISH);
        new PublishFlyweight().wrap(frame, 0).clientId(clientId).sequence(sequence)
                .stage(CommitStage.WRITTEN.ordinal()).payload(payload, 0, payload.length);
        return frame;
    }

    @Test
    void shouldRecogniseResendsOfWhatAnEarlierGatewayWroteWhenStartedOnTheQueue() throws IOException {
        expectWarning("is insecure()");
        final Path directory = tempDir.resolve("primary");
        final long[] indices = new long[6];
        final int epoch;
        try (SpoolQueue queue = openWithPublisherIds(directory)) {
            try (PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start();
                 PublishClient client = PublishClient.builder(gateway.address(), MAX_MESSAGE).insecure()
                         .clientId(42).connect()) {
                for (int i = 1; i <= 5; i++) {
                    indices[i] = client.awaitCommit(publish(client, i, CommitStage.WRITTEN), 30, TimeUnit.SECONDS);
                }
                epoch = client.epoch();
            }
            // another client's publish in between: the table is read from the queue, not kept by the gateway
            try (PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start();
                 PublishClient other = PublishClient.builder(gateway.address(), MAX_MESSAGE).insecure()
                         .clientId(43).connect()) {
                other.awaitCommit(publish(other, 100, CommitStage.WRITTEN), 30, TimeUnit.SECONDS);
            }
        }
        try (SpoolQueue queue = openWithPublisherIds(directory);
             PublishGateway gateway = PublishGateway.builder(queue, null).insecure().start();
             RawWriter client = RawWriter.open(gateway.address(), 42, epoch, 0, 5)) {
            final long last = queue.lastIndex();
            for (int i = 1; i <= 5; i++) {
                final ByteBuffer commit = client.publish(i, message(i));
                assertEquals(indices[i], new CommitFlyweight().wrap(commit, 0).index(),
                        "re-send " + i + " is recognised by a gateway started after it");
            }
            assertEquals(last, queue.lastIndex());
            assertEquals(5, gateway.resentPublishes());
            assertEquals(last + 1, new CommitFlyweight().wrap(client.publish(6, message(6)), 0).index());
            assertEquals(7, readAll(queue).size());
        }
    }

    @Test
    void shouldTellTheClientThatAGatewayOnAQueueWithoutPublisherIdsWritesEveryPublish() {
        try (SpoolQueue queue = Replicas.open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(SECRET).start()) {
            for (int attempt = 0; attempt < 2; attempt++) {
                try (PublishClient client = PublishClient.builder(gateway.address(), MAX_MESSAGE).sharedSecret(SECRET)
                        .clientId(9).connect()) {
                    assertFalse(client.deduplicates());
                    assertTrue(client.awaitCommit(publish(client, 1, CommitStage.WRITTEN), 30, TimeUnit.SECONDS) >= 0);
                }
            }
            long excerpts = 0;
            try (ExcerptTailer tailer = queue.createTailer()) {
                while (tailer.read((bytes, offset, length, index) -> { })) {
                    excerpts++;
                }
            }
            assertEquals(2, excerpts, "written twice: the queue cannot tell a re-send");
            assertEquals(0, gateway.resentPublishes());
        }
    }

    /**
     * Steady state on a queue with publisher ids: neither the client (copy kept for re-sending, PUBLISH, COMMIT) nor
     * the gateway's thread (the client id's lookup, the append with its id and sequence, the record of its index)
     * allocates per publish, once the client's table has grown to its window.
     */
    @Test
    void shouldAllocateNothingPerPublishWithPublisherIds() {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(64L << 20)
                .publisherIds(true).openOrCreate();
             PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(SECRET).start();
             PublishClient client = PublishClient.builder(() -> gateway.address(), MAX_MESSAGE).sharedSecret(SECRET)
                     .connect()) {
            final byte[] message = new byte[40];
            publishInBursts(client, message, 100_000);
            final long gatewayThread = Thread.getAllStackTraces().keySet().stream()
                    .filter(thread -> thread.getName().equals(PublishGateway.THREAD_NAME)).findFirst().orElseThrow()
                    .getId();
            final long gatewayBefore = threads.getThreadAllocatedBytes(gatewayThread);
            final long clientBefore = threads.getCurrentThreadAllocatedBytes();
            publishInBursts(client, message, 100_000);
            final long clientBytes = threads.getCurrentThreadAllocatedBytes() - clientBefore;
            final long gatewayBytes = threads.getThreadAllocatedBytes(gatewayThread) - gatewayBefore;
            // one-offs of the JIT (a deoptimization re-creating an eliminated object) stay far below 16 B a publish
            assertTrue(clientBytes <= 16 * 1024, "the client allocated " + clientBytes + " bytes");
            assertTrue(gatewayBytes <= 16 * 1024, "the gateway allocated " + gatewayBytes + " bytes");
        }
    }

    /** Publishes in bursts of 100 at WRITTEN and awaits each burst's last commit. */
    private static void publishInBursts(final PublishClient client, final byte[] message, final int count) {
        for (int i = 0; i < count; i += 100) {
            long last = -1;
            for (int j = 0; j < 100; j++) {
                message[0] = (byte) j;
                last = client.publish(message, 0, message.length, CommitStage.WRITTEN);
            }
            if (client.awaitCommit(last, 30, TimeUnit.SECONDS) < 0) {
                // the message only on failure: a string built per burst would be the allocation measured
                throw new AssertionError("no commit of " + last);
            }
        }
    }

    @Test
    void shouldReplicateThePublisherIdsOfAQueueWithoutChecksumsToAReplicaCreatedWithThem() {
        final Path replicaDirectory = tempDir.resolve("replica");
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20)
                .publisherIds(true).openOrCreate();
             ReplicationSink sink = ReplicationSink.builder(replicaDirectory).sharedSecret(SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).start();
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(SECRET).start();
             PublishGateway gateway = PublishGateway.builder(primary, source).sharedSecret(SECRET).start();
             PublishClient client = PublishClient.builder(gateway.address(), MAX_MESSAGE).sharedSecret(SECRET)
                     .clientId(0xC0FFEE).connect()) {
            for (long i = 1; i <= 20; i++) {
                assertTrue(client.awaitCommit(publish(client, i, CommitStage.ACKED), 30, TimeUnit.SECONDS) >= 0);
            }
            awaitReplicated(primary, sink);
        }
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).open();
             SpoolQueue replica = SpoolQueue.builder(replicaDirectory).open()) {
            assertTrue(replica.publisherIds());
            assertFalse(replica.checksums());
            assertEquals(20, Replicas.assertIdentical(primary, replica));
            final List<long[]> publishes = new ArrayList<>();
            replica.unwrap(dev.spool.queue.internal.QueueInternals.class).readLastPublishers(100,
                    (clientId, sequence, index) -> publishes.add(new long[]{clientId, sequence}));
            assertEquals(20, publishes.size());
            assertEquals(0xC0FFEE, publishes.get(19)[0]);
            assertEquals(20, publishes.get(19)[1] & dev.spool.queue.internal.PublisherAppender.SEQUENCE_MASK);
            assertEquals(1, publishes.get(19)[1] >>> dev.spool.queue.internal.PublisherAppender.EPOCH_SHIFT,
                    "the writer epoch is stored with the sequence, and replicated with it");
        }
        verify(replicaDirectory);
    }

    @Test
    void shouldAskTheLocatorAgainAfterABackoffUntilItNamesAGateway() {
        try (SpoolQueue queue = openWithPublisherIds(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(SECRET).start()) {
            final int[] asked = {0};
            final GatewayLocator electing = () -> {
                if (++asked[0] < 4) {
                    throw new IOException("no primary elected yet");
                }
                return gateway.address();
            };
            try (PublishClient client = PublishClient.builder(electing, MAX_MESSAGE).sharedSecret(SECRET).connect()) {
                assertEquals(4, asked[0]);
                assertEquals(gateway.address(), client.gateway());
                assertTrue(client.awaitCommit(publish(client, 1, CommitStage.WRITTEN), 30, TimeUnit.SECONDS) >= 0);
            }
            final IOException never = new IOException("no primary at all");
            final java.io.UncheckedIOException failed = assertThrows(java.io.UncheckedIOException.class,
                    () -> PublishClient.builder(() -> {
                        throw never;
                    }, MAX_MESSAGE).sharedSecret(SECRET).timeout(Duration.ofMillis(200)).connect());
            assertTrue(failed.getCause().getMessage().contains("reached no publish gateway within 200 ms"),
                    failed.getCause().getMessage());
            assertEquals(never, failed.getCause().getCause());
        }
    }

    /**
     * The primary's gateway answers publishes at ACKED never (it has no source), while a source replicates them: 20
     * are on the replica, uncommitted; 5 more are written after the source stopped, on the primary alone. The
     * primary's gateway goes away, the replica is promoted and a gateway starts on it; the client, told the new
     * address by its locator, reconnects and sends the 25 again: the 20 the new primary holds are answered with their
     * indices, the 5 it lacks are written, and every message is in it exactly once.
     */
    @Test
    void shouldResendUncommittedPublishesToAPromotedReplicaWhichWritesEachOnce() {
        final Path replicaDirectory = tempDir.resolve("replica");
        final Map<Long, Long> primaryIndices;
        final AtomicReference<InetSocketAddress> where = new AtomicReference<>();
        try (SpoolQueue primary = openWithPublisherIds(tempDir.resolve("primary"));
             ReplicationSink sink = ReplicationSink.builder(replicaDirectory).sharedSecret(SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).start()) {
            final PublishClient client;
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(SECRET)
                    .start();
                 PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(SECRET).start()) {
                where.set(gateway.address());
                client = PublishClient.builder(where::get, MAX_MESSAGE).sharedSecret(SECRET)
                        .timeout(Duration.ofSeconds(30)).connect();
                for (long i = 1; i <= 10; i++) {
                    assertTrue(client.awaitCommit(publish(client, i, CommitStage.WRITTEN), 30, TimeUnit.SECONDS) >= 0);
                }
                for (long i = 11; i <= 30; i++) {
                    assertEquals(i, publish(client, i, CommitStage.ACKED));
                }
                await(() -> readAll(primary).size() == 30, "the gateway wrote 30");
                awaitReplicated(primary, sink);
                source.close();
                for (long i = 31; i <= 35; i++) {
                    publish(client, i, CommitStage.ACKED);
                }
                await(() -> readAll(primary).size() == 35, "the gateway wrote 35");
                assertEquals(-1, client.awaitCommit(11, 1, TimeUnit.MILLISECONDS), "no commit at ACKED without a source");
                primaryIndices = readAll(primary);
            }
            try (client) {
                assertEquals(1, sink.promote());
                try (SpoolQueue promoted = SpoolQueue.builder(replicaDirectory).open();
                     ReplicationSink next = ReplicationSink.builder(tempDir.resolve("next")).sharedSecret(SECRET)
                             .queueSettings(b -> b.chunkLength(1 << 20)).start();
                     ReplicationSource source = ReplicationSource.builder(promoted, next.address()).sharedSecret(SECRET)
                             .start();
                     PublishGateway gateway = PublishGateway.builder(promoted, source).sharedSecret(SECRET).start()) {
                    assertTrue(promoted.publisherIds(), "the replica was created with the primary's features");
                    where.set(gateway.address());
                    for (long i = 11; i <= 35; i++) {
                        final long index = client.awaitCommit(i, 30, TimeUnit.SECONDS);
                        assertTrue(index >= 0, "commit of " + i + " from the new primary");
                        if (i <= 30) {
                            assertEquals(primaryIndices.get(i), index, "replicated " + i + " keeps its index");
                        }
                    }
                    assertEquals(where.get(), client.gateway());
                    for (long i = 36; i <= 40; i++) {
                        assertTrue(client.awaitCommit(publish(client, i, CommitStage.ACKED), 30, TimeUnit.SECONDS) >= 0);
                    }
                    assertEquals(20, gateway.resentPublishes());
                    final Map<Long, Long> promotedIndices = readAll(promoted);
                    assertEquals(40, promotedIndices.size(), "every message exactly once: " + promotedIndices.keySet());
                    for (long i = 1; i <= 40; i++) {
                        assertTrue(promotedIndices.containsKey(i), "message " + i + " is in the new primary");
                    }
                    assertNull(gateway.failure());
                }
            }
        }
        verify(replicaDirectory);
    }
}
