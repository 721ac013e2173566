package dev.spool.importer;

import dev.spool.importer.tools.ImportTool;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.spool.importer.ChronicleQueues.appendRandom;
import static dev.spool.importer.ChronicleQueues.assertSameDocuments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImportToolTest extends SpoolTestBase {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private Path chronicle;
    private Path spool;

    @BeforeEach
    void setUp() {
        chronicle = tempDir.resolve("chronicle");
        spool = tempDir.resolve("spool");
        expectWarning("Overriding roll length from existing metadata");
        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appendRandom(appender, 200, 100, 1);
            time.advanceMillis(1_000);
            appendRandom(appender, 100, 100, 2);
        }
    }

    @Test
    void importShouldCopyEveryDocumentAndPrintTheReport() {
        assertEquals(0, run("import", chronicle.toString(), spool.toString(), "--roll-cycle", "minutely"), text(err));

        assertSameDocuments(chronicle, spool);
        final String report = text(out);
        assertTrue(report.contains("documents read:   300") && report.contains("excerpts written: 300")
                && report.contains("resumed:          no, started at the first document")
                && report.contains("metadata documents"), report);
        assertEquals(0, run("import", chronicle.toString(), spool.toString()), text(err));
        assertTrue(text(out).contains("excerpts written: 0"), text(out));
    }

    @Test
    void importShouldFailWithTheReasonWhenThereIsNoChronicleQueue() {
        assertEquals(1, run("import", tempDir.resolve("nothing").toString(), spool.toString()));
        assertEquals("spool: no Chronicle Queue at " + tempDir.resolve("nothing") + ": the directory does not exist",
                text(err).trim());
    }

    @Test
    void importShouldRefuseAMissingArgumentAsAUsageError() {
        assertEquals(2, run("import", chronicle.toString()));
        assertTrue(text(err).contains("Missing required parameter"), text(err));
    }

    @Test
    void shouldRefuseNoCommandAsAUsageError() {
        assertEquals(2, run());
        assertTrue(text(err).startsWith("spool: no command: import or bridge"), text(err));
    }

    @Test
    void bridgeShouldCopyUntilStopped() throws Exception {
        final AtomicBoolean stop = new AtomicBoolean();
        final CompletableFuture<Integer> bridge = CompletableFuture.supplyAsync(() -> ImportTool.run(
                new String[]{"bridge", chronicle.toString(), spool.toString()}, print(out), print(err), stop::get));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (copied() < 300) {
            assertTrue(System.nanoTime() < deadline, "the bridge copied nothing in 60 s: " + text(err));
            Thread.sleep(10);
        }
        stop.set(true);

        assertEquals(0, bridge.get(60, TimeUnit.SECONDS), text(err));
        assertTrue(text(out).contains("copied 300 documents"), text(out));
        assertSameDocuments(chronicle, spool);
    }

    /** @return the excerpts the Spool queue holds; 0 while the bridge is creating it. */
    private long copied() {
        if (!SpoolQueue.exists(spool)) {
            return 0;
        }
        try {
            return ChronicleQueues.spoolExcerpts(spool).size();
        } catch (SpoolException e) {
            // the bridge has not finished creating the queue: nothing copied yet
            return 0;
        }
    }

    private int run(final String... args) {
        out.reset();
        err.reset();
        return ImportTool.run(args, print(out), print(err), () -> false);
    }

    private static PrintStream print(final ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    private static String text(final ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
