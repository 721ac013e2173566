package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.internal.QueueInternals;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/** Source and sink in one JVM on loopback sockets. */
class ReplicationTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    /**
     * For a test of what arrives, not of liveness: three intervals of silence that a starved test JVM cannot reach.
     * Source and sink share the JVM, so a pause of both threads at once (a collection, or a machine too loaded to
     * run the JVM) reads on each side as the other's silence: past three 200 ms intervals, each drops the connection
     * with a warning.
     */
    private static final Duration BULK_HEARTBEAT = Duration.ofSeconds(10);

    private ReplicationSink sink(final String name) {
        return sink(name, 0);
    }

    private ReplicationSink sink(final String name, final int port) {
        return ReplicationSink.builder(tempDir.resolve(name)).sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(1 << 20))
                .port(port).heartbeatInterval(HEARTBEAT).start();
    }

    private static ReplicationSource source(final SpoolQueue queue, final ReplicationSink sink) {
        return ReplicationSource.builder(queue, sink.address()).sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100)).start();
    }

    private void awaitReplicated(final SpoolQueue primary, final ReplicationSink sink) {
        final long last = primary.lastIndex();
        await(() -> sink.lastIndex() == last && Failover.lastAckedIndex(primary) == last, "index " + last + " is replicated and acked");
    }

    @Test
    void shouldReplicateEveryExcerptAtTheSameIndexAndRecordTheAck() {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 2_000);
            awaitReplicated(primary, sink);
            append(appender, 2_000, 3_000);
            awaitReplicated(primary, sink);
            assertTrue(source.isConnected());
            assertTrue(sink.isConnected());
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(3_000, assertIdentical(primary, replica));
            assertEquals(ReplicationRole.REPLICA, Failover.role(replica));
            assertEquals(primary.queueId(), replica.queueId());
            final SpoolException refused = assertThrows(SpoolException.class, replica::createAppender);
            assertTrue(refused.getMessage().contains("local appends are refused"), refused.getMessage());
        }
    }

    @Test
    void shouldPrintTheLastIndexWithTheRollCycleOfTheReplica() {
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).rollCycle(RollCycle.HOURLY)
                .chunkLength(1 << 20).openOrCreate(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica")) {
            assertEquals("none (-1)", sink.lastIndexText(), "nothing replicated, no replica yet");
            try (ReplicationSource source = source(primary, sink)) {
                append(appender, 0, 17);
                awaitReplicated(primary, sink);
                assertTrue(source.isConnected());
            }
            final long last = sink.lastIndex();
            final String expected = "0x" + Long.toHexString(last) + " (cycle " + RollCycle.HOURLY.toCycle(last) + " seq "
                    + RollCycle.HOURLY.toSequence(last) + ")";
            assertEquals(expected, sink.lastIndexText(), "hourly cycles, as the replica has them, not the default daily");
            assertEquals(IndexFormat.format(last, RollCycle.HOURLY), sink.lastIndexText());
        }
    }

    /**
     * An excerpt that does not fit the frame is carried into the next one, moved past the frame's MAC: an
     * overlapping move to a higher address, which must not copy front to back in chunks (a copy that does turned
     * bytes past the first MiB of each carried excerpt into bytes of its own start).
     */
    @Test
    void shouldReplicateExcerptsOfSeveralMebibytesCarriedIntoTheNextFrameByteForByte() {
        final int big = 2 << 20;
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(16 << 20)
                .maxMessageLength(big).openOrCreate();
             ExcerptAppender appender = primary.createAppender()) {
            for (int round = 0; round < 4; round++) {
                for (int small = 0; small < 10; small++) {
                    appender.append(pattern(100, round * 100 + small));
                }
                appender.append(pattern(big, round));
            }
            try (ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(SECRET)
                    .queueSettings(b -> b.chunkLength(16 << 20)).heartbeatInterval(BULK_HEARTBEAT).start();
                 ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(SECRET)
                         .heartbeatInterval(BULK_HEARTBEAT).start()) {
                // a reconnection, which would drop the carried excerpt and read it again, warns and fails the test
                awaitReplicated(primary, sink);
            }
        }
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(16 << 20).openOrCreate();
             SpoolQueue replica = SpoolQueue.builder(tempDir.resolve("replica")).chunkLength(16 << 20).openOrCreate()) {
            assertEquals(44, assertIdentical(primary, replica));
        }
    }

    /** @return {@code length} bytes that differ at every position of a 2 MiB message, and from message to message. */
    private static byte[] pattern(final int length, final int seed) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            final int word = i / 4 * 31 + seed * 977;
            bytes[i] = (byte) (word >>> (8 * (i % 4)));
        }
        return bytes;
    }

    @Test
    void shouldCreateTheReplicaWithThePrimarysTradingDayRollIndexTimesAndChecksums() throws IOException {
        final LocalTime rollTime = LocalTime.of(17, 0);
        final ZoneId newYork = ZoneId.of("America/New_York");
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20)
                .rollTime(rollTime, newYork).indexTimes(true).checksums(true).create();
             ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 200);
            awaitReplicated(primary, sink);
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(200, assertIdentical(primary, replica));
            final QueueInternals internals = replica.unwrap(QueueInternals.class);
            assertEquals(primary.unwrap(QueueInternals.class).features(), internals.features());
            assertEquals(rollTime, internals.calendar().rollTime());
            assertEquals(newYork, internals.calendar().zone());
            assertTrue(replica.checksums());
        }
        try (Stream<Path> primaryFiles = Files.list(tempDir.resolve("primary"));
             Stream<Path> replicaFiles = Files.list(tempDir.resolve("replica"))) {
            assertEquals(primaryFiles.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".cycle")).sorted().toList(),
                    replicaFiles.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".cycle")).sorted().toList(),
                    "cycle files named by the same trading days");
        }
    }

    @Test
    void shouldPromoteAStoppedReplicaThroughFailoverAndRefuseToPromoteAPrimary() {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            try (ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink)) {
                append(appender, 0, 10);
                awaitReplicated(primary, sink);
                assertEquals(primary.lastIndex(), Failover.lastAckedIndex(primary));
            }
            assertEquals(ReplicationRole.PRIMARY, Failover.role(primary));
            assertEquals(0, Failover.term(primary));
            assertThrows(SpoolException.class, () -> Failover.promote(primary), "only a replica is promoted");
            try (SpoolQueue replica = open(tempDir.resolve("replica"))) {
                assertEquals(ReplicationRole.REPLICA, Failover.role(replica));
                assertEquals(1, Failover.promote(replica));
                assertEquals(ReplicationRole.PRIMARY, Failover.role(replica));
                assertEquals(1, Failover.term(replica));
                try (ExcerptAppender promoted = replica.createAppender()) {
                    assertEquals(primary.lastIndex() + 1, promoted.append(message(10)),
                            "the promoted replica continues from its last index");
                }
            }
        }
    }

    @Test
    void shouldResumeWithoutGapOrDuplicateAfterTheSinkOrTheSourceRestarts() {
        expectWarning("connection to");
        expectWarning("lost");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            int port;
            try (ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink)) {
                port = sink.address().getPort();
                append(appender, 0, 500);
                awaitReplicated(primary, sink);
                sink.close();
                append(appender, 500, 1_000);
                try (ReplicationSink restarted = sink("replica", port)) {
                    await(() -> restarted.lastIndex() == primary.lastIndex(), "the restarted sink caught up");
                    source.close();
                    append(appender, 1_000, 1_500);
                    try (ReplicationSource again = source(primary, restarted)) {
                        awaitReplicated(primary, restarted);
                        assertTrue(again.isConnected());
                    }
                }
            }
            try (SpoolQueue replica = open(tempDir.resolve("replica"))) {
                assertEquals(1_500, assertIdentical(primary, replica));
            }
        }
    }

    @Test
    void shouldRefuseASinkHoldingAnotherQueue() {
        expectWarning("refusing the source");
        expectWarning("stopped");
        try (SpoolQueue first = open(tempDir.resolve("first")); ExcerptAppender appender = first.createAppender();
             ReplicationSink sink = sink("replica")) {
            append(appender, 0, 10);
            try (ReplicationSource source = source(first, sink)) {
                awaitReplicated(first, sink);
            }
            try (SpoolQueue second = open(tempDir.resolve("second")); ExcerptAppender other = second.createAppender()) {
                append(other, 0, 10);
                try (ReplicationSource source = source(second, sink)) {
                    await(() -> source.failure() != null, "the source fails");
                    assertTrue(source.failure().getMessage().contains("has queue id " + first.queueId()),
                            source.failure().getMessage());
                }
            }
            assertEquals(first.lastIndex(), sink.lastIndex(), "the replica is untouched");
        }
    }

    @Test
    void shouldRefuseASinkAheadOfTheSourceOrWithADifferentExcerpt() throws IOException {
        expectWarning("stopped");
        expectWarning("reports error");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            append(appender, 0, 5);
        }
        copy(tempDir.resolve("primary"), tempDir.resolve("shorter"));
        copy(tempDir.resolve("primary"), tempDir.resolve("different"));
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica")) {
            append(appender, 5, 6);
            try (ReplicationSource source = source(primary, sink)) {
                awaitReplicated(primary, sink);
            }
            final long last = sink.lastIndex();
            try (SpoolQueue shorter = open(tempDir.resolve("shorter")); ReplicationSource source = source(shorter, sink)) {
                await(() -> source.failure() != null, "the source fails");
                assertTrue(source.failure().getMessage().contains("is ahead of the source"), source.failure().getMessage());
                await(() -> sink.divergence() != null, "the sink reports the divergence");
                assertEquals(last, sink.divergence().replicaLastIndex());
                assertEquals(shorter.lastIndex(), sink.divergence().sourceLastIndex());
            }
            try (SpoolQueue different = open(tempDir.resolve("different"));
                 ExcerptAppender other = different.createAppender()) {
                other.append(message(99));
                try (ReplicationSource source = source(different, sink)) {
                    await(() -> source.failure() != null, "the source fails");
                    assertTrue(source.failure().getMessage().contains("divergent history: the excerpt at index 0x"
                            + Long.toHexString(last) + " (cycle "),
                            source.failure().getMessage());
                }
            }
            assertEquals(last, sink.lastIndex(), "the replica is untouched");
            assertNull(sink.failure(), "the sink goes on listening");
            try (ReplicationSource source = source(primary, sink)) {
                await(sink::isConnected, "the rightful source streams again");
                assertNull(sink.divergence(), "a source that accepts the replica's history clears the divergence");
            }
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(6, assertIdentical(primary, replica));
        }
    }

    @Test
    void shouldAuthenticateWithASharedSecretAndRetryAPeerWithoutIt() {
        expectWarning("did not prove the shared secret");
        expectWarning("refused this source's proof");
        expectWarning("insecure()");
        expectWarning("reports error 2 and closes the connection");
        final byte[] wrong = "another secret, 24 bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).start()) {
            append(appender, 0, 10);
            try (ReplicationSource wrongSecret = ReplicationSource.builder(primary, sink.address()).sharedSecret(wrong)
                    .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50)).start()) {
                await(() -> logged("did not prove the shared secret"), "the source logs the failure");
                assertNull(wrongSecret.failure(), "a failed authentication is retried, never fatal");
            }
            try (ReplicationSource noSecret = ReplicationSource.builder(primary, sink.address()).insecure()
                    .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50)).start()) {
                await(() -> logged("refused this source's proof of the shared secret"), "the source blames its own secret");
                assertTrue(logged("check this source's secret"));
                assertNull(noSecret.failure(), "a failed authentication is retried, never fatal");
            }
            assertFalse(SpoolQueue.exists(tempDir.resolve("replica")), "no replica is created for a peer that failed");
            try (ReplicationSource right = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET)
                    .start()) {
                awaitReplicated(primary, sink);
                assertNull(right.failure());
            }
        }
    }

    @Test
    void shouldWaitForEachCommitStageAndFallBackToASyncWhenTheReplicaIsAway() throws InterruptedException {
        expectWarning("lost");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink);
             CommitWaiter waiter = source.commitWaiter(appender)) {
            final long first = appender.append(message(0));
            assertTrue(waiter.await(first, CommitStage.WRITTEN, 0, TimeUnit.SECONDS));
            assertTrue(waiter.await(first, CommitStage.ACKED, 30, TimeUnit.SECONDS));
            assertTrue(Failover.lastAckedIndex(primary) >= first);
            assertTrue(primary.lastSyncedIndex() < first, "an ack needs no sync");
            final long second = appender.append(message(1));
            assertTrue(waiter.await(second, CommitStage.ACKED_OR_SYNCED, 30, TimeUnit.SECONDS));
            sink.close();
            await(() -> !source.isConnected(), "the source sees the replica is away");
            final long third = appender.append(message(2));
            assertFalse(waiter.await(third, CommitStage.ACKED, 50, TimeUnit.MILLISECONDS), "no replica, no ack");
            assertTrue(waiter.await(third, CommitStage.ACKED_OR_SYNCED, 30, TimeUnit.SECONDS));
            assertTrue(primary.lastSyncedIndex() >= third, "the replica being away, the fallback synced");
            final long fourth = appender.append(message(3));
            assertTrue(waiter.await(fourth, CommitStage.SYNCED, 30, TimeUnit.SECONDS));
            assertTrue(waiter.isCommitted(fourth, CommitStage.ACKED_OR_SYNCED));
        }
    }

    @Test
    void shouldAckOnlyWhatTheReplicaSyncedWhenConfiguredTo() {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).ackSynced(true).start();
             ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 500);
            awaitReplicated(primary, sink);
            try (SpoolQueue replica = open(tempDir.resolve("replica"))) {
                assertTrue(replica.lastSyncedIndex() >= Failover.lastAckedIndex(primary),
                        "acked " + Failover.lastAckedIndex(primary) + ", synced on the replica " + replica.lastSyncedIndex());
            }
            assertTrue(source.isConnected());
        }
    }

    @Test
    void shouldKeepAnIdleConnectionAliveWithHeartbeats() {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 3);
            awaitReplicated(primary, sink);
            final long until = System.nanoTime() + 8 * HEARTBEAT.toNanos();
            while (System.nanoTime() < until) {
                assertTrue(source.isConnected() && sink.isConnected(), "idle for longer than the liveness timeout");
                java.util.concurrent.locks.LockSupport.parkNanos(HEARTBEAT.toNanos() / 4);
            }
            append(appender, 3, 6);
            awaitReplicated(primary, sink);
        }
    }

    @Test
    void shouldFenceTheOldPrimaryWhenItMeetsTheTermOfThePromotedReplica() {
        expectWarning("stopped");
        expectWarning("reports error");
        try (SpoolQueue old = open(tempDir.resolve("old")); ExcerptAppender appender = old.createAppender()) {
            final long acked;
            try (ReplicationSink sink = sink("promoted"); ReplicationSource source = source(old, sink)) {
                append(appender, 0, 100);
                awaitReplicated(old, sink);
                acked = Failover.lastAckedIndex(old);
                source.close();
                append(appender, 100, 110);
                assertEquals(1, sink.promote());
            }
            try (SpoolQueue promoted = open(tempDir.resolve("promoted"));
                 ExcerptAppender newWriter = promoted.createAppender()) {
                assertEquals(ReplicationRole.PRIMARY, Failover.role(promoted));
                assertEquals(1, Failover.term(promoted));
                assertEquals(acked + 1, newWriter.append(message(1_000)), "the promoted replica continues from its last index");
                try (ReplicationSink third = sink("third")) {
                    try (ReplicationSource fromPromoted = source(promoted, third)) {
                        awaitReplicated(promoted, third);
                    }
                    await(() -> !third.isConnected(), "the promoted queue's source has gone");
                    try (ReplicationSource stale = source(old, third)) {
                        await(() -> stale.failure() != null, "the old primary is fenced");
                        final String message = stale.failure().getMessage();
                        assertTrue(message.contains("is fenced"), message);
                        assertTrue(message.contains("indices after " + acked + " up to " + old.lastIndex()
                                + " were written here and never acknowledged"), message);
                    }
                    assertEquals(promoted.lastIndex(), third.lastIndex(), "the stale primary wrote nothing to the replica");
                    newWriter.append(message(1_001));
                    try (ReplicationSource fromPromoted = source(promoted, third)) {
                        awaitReplicated(promoted, third);
                    }
                }
                try (SpoolQueue replica = open(tempDir.resolve("third"))) {
                    assertEquals(102, assertIdentical(promoted, replica), "100 from the old primary, 2 from the promoted one");
                    assertEquals(1, Failover.term(replica));
                }
            }
            assertEquals(ReplicationRole.FENCED, Failover.role(old));
            final SpoolException refused = assertThrows(SpoolException.class, old::createAppender);
            assertTrue(refused.getMessage().contains("fenced by term 1"), refused.getMessage());
            assertThrows(SpoolException.class, () -> ReplicationSource.builder(old, new java.net.InetSocketAddress(
                    java.net.InetAddress.getLoopbackAddress(), 1)).sharedSecret(Replicas.SECRET).start(), "a fenced queue is not replicated");
        }
    }

    private static void copy(final Path from, final Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (final Path file : (Iterable<Path>) files::iterator) {
                Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }
}
