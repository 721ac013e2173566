package dev.spool.importer;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.agrona.concurrent.EpochClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.spool.importer.ChronicleQueues.START_MILLIS;
import static dev.spool.importer.ChronicleQueues.append;
import static dev.spool.importer.ChronicleQueues.appendMetadata;
import static dev.spool.importer.ChronicleQueues.appendRandom;
import static dev.spool.importer.ChronicleQueues.assertSameDocuments;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChronicleImportTest extends SpoolTestBase {
    /** Documents of 0 bytes to 1 MiB, and the lengths around the Spool excerpt's alignment. */
    private static final int[] LENGTHS = {0, 1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 4095, 4096, 65_536, 1 << 20};

    private Path chronicle;
    private Path spool;

    @BeforeEach
    void setUp() {
        chronicle = tempDir.resolve("chronicle");
        spool = tempDir.resolve("spool");
        // Chronicle's read-only open adopts the roll cycle its metadata holds, and says so at WARN
        expectWarning("Overriding roll length from existing metadata");
    }

    @Test
    void shouldImportEveryDocumentInOrderAcrossSeveralRollCycles() {
        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < LENGTHS.length; i++) {
                append(appender, LENGTHS[i], i);
            }
            appendMetadata(appender);
            time.advanceMillis(1_000);
            appendRandom(appender, 500, 2_000, 1);
            appendMetadata(appender);
            // a gap of two empty cycles, then two more cycles
            time.advanceMillis(3_000);
            appendRandom(appender, 10, 100, 2);
            time.advanceMillis(1_000);
            appendRandom(appender, 2_000, 300, 3);
        }

        final ImportReport report = ChronicleImport.from(chronicle).into(spool).run();

        assertSameDocuments(chronicle, spool);
        assertEquals(1, ChronicleQueues.spoolExcerpts(spool).get(0).length,
                "Chronicle stores a document written empty as one byte, which its reader returns and the import copies");
        final long documents = LENGTHS.length + 500 + 10 + 2_000;
        assertEquals(documents, report.documentsRead(), report.toString());
        assertEquals(documents, report.excerptsWritten(), report.toString());
        assertTrue(report.metadataSkipped() >= 2, report.toString());
        assertEquals(-1, report.resumedAfterSpoolIndex(), report.toString());
        try (SpoolQueue queue = SpoolQueue.builder(spool).readOnly().open()) {
            assertEquals(RollCycle.SECONDLY, queue.rollCycle());
            final long first = START_MILLIS / 1_000;
            assertArrayEquals(new long[]{first, first + 1, first + 4, first + 5}, queue.cycles(),
                    "each Chronicle cycle in the Spool cycle of the same second");
            assertEquals(report.lastSpoolIndex(), queue.lastIndex());
        }
    }

    @Test
    void shouldReportTheBytesOfEveryDocument() {
        final SetTimeProvider time = ChronicleQueues.clock();
        long bytes = 0;
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < LENGTHS.length; i++) {
                append(appender, LENGTHS[i], i);
            }
        }
        for (final byte[] document : ChronicleQueues.chronicleDocuments(chronicle)) {
            bytes += document.length;
        }

        final ImportReport report = ChronicleImport.from(chronicle).into(spool).run();

        assertEquals(bytes, report.bytesWritten(), report.toString());
        assertTrue(report.toString().contains("excerpts written: " + LENGTHS.length), report.toString());
    }

    @Test
    void shouldImportNothingTwiceWhenRunAgainAndOnlyWhatWasAppendedSince() {
        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appendRandom(appender, 300, 500, 4);
            time.advanceMillis(1_000);
            appendRandom(appender, 300, 500, 5);
        }
        final ImportReport first = ChronicleImport.from(chronicle).into(spool).run();

        final ImportReport again = ChronicleImport.from(chronicle).into(spool).run();
        assertEquals(0, again.excerptsWritten(), again.toString());
        assertEquals(first.lastSpoolIndex(), again.resumedAfterSpoolIndex(), again.toString());

        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appendRandom(appender, 50, 500, 6);
            time.advanceMillis(1_000);
            appendRandom(appender, 70, 500, 7);
        }
        final ImportReport more = ChronicleImport.from(chronicle).into(spool).run();
        assertEquals(120, more.excerptsWritten(), more.toString());
        assertSameDocuments(chronicle, spool);
    }

    @Test
    void shouldImportEveryDocumentWhenTheWriterRollsDuringTheImport() throws Exception {
        final SetTimeProvider time = ChronicleQueues.clock();
        final CountDownLatch lastOfFirstCycleRead = new CountDownLatch(1);
        final CountDownLatch rolled = new CountDownLatch(1);
        final AtomicInteger documents = new AtomicInteger();
        // the import's wall clock is read once per document, before its write: the import holds the last document
        // of the first cycle, read but not written, until the writer has rolled five times
        final EpochClock pausingClock = () -> {
            if (documents.incrementAndGet() == 5_000) {
                lastOfFirstCycleRead.countDown();
                try {
                    assertTrue(rolled.await(60, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            return START_MILLIS;
        };
        final ImportReport report;
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appendRandom(appender, 5_000, 200, 8);
            final CompletableFuture<ImportReport> running = CompletableFuture.supplyAsync(
                    () -> ChronicleImport.from(chronicle).into(spool).epochClock(pausingClock).run());
            assertTrue(lastOfFirstCycleRead.await(60, TimeUnit.SECONDS));
            for (int cycle = 0; cycle < 5; cycle++) {
                time.advanceMillis(1_000);
                appendRandom(appender, 1_000, 200, 9 + cycle);
            }
            rolled.countDown();
            report = running.get(60, TimeUnit.SECONDS);
        }
        assertEquals(10_000, report.excerptsWritten(), "one run read across the rolls: " + report);
        assertSameDocuments(chronicle, spool);
        try (SpoolQueue queue = SpoolQueue.builder(spool).readOnly().open()) {
            assertEquals(6, queue.cycles().length);
        }
    }

    @Test
    void shouldMapTheRollCycleToTheNearestOrTheGivenOne() {
        assertEquals(RollCycle.SECONDLY, CycleMapping.nearest(1_000));
        assertEquals(RollCycle.MINUTELY, CycleMapping.nearest(5 * 60_000));
        assertEquals(RollCycle.HOURLY, CycleMapping.nearest(30 * 60_000));
        assertEquals(RollCycle.HOURLY, CycleMapping.nearest(4 * 3_600_000));
        assertEquals(RollCycle.DAILY, CycleMapping.nearest(6 * 3_600_000));
        assertEquals(RollCycle.DAILY, CycleMapping.nearest(86_400_000));
        assertEquals(RollCycle.WEEKLY, CycleMapping.nearest(7 * 86_400_000L));

        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            for (int cycle = 0; cycle < 3; cycle++) {
                appendRandom(appender, 100, 100, 20 + cycle);
                time.advanceMillis(1_000);
            }
        }
        ChronicleImport.from(chronicle).into(spool).rollCycle(RollCycle.MINUTELY).run();

        assertSameDocuments(chronicle, spool);
        try (SpoolQueue queue = SpoolQueue.builder(spool).readOnly().open()) {
            assertEquals(RollCycle.MINUTELY, queue.rollCycle());
            assertEquals(1, queue.cycles().length, "three Chronicle seconds in one Spool minute");
            assertEquals(RollCycle.MINUTELY.toIndex(queue.cycles()[0], 299), queue.lastIndex());
        }
        // a run after more seconds resumes in the middle of the Spool minute
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appendRandom(appender, 40, 100, 30);
        }
        assertEquals(40, ChronicleImport.from(chronicle).into(spool).run().excerptsWritten());
        assertSameDocuments(chronicle, spool);
    }

    @Test
    void shouldRecordIndexTimesThatNeverSkipADocumentAppendedAfterTheTimeAsked() {
        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appendRandom(appender, 1_000, 50, 40);
            time.advanceMillis(1_000);
            append(appender, 7, 41);
            appendRandom(appender, 1_000, 50, 42);
        }
        ChronicleImport.from(chronicle).into(spool).run();

        try (SpoolQueue queue = SpoolQueue.builder(spool).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            final long secondCycleStart = RollCycle.SECONDLY.toIndex(START_MILLIS / 1_000 + 1, 0);
            tailer.moveToTime(Instant.ofEpochMilli(START_MILLIS + 1_000));
            final long[] first = {-1};
            int reads = 0;
            while (first[0] != secondCycleStart && tailer.read((store, offset, length, index) -> first[0] = index)) {
                reads++;
            }
            assertEquals(secondCycleStart, first[0], "the first document of the second's cycle is read");
            assertTrue(reads <= 65, "read " + reads + " excerpts before it");
        }
    }

    @Test
    void shouldRefuseASpoolQueueThatIsNotAnImportOfTheChronicleQueue() {
        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appendRandom(appender, 10, 50, 50);
        }
        try (SpoolQueue queue = SpoolQueue.builder(spool).rollCycle(RollCycle.SECONDLY).create();
             dev.spool.queue.ExcerptAppender appender = queue.createAppender()) {
            appender.append(new byte[]{1, 2, 3});
        }

        final SpoolException refused = assertThrows(SpoolException.class,
                () -> ChronicleImport.from(chronicle).into(spool).run());
        assertTrue(refused.getMessage().contains("is not an import of Chronicle Queue"), refused.getMessage());
        assertEquals(List.of(3), ChronicleQueues.spoolExcerpts(spool).stream().map(b -> b.length).toList());
    }

    @Test
    void shouldSayWhenThereIsNoChronicleQueue() throws Exception {
        final SpoolException missing = assertThrows(SpoolException.class,
                () -> ChronicleImport.from(chronicle).into(spool).run());
        assertEquals("no Chronicle Queue at " + chronicle + ": the directory does not exist", missing.getMessage());
        Files.createDirectories(chronicle);
        final SpoolException empty = assertThrows(SpoolException.class,
                () -> ChronicleImport.from(chronicle).into(spool).run());
        assertEquals("no Chronicle Queue at " + chronicle + ": the directory has no metadata.cq4t", empty.getMessage());
        assertTrue(!Files.exists(spool), "nothing created");
    }

}
