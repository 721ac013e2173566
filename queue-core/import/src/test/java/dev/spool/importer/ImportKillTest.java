package dev.spool.importer;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static dev.spool.importer.ChronicleQueues.appendRandom;
import static dev.spool.importer.ChronicleQueues.assertSameDocuments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImportKillTest extends SpoolTestBase {
    private static final int CYCLES = 4;
    private static final int DOCUMENTS_PER_CYCLE = 10_000;

    @Test
    void shouldWriteNothingTwiceAndSkipNothingWhenAnImportKilledWithKill9IsRunAgain() throws Exception {
        expectWarning("Overriding roll length from existing metadata");
        final Path chronicle = tempDir.resolve("chronicle");
        final Path spool = tempDir.resolve("spool");
        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                appendRandom(appender, DOCUMENTS_PER_CYCLE, 2_000, cycle);
                time.advanceMillis(1_000);
            }
        }
        final long total = (long) CYCLES * DOCUMENTS_PER_CYCLE;

        long written = 0;
        long lastIndex = -1;
        final int[] announceAfter = {3_000, 4_200, 3_500};
        for (int round = 0; round < announceAfter.length; round++) {
            try (ChildJvm child = ChildJvm.start(ImportMain.class, tempDir.resolve("import-" + round + ".err"),
                    chronicle.toString(), spool.toString(), Integer.toString(announceAfter[round]))) {
                assertNotNull(child.awaitLine("started", 60, TimeUnit.SECONDS), child.stderrTail());
                // killed while it writes: between two writes or inside one
                child.kill();
            }
            final long excerpts = ChronicleQueues.spoolExcerpts(spool).size();
            // the clock's first read opens the queue; each later one comes before a write
            assertTrue(excerpts >= written + announceAfter[round] - 2 && excerpts < total,
                    "round " + round + ": " + excerpts + " excerpts after " + written);
            written = excerpts;
            try (SpoolQueue queue = SpoolQueue.builder(spool).readOnly().open()) {
                lastIndex = queue.lastIndex();
            }
        }

        final ImportReport report = ChronicleImport.from(chronicle).into(spool).run();

        assertEquals(lastIndex, report.resumedAfterSpoolIndex(), report.toString());
        assertEquals(total - written, report.excerptsWritten(), report.toString());
        assertSameDocuments(chronicle, spool);
    }
}
