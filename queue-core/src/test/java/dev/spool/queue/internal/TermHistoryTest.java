package dev.spool.queue.internal;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.TermHistoryDescriptor;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The term history: where two histories first give different terms (what the replication handshake refuses a
 * replica by), what a promotion and an adoption persist, and a damaged or half-written file.
 */
class TermHistoryTest extends SpoolTestBase {
    private static TermHistory history(final long... termsAndStarts) {
        final long[] terms = new long[termsAndStarts.length / 2];
        final long[] starts = new long[terms.length];
        for (int e = 0; e < terms.length; e++) {
            terms[e] = termsAndStarts[2 * e];
            starts[e] = termsAndStarts[2 * e + 1];
        }
        return TermHistory.of(terms, starts);
    }

    @Test
    void shouldFindNoDifferenceBetweenEqualHistories() {
        assertEquals(Long.MAX_VALUE, history(0, 0, 2, 100, 5, 150).firstDifference(history(0, 0, 2, 100, 5, 150)));
        assertEquals(Long.MAX_VALUE, TermHistory.of(0).firstDifference(TermHistory.of(0)));
    }

    @Test
    void shouldFindTheStartOfTheLaterTermWhenOneHistoryIsAPrefixOfTheOther() {
        final TermHistory source = history(0, 0, 2, 100, 5, 150);
        final TermHistory sink = history(0, 0, 2, 100);
        assertEquals(150, source.firstDifference(sink), "the sink holds term 2 up to 149 at most to agree");
        assertEquals(150, sink.firstDifference(source), "the comparison is symmetric");
    }

    @Test
    void shouldIgnoreAnEmptyTermWhoseStartIsTheNextTermsStart() {
        final TermHistory withEmpty = history(0, 0, 2, 100, 3, 100, 4, 120);
        assertEquals(3, withEmpty.termAt(100), "term 2 covers nothing: its start is term 3's");
        assertEquals(Long.MAX_VALUE, withEmpty.firstDifference(history(0, 0, 3, 100, 4, 120)));
        assertEquals(100, withEmpty.firstDifference(history(0, 0, 2, 100, 4, 120)),
                "term 2 from 100 against term 3 from 100");
    }

    @Test
    void shouldFindTheBoundaryWhereAFormerPrimaryKeptWritingItsOldTerm() {
        final TermHistory deposed = history(0, 0);
        final TermHistory promoted = history(0, 0, 1, 100);
        assertEquals(100, promoted.firstDifference(deposed), "the deposed primary's own excerpts from 100 are term 0");
        assertEquals(0, deposed.termAt(104));
        assertEquals(1, promoted.termAt(104));
    }

    @Test
    void shouldFindWhereASinkAheadWroteATermTheSourceNeverHad() {
        final TermHistory source = history(0, 0);
        final TermHistory aheadSink = history(0, 0, 2, 100);
        assertEquals(100, source.firstDifference(aheadSink), "a sink whose last index is 100 or more is refused");
    }

    @Test
    void shouldFindADifferentTermAtTheSameBoundary() {
        assertEquals(100, history(0, 0, 1, 100).firstDifference(history(0, 0, 2, 100)));
        assertEquals(90, history(0, 0, 1, 100).firstDifference(history(0, 0, 2, 90)));
    }

    @Test
    void shouldTreatAQueueWithoutHistoryAsItsTermFromIndexZero() {
        final TermHistory legacy = TermHistory.of(3);
        assertEquals(3, legacy.termAt(0));
        assertEquals(Long.MAX_VALUE, legacy.firstDifference(history(3, 0)));
        assertEquals(0, legacy.firstDifference(history(0, 0, 3, 50)), "it cannot say index 0 was term 0");
    }

    @Test
    void shouldCompareOnlyFromTheLaterFirstStartOfAHistoryThatDroppedItsOldestEntries() {
        assertEquals(Long.MAX_VALUE, history(4, 200, 5, 300).firstDifference(history(0, 0, 4, 100, 5, 300)));
        assertEquals(250, history(4, 200, 5, 250).firstDifference(history(0, 0, 4, 100, 5, 300)));
        assertEquals(-1, history(4, 200).termAt(199));
    }

    @Test
    void shouldDropTheTermsAPromotedReplicaNeverReceivedAnExcerptOf() {
        final TermHistory adopted = history(0, 0, 1, 100, 2, 150);
        assertEquals(history(0, 0, 1, 100, 3, 121), adopted.append(3, 121));
        assertEquals(history(0, 0, 1, 100, 2, 150, 3, 150), adopted.append(3, 150));
        assertThrows(IllegalArgumentException.class, () -> adopted.append(2, 200));
    }

    @Test
    void shouldKeepAtMostTheMostEntriesDroppingTheOldest() {
        TermHistory history = TermHistory.of(0);
        for (int term = 1; term <= TermHistoryDescriptor.MAX_ENTRIES + 5; term++) {
            history = history.append(term, term * 10L);
        }
        assertEquals(TermHistoryDescriptor.MAX_ENTRIES, history.size());
        assertEquals(6, history.term(0));
        assertEquals(TermHistoryDescriptor.MAX_ENTRIES + 5, history.lastTerm());
    }

    @Test
    void shouldRefuseEntriesThatAreNoHistoryNamingTheEntry() {
        assertTrue(TermHistory.problem(new long[] {0, 0}, new long[] {0, 5}).contains("entry 1: term=0"));
        assertTrue(TermHistory.problem(new long[] {0, 1}, new long[] {5, 4}).contains("entry 1: start index=4"));
        assertTrue(TermHistory.problem(new long[0], new long[0]).contains("entry count=0"));
        assertNull(TermHistory.problem(new long[] {0, 1}, new long[] {5, 5}));
    }

    @Test
    void shouldPersistEachPromotionAndAnAdoptedHistoryAcrossReopens() {
        final Path directory = tempDir.resolve("replica");
        try (SpoolQueue replica = SpoolQueue.builder(directory).chunkLength(1 << 20).replicaOf(UUID.randomUUID())
                .openOrCreate()) {
            final QueueInternals internals = replica.unwrap(QueueInternals.class);
            assertEquals(TermHistory.of(0), internals.termHistory(), "a queue that never changed term");
            assertFalse(Files.exists(directory.resolve(TermHistoryDescriptor.FILE_NAME)));
            internals.adoptTerm(history(0, 0, 2, 7));
            assertEquals(2, internals.term());
            assertEquals(4, internals.promote(4));
        }
        try (SpoolQueue reopened = SpoolQueue.builder(directory).openOrCreate()) {
            assertEquals(history(0, 0, 4, 0), reopened.unwrap(QueueInternals.class).termHistory(),
                    "promoted while empty: term 4 from index 0; term 2, from 7, never reached this queue and goes");
            assertFalse(Files.exists(directory.resolve(TermHistoryDescriptor.TEMPORARY_FILE_NAME)));
        }
    }

    @Test
    void shouldReadTheWholeOldHistoryWhenATemporaryFileWasLeftByACrashAndRefuseADamagedOne() throws IOException {
        final Path directory = tempDir.resolve("replica");
        try (SpoolQueue replica = SpoolQueue.builder(directory).chunkLength(1 << 20).replicaOf(UUID.randomUUID())
                .openOrCreate()) {
            final QueueInternals internals = replica.unwrap(QueueInternals.class);
            internals.promote(1);
            Files.write(directory.resolve(TermHistoryDescriptor.TEMPORARY_FILE_NAME), new byte[] {1, 2, 3});
            assertEquals(history(0, 0, 1, 0), internals.termHistory(), "a half-written new version is not read");
            final Path file = directory.resolve(TermHistoryDescriptor.FILE_NAME);
            final byte[] bytes = Files.readAllBytes(file);
            bytes[TermHistoryDescriptor.entryPosition(1) + TermHistoryDescriptor.ENTRY_TERM_OFFSET] = 9;
            Files.write(file, bytes);
            final SpoolException damaged = assertThrows(SpoolException.class, internals::termHistory);
            assertTrue(damaged.getMessage().contains(file.toString()), damaged.getMessage());
            assertTrue(damaged.getMessage().contains("CRC-32C stored"), damaged.getMessage());
        }
    }
}
