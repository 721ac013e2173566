package dev.spool.queue.internal;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.ManualClock;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

class ReplicaQueueTest extends SpoolTestBase {
    /** 2024-01-01T00:00Z. */
    private static final long START_MILLIS = 1_704_067_200_000L;
    private static final long HOUR = 3_600_000L;

    private static byte[] utf8(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private SpoolQueueBuilder replicaBuilder(final UUID id) {
        return SpoolQueue.builder(tempDir.resolve("replica")).chunkLength(1 << 20).rollCycle(RollCycle.HOURLY)
                .epochMillis(0).replicaOf(id);
    }

    @Test
    void shouldCreateReplicaWithThePrimarysIdentityAndRefuseLocalAppends() {
        final UUID id = UUID.randomUUID();
        try (SpoolQueue replica = replicaBuilder(id).openOrCreate()) {
            assertEquals(id, replica.queueId());
            assertEquals(QueueRole.REPLICA, replica.unwrap(QueueInternals.class).role());
            final SpoolException refused = assertThrows(SpoolException.class, replica::createAppender);
            assertTrue(refused.getMessage().contains("is a replica of queue id " + id), refused.getMessage());
            assertTrue(refused.getMessage().contains("local appends are refused"), refused.getMessage());
        }
        try (SpoolQueue reopened = SpoolQueue.builder(tempDir.resolve("replica")).openOrCreate()) {
            assertEquals(QueueRole.REPLICA, reopened.unwrap(QueueInternals.class).role(), "the role is persisted");
            assertThrows(SpoolException.class, reopened::createAppender);
        }
    }

    @Test
    void shouldWriteAtTheSameIndicesAsThePrimaryAcrossCycles() {
        final ManualClock clock = new ManualClock(START_MILLIS);
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20)
                .rollCycle(RollCycle.HOURLY).epochClock(clock).openOrCreate();
             ExcerptAppender appender = primary.createAppender()) {
            final long[] indices = new long[6];
            for (int i = 0; i < indices.length; i++) {
                if (i == 3) {
                    clock.advance(2 * HOUR);
                }
                indices[i] = appender.append(utf8("m" + i));
            }
            try (SpoolQueue replica = replicaBuilder(primary.queueId()).openOrCreate();
                 IndexedAppender replicaAppender = replica.unwrap(QueueInternals.class).createIndexedAppender();
                 ExcerptTailer tailer = replica.createTailer()) {
                for (int i = 0; i < indices.length; i++) {
                    final byte[] payload = utf8("m" + i);
                    assertEquals(indices[i], replicaAppender.appendAt(indices[i], payload, 0, payload.length));
                }
                assertEquals(primary.lastIndex(), replica.lastIndex());
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                for (int i = 0; i < indices.length; i++) {
                    into.clear();
                    assertEquals(indices[i], tailer.read(into));
                    assertEquals("m" + i, into.toString());
                }
                into.releaseLast();
            }
        }
    }

    @Test
    void shouldRefuseAGapOrAnEarlierIndexNamingBoth() {
        final UUID id = UUID.randomUUID();
        try (SpoolQueue replica = replicaBuilder(id).openOrCreate(); IndexedAppender appender = replica.unwrap(QueueInternals.class).createIndexedAppender()) {
            final long first = RollCycle.HOURLY.toIndex(400_000, 0);
            final byte[] payload = utf8("x");
            appender.appendAt(first, payload, 0, 1);
            appender.appendAt(first + 1, payload, 0, 1);
            final SpoolException gap = assertThrows(SpoolException.class, () -> appender.appendAt(first + 5, payload, 0, 1));
            assertTrue(gap.getMessage().contains("expected index " + IndexFormat.format((first + 2), RollCycle.HOURLY)), gap.getMessage());
            assertTrue(gap.getMessage().contains("given index " + IndexFormat.format((first + 5), RollCycle.HOURLY)), gap.getMessage());
            assertTrue(gap.getMessage().contains("a gap of 3"), gap.getMessage());
            final SpoolException earlier = assertThrows(SpoolException.class, () -> appender.appendAt(first + 1, payload, 0, 1));
            assertTrue(earlier.getMessage().contains("written already"), earlier.getMessage());
            final long earlierCycle = RollCycle.HOURLY.toIndex(399_999, 0);
            final SpoolException before = assertThrows(SpoolException.class,
                    () -> appender.appendAt(earlierCycle, payload, 0, 1));
            assertTrue(before.getMessage().contains("highest cycle is already 400000"), before.getMessage());
            assertEquals(first + 2, appender.appendAt(first + 2, payload, 0, 1), "a refused index leaves the tail as it was");
            assertEquals(first + 2, replica.lastIndex());
        }
    }

    @Test
    void shouldRefuseToOpenAPrimaryOrAnotherQueueAsAReplica() {
        final UUID id = UUID.randomUUID();
        try (SpoolQueue replica = replicaBuilder(id).openOrCreate()) {
            assertNotNull(replica);
        }
        final SpoolException other = assertThrows(SpoolException.class, () -> replicaBuilder(UUID.randomUUID()).openOrCreate());
        assertTrue(other.getMessage().contains("has queue id " + id), other.getMessage());
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20).openOrCreate()) {
            final UUID primaryId = primary.queueId();
            final SpoolException notReplica = assertThrows(SpoolException.class,
                    () -> SpoolQueue.builder(tempDir.resolve("primary")).replicaOf(primaryId).openOrCreate());
            assertTrue(notReplica.getMessage().contains("is a primary queue"), notReplica.getMessage());
        }
    }

    @Test
    void shouldRecordTheAckedIndexForOtherInstancesToSee() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             SpoolQueue other = SpoolQueue.builder(tempDir.resolve("q")).openOrCreate()) {
            assertEquals(-1, other.unwrap(QueueInternals.class).lastAckedIndex());
            queue.unwrap(QueueInternals.class).recordAcked(42);
            assertEquals(42, other.unwrap(QueueInternals.class).lastAckedIndex());
            queue.unwrap(QueueInternals.class).recordAcked(7);
            assertEquals(42, other.unwrap(QueueInternals.class).lastAckedIndex(), "the acked index never goes back");
        }
    }

    @Test
    void shouldPromoteAReplicaToPrimaryOfTheNextTermContinuingFromItsLastIndex() {
        final AtomicLong now = new AtomicLong(START_MILLIS);
        final UUID id = UUID.randomUUID();
        final long first = RollCycle.HOURLY.cycle(START_MILLIS, 0);
        try (SpoolQueue replica = SpoolQueue.builder(tempDir.resolve("replica")).chunkLength(1 << 20)
                .rollCycle(RollCycle.HOURLY).epochClock(now::get).replicaOf(id).openOrCreate()) {
            try (IndexedAppender appender = replica.unwrap(QueueInternals.class).createIndexedAppender()) {
                final byte[] payload = utf8("copied");
                appender.appendAt(RollCycle.HOURLY.toIndex(first, 0), payload, 0, payload.length);
                appender.appendAt(RollCycle.HOURLY.toIndex(first, 1), payload, 0, payload.length);
            }
            replica.unwrap(QueueInternals.class).adoptTerm(TermHistory.of(3));
            assertEquals(3, replica.unwrap(QueueInternals.class).term());
            assertEquals(4, replica.unwrap(QueueInternals.class).promote());
            assertEquals(QueueRole.PRIMARY, replica.unwrap(QueueInternals.class).role());
            assertThrows(SpoolException.class, () -> replica.unwrap(QueueInternals.class).promote(), "a primary cannot be promoted again");
            try (ExcerptAppender appender = replica.createAppender()) {
                assertEquals(RollCycle.HOURLY.toIndex(first, 2), appender.append(utf8("local")));
            }
            try (IndexedAppender appender = replica.unwrap(QueueInternals.class).createIndexedAppender()) {
                final byte[] payload = utf8("drained");
                assertEquals(RollCycle.HOURLY.toIndex(first, 3),
                        appender.appendAt(RollCycle.HOURLY.toIndex(first, 3), payload, 0, payload.length),
                        "a primary is written at given indices too, from its next one");
            }
        }
    }

    @Test
    void shouldRefuseNewAppendersOnceFencedByALaterTerm() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate()) {
            try (ExcerptAppender appender = queue.createAppender()) {
                appender.append(utf8("before"));
            }
            assertThrows(SpoolException.class, () -> queue.unwrap(QueueInternals.class).fence(0), "a term no later than the queue's own");
            queue.unwrap(QueueInternals.class).fence(1);
            assertEquals(QueueRole.FENCED, queue.unwrap(QueueInternals.class).role());
            final SpoolException refused = assertThrows(SpoolException.class, queue::createAppender);
            assertTrue(refused.getMessage().contains("fenced by term 1"), refused.getMessage());
        }
        try (SpoolQueue reopened = SpoolQueue.builder(tempDir.resolve("q")).openOrCreate()) {
            assertEquals(QueueRole.FENCED, reopened.unwrap(QueueInternals.class).role(), "fencing is persisted");
            assertThrows(SpoolException.class, reopened::createAppender);
        }
    }

    @Test
    void shouldStopAppendersOpenBeforeTheFenceEvenInAnotherInstance() {
        final Path directory = tempDir.resolve("open-before-fence");
        try (SpoolQueue writerSide = SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = writerSide.createAppender()) {
            final long last = appender.append(utf8("acked"));
            try (SpoolQueue fencingSide = SpoolQueue.open(directory)) {
                fencingSide.unwrap(QueueInternals.class).fence(3);
            }
            final SpoolException append = assertThrows(SpoolException.class,
                    () -> appender.append(utf8("after the fence")));
            assertTrue(append.getMessage().contains("fenced by term 3"), append.getMessage());
            assertThrows(SpoolException.class, () -> appender.claim(16), "a claim is a write too");
            assertEquals(last, writerSide.lastIndex(), "nothing written after the fence");
        }
    }

    @Test
    void shouldPromoteAReplicaToTheGivenTermAndRefuseATermNoLaterThanItsOwnNamingBoth() {
        final UUID id = UUID.randomUUID();
        try (SpoolQueue replica = replicaBuilder(id).openOrCreate()) {
            final QueueInternals internals = replica.unwrap(QueueInternals.class);
            internals.adoptTerm(TermHistory.of(3));
            final SpoolException same = assertThrows(SpoolException.class, () -> internals.promote(3));
            assertTrue(same.getMessage().contains(tempDir.resolve("replica").toString()), same.getMessage());
            assertTrue(same.getMessage().contains("has term 3") && same.getMessage().contains("term 3,"),
                    same.getMessage());
            assertThrows(SpoolException.class, () -> internals.promote(2), "an earlier term");
            assertEquals(QueueRole.REPLICA, internals.role(), "a refused promotion changes nothing");
            assertEquals(7, internals.promote(7));
            assertEquals(QueueRole.PRIMARY, internals.role());
            assertEquals(7, internals.term());
        }
        try (SpoolQueue reopened = SpoolQueue.open(tempDir.resolve("replica"))) {
            assertEquals(7, reopened.unwrap(QueueInternals.class).term(), "the term is persisted");
        }
    }

    @Test
    void shouldDemoteAPrimaryToAReplicaKeepingItsExcerptsAndStopAppendersOpenBefore() {
        final Path directory = tempDir.resolve("deposed");
        try (SpoolQueue writerSide = SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = writerSide.createAppender()) {
            final long last = appender.append(utf8("written"));
            try (SpoolQueue demotingSide = SpoolQueue.open(directory)) {
                final QueueInternals internals = demotingSide.unwrap(QueueInternals.class);
                final SpoolException early = assertThrows(SpoolException.class, () -> internals.demote(0));
                assertTrue(early.getMessage().contains("term 0 cannot demote it"), early.getMessage());
                assertTrue(internals.demote(5));
                assertFalse(internals.demote(5), "a replica is left as it is");
                assertFalse(internals.demote(7), "a replica is left as it is, whatever the term");
            }
            assertEquals(QueueRole.REPLICA, writerSide.unwrap(QueueInternals.class).role(), "seen by other instances");
            assertEquals(0, writerSide.unwrap(QueueInternals.class).term(), "the term of its own excerpts");
            final SpoolException append = assertThrows(SpoolException.class, () -> appender.append(utf8("late")));
            assertTrue(append.getMessage().contains("demoted to a replica by term 5"), append.getMessage());
            final SpoolException created = assertThrows(SpoolException.class, writerSide::createAppender);
            assertTrue(created.getMessage().contains("local appends are refused"), created.getMessage());
            assertEquals(last, writerSide.lastIndex(), "nothing written after the demotion, nothing lost before");
            writerSide.unwrap(QueueInternals.class).adoptTerm(TermHistory.of(5));
            try (IndexedAppender replicaWriter = writerSide.unwrap(QueueInternals.class).createIndexedAppender()) {
                final byte[] payload = utf8("copied");
                assertEquals(last + 1, replicaWriter.appendAt(last + 1, payload, 0, payload.length),
                        "a writer made on the replica, once it took the new primary's term, passes the fence");
            }
            assertEquals(6, writerSide.unwrap(QueueInternals.class).promote(6));
            assertThrows(SpoolException.class, () -> appender.append(utf8("stale")),
                    "an appender of the deposed term stays stopped after a later promotion");
            try (ExcerptAppender promoted = writerSide.createAppender()) {
                assertEquals(last + 2, promoted.append(utf8("primary again")));
            }
        }
    }

    @Test
    void shouldDemoteAFencedQueueOnlyToTheTermThatFencedItOrALaterOne() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            internals.fence(4);
            final SpoolException earlier = assertThrows(SpoolException.class, () -> internals.demote(3));
            assertTrue(earlier.getMessage().contains("was fenced by term 4: term 3 cannot demote it"),
                    earlier.getMessage());
            assertEquals(QueueRole.FENCED, internals.role());
            assertTrue(internals.demote(4));
            assertEquals(QueueRole.REPLICA, internals.role());
            assertEquals(0, internals.term(), "the term of its own excerpts");
        }
        try (SpoolQueue reopened = SpoolQueue.open(tempDir.resolve("q"))) {
            assertEquals(QueueRole.REPLICA, reopened.unwrap(QueueInternals.class).role(), "the demotion is persisted");
        }
    }
}
