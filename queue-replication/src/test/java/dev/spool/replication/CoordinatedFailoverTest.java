package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.TermHistory;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * What a coordinator drives on its own, with real sockets: promotion to the term it chose, a deposed primary that
 * follows the new one, and a replica whose history diverges made visible on its sink.
 */
class CoordinatedFailoverTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    private ReplicationSink sink(final String name) {
        return ReplicationSink.builder(tempDir.resolve(name)).sharedSecret(Replicas.SECRET)
                .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).start();
    }

    private static ReplicationSource source(final SpoolQueue queue, final ReplicationSink sink) {
        return ReplicationSource.builder(queue, sink.address()).sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100)).start();
    }

    /** Replicates {@code count} messages from a new primary to a new sink, then stops both; the sink's is a replica. */
    private void replicate(final String primary, final String replica, final int count) {
        try (SpoolQueue queue = open(tempDir.resolve(primary)); ExcerptAppender appender = queue.createAppender();
             ReplicationSink sink = sink(replica); ReplicationSource source = source(queue, sink)) {
            append(appender, 0, count);
            awaitReplicated(queue, sink);
        }
    }

    @Test
    void shouldPromoteToTheCoordinatorsTermAndFenceTheOldPrimaryThere() {
        expectWarning("stopped");
        expectWarning("reports error");
        try (SpoolQueue old = open(tempDir.resolve("old")); ExcerptAppender appender = old.createAppender()) {
            try (ReplicationSink sink = sink("promoted"); ReplicationSource source = source(old, sink)) {
                append(appender, 0, 20);
                awaitReplicated(old, sink);
                source.close();
                assertEquals(7, sink.promote(7));
            }
            try (SpoolQueue promoted = open(tempDir.resolve("promoted"))) {
                assertEquals(ReplicationRole.PRIMARY, Failover.role(promoted));
                assertEquals(7, Failover.term(promoted));
                final SpoolException again = assertThrows(SpoolException.class, () -> Failover.promote(promoted, 8));
                assertTrue(again.getMessage().contains("is a PRIMARY queue of term 7"), again.getMessage());
                try (ReplicationSink third = sink("third")) {
                    try (ReplicationSource fromPromoted = source(promoted, third)) {
                        awaitReplicated(promoted, third);
                    }
                    await(() -> !third.isConnected(), "the promoted queue's source has gone");
                    try (ReplicationSource stale = source(old, third)) {
                        await(() -> stale.failure() != null, "the old primary is fenced");
                        assertTrue(stale.failure().getMessage().contains("has term 7, so a later primary exists"),
                                stale.failure().getMessage());
                    }
                    assertNull(third.divergence(), "fencing a stale source is no divergence");
                }
            }
            assertEquals(ReplicationRole.FENCED, Failover.role(old));
            final SpoolException refused = assertThrows(SpoolException.class, () -> appender.append(message(99)));
            assertTrue(refused.getMessage().contains("fenced by term 7"), refused.getMessage());
        }
        try (SpoolQueue third = open(tempDir.resolve("third"))) {
            assertEquals(7, Failover.term(third), "the replica took the promoted queue's term");
            final SpoolException notLater = assertThrows(SpoolException.class, () -> Failover.promote(third, 7));
            assertTrue(notLater.getMessage().contains(tempDir.resolve("third").toString()), notLater.getMessage());
            assertTrue(notLater.getMessage().contains("has term 7: it cannot be promoted to term 7"),
                    notLater.getMessage());
            assertEquals(ReplicationRole.REPLICA, Failover.role(third));
            assertEquals(8, Failover.promote(third), "the next term, as before");
        }
    }

    @Test
    void shouldFollowTheNewPrimaryAfterDemotionWhenTheDeposedPrimaryHasNoUnacknowledgedTail() {
        replicate("old", "new", 100);
        try (SpoolQueue promoted = open(tempDir.resolve("new"));
             SpoolQueue deposed = open(tempDir.resolve("old")); ExcerptAppender before = deposed.createAppender()) {
            assertEquals(3, Failover.promote(promoted, 3));
            final SpoolException early = assertThrows(SpoolException.class, () -> Failover.demote(deposed, 0));
            assertTrue(early.getMessage().contains("is a PRIMARY queue of term 0: term 0 cannot demote it"),
                    early.getMessage());
            assertTrue(Failover.demote(deposed, 3));
            assertFalse(Failover.demote(deposed, 3), "demoting twice does nothing more");
            assertEquals(ReplicationRole.REPLICA, Failover.role(deposed));
            assertEquals(0, Failover.term(deposed), "the term of its own excerpts, until a primary's sink raises it");
            final SpoolException refused = assertThrows(SpoolException.class, () -> before.append(message(100)));
            assertTrue(refused.getMessage().contains("demoted to a replica by term 3"), refused.getMessage());
            assertThrows(SpoolException.class, deposed::createAppender, "a replica refuses local appenders");
            try (ExcerptAppender appender = promoted.createAppender()) {
                append(appender, 100, 150);
            }
        }
        try (SpoolQueue other = open(tempDir.resolve("old"))) {
            assertEquals(ReplicationRole.REPLICA, Failover.role(other), "the demotion is persisted");
        }
        try (SpoolQueue promoted = open(tempDir.resolve("new")); ReplicationSink follower = sink("old");
             ReplicationSource source = source(promoted, follower)) {
            awaitReplicated(promoted, follower);
            assertNull(follower.divergence());
            assertNull(follower.failure());
            assertNull(source.failure());
        }
        try (SpoolQueue promoted = open(tempDir.resolve("new")); SpoolQueue follower = open(tempDir.resolve("old"))) {
            assertEquals(150, assertIdentical(promoted, follower), "byte-identical to the new primary");
            assertEquals(3, Failover.term(follower));
        }
    }

    @Test
    void shouldReportTheDeposedPrimarysSinkAsDivergedWhenItHoldsAnUnacknowledgedTail() {
        expectWarning("stopped");
        expectWarning("reports error 4");
        replicate("old", "new", 100);
        final long tail;
        try (SpoolQueue deposed = open(tempDir.resolve("old")); ExcerptAppender appender = deposed.createAppender()) {
            append(appender, 100, 105);
            tail = deposed.lastIndex();
        }
        final long newLast;
        try (SpoolQueue promoted = open(tempDir.resolve("new"))) {
            newLast = promoted.lastIndex();
            Failover.promote(promoted, 1);
        }
        try (SpoolQueue deposed = open(tempDir.resolve("old"))) {
            assertTrue(Failover.demote(deposed, 1));
        }
        try (SpoolQueue promoted = open(tempDir.resolve("new")); ReplicationSink follower = sink("old");
             ReplicationSource source = source(promoted, follower)) {
            await(() -> follower.divergence() != null, "the follower's sink reports the divergence");
            final ReplicaDivergedException diverged = follower.divergence();
            assertEquals(tail, diverged.replicaLastIndex());
            assertEquals(newLast, diverged.sourceLastIndex());
            assertTrue(diverged.getMessage().contains(IndexFormat.format(tail, promoted.rollCycle())),
                    diverged.getMessage());
            assertTrue(diverged.getMessage().contains(IndexFormat.format(newLast, promoted.rollCycle())),
                    diverged.getMessage());
            await(() -> source.failure() != null, "the source stops");
            assertTrue(source.failure().getMessage().contains("is ahead of the source"),
                    source.failure().getMessage());
            assertNull(follower.failure(), "the sink goes on listening");
        }
        try (SpoolQueue deposed = open(tempDir.resolve("old"))) {
            assertEquals(tail, deposed.lastIndex(), "the refused replica keeps its excerpts, never merged");
        }
    }

    @Test
    void shouldReportASinkAsDivergedWhenItsLastExcerptIsOfATermTheSourceDidNotWriteThere() {
        expectWarning("stopped");
        expectWarning("reports error 4");
        replicate("primary", "replica", 10);
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            append(appender, 10, 12);
        }
        final long replicaLast;
        try (SpoolQueue replica = open(tempDir.resolve("replica"))) {
            Failover.promote(replica, 1);
            try (ExcerptAppender appender = replica.createAppender()) {
                append(appender, 20, 21);
            }
            replicaLast = replica.lastIndex();
            assertTrue(Failover.demote(replica, 2), "deposed in turn, holding an excerpt the first primary lacks");
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ReplicationSink sink = sink("replica")) {
            Failover.demote(primary, 1);
            Failover.promote(primary, 2);
            try (ReplicationSource source = source(primary, sink)) {
                await(() -> sink.divergence() != null, "the sink reports the divergence");
                final ReplicaDivergedException diverged = sink.divergence();
                assertEquals(replicaLast, diverged.replicaLastIndex());
                assertEquals(primary.lastIndex(), diverged.sourceLastIndex());
                assertTrue(diverged.getMessage().contains("divergent term history"), diverged.getMessage());
                assertTrue(diverged.getMessage().contains("(term 1 on the sink, term 0 in the source)"),
                        diverged.getMessage());
            }
        }
    }
    @Test
    void shouldRefuseAFormerPrimaryWhoseTailDiffersFromTheNewTermsBeforeAnEqualLastExcerpt() {
        expectWarning("stopped");
        expectWarning("reports error 4");
        replicate("old", "new", 100);
        final long firstOfNewTerm;
        try (SpoolQueue deposed = open(tempDir.resolve("old")); ExcerptAppender appender = deposed.createAppender()) {
            firstOfNewTerm = deposed.lastIndex() + 1;
            append(appender, 100, 105);
        }
        final long last;
        try (SpoolQueue promoted = open(tempDir.resolve("new"))) {
            assertEquals(1, Failover.promote(promoted), "a manual promotion, to the next term");
            try (ExcerptAppender appender = promoted.createAppender()) {
                append(appender, 200, 204);
                appender.append(message(104));
            }
            last = promoted.lastIndex();
        }
        try (SpoolQueue deposed = open(tempDir.resolve("old"))) {
            assertEquals(last, deposed.lastIndex(), "both hold the same indices");
            assertTrue(Failover.demote(deposed, 1));
        }
        try (SpoolQueue promoted = open(tempDir.resolve("new")); ReplicationSink follower = sink("old");
             ReplicationSource source = source(promoted, follower)) {
            await(() -> follower.divergence() != null, "the follower's sink reports the divergence");
            final String message = follower.divergence().getMessage();
            assertEquals(last, follower.divergence().replicaLastIndex());
            assertEquals(last, follower.divergence().sourceLastIndex());
            assertTrue(message.contains("first differ at index " + IndexFormat.format(firstOfNewTerm,
                    promoted.rollCycle())), message);
            assertTrue(message.contains("term 0 on the sink") && message.contains("term 1 in the source"), message);
            await(() -> source.failure() != null, "the source stops");
            assertNull(follower.failure(), "the sink goes on listening");
        }
        try (SpoolQueue deposed = open(tempDir.resolve("old"))) {
            assertEquals(last, deposed.lastIndex(), "the refused replica keeps its excerpts, never merged");
            assertEquals(ReplicationRole.REPLICA, Failover.role(deposed));
        }
    }
    @Test
    void shouldGiveAReplicaItsPrimarysTermHistoryBeforeItWritesSoThatItsOwnPromotionAppendsToIt() {
        replicate("first", "second", 10);
        final long secondFrom;
        try (SpoolQueue promoted = open(tempDir.resolve("second"))) {
            secondFrom = promoted.lastIndex() + 1;
            assertEquals(2, Failover.promote(promoted, 2));
            try (ExcerptAppender appender = promoted.createAppender(); ReplicationSink sink = sink("third");
                 ReplicationSource source = source(promoted, sink)) {
                append(appender, 10, 20);
                awaitReplicated(promoted, sink);
            }
        }
        final TermHistory expected = TermHistory.of(new long[] {0, 2}, new long[] {0, secondFrom});
        try (SpoolQueue third = open(tempDir.resolve("third"))) {
            final QueueInternals internals = third.unwrap(QueueInternals.class);
            assertEquals(expected, internals.termHistory(), "the replica holds the primary's history");
            final long thirdFrom = third.lastIndex() + 1;
            assertEquals(5, Failover.promote(third, 5));
            assertEquals(TermHistory.of(new long[] {0, 2, 5}, new long[] {0, secondFrom, thirdFrom}),
                    internals.termHistory(), "its promotion appends its term from the index after its last");
        }
    }
}
