package dev.spool.queue.typed;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.tools.SpoolTool;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** dump and tail print typed excerpts as calls with names and values, from the schema the writer stored. */
class TypedToolsTest extends SpoolTestBase {
    private Path write() {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = SpoolQueue.builder(directory).rollCycle(RollCycle.DAILY).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final OrderEvents writer = appender.methodWriter(OrderEvents.class);
            writer.newOrder(TypedMessagesTest.order(17));
            writer.cancel(17, CancelReason.RISK);
            appender.append("plain".getBytes(StandardCharsets.UTF_8));
        }
        return directory;
    }

    private static String run(final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = SpoolTool.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    private static final String NEW_ORDER = "OrderEvents.newOrder(order={id=17, instrument=\"EURUSD\", side=SELL, "
            + "price=1.0842, quantity=1000000, account={name=\"désk-7 \uD83D\uDE80\", region=44}})";

    @Test
    void shouldTailTypedExcerptsAsCallsWithNamesAndValues() {
        final String[] lines = run("tail", write().toString()).split(System.lineSeparator());
        assertEquals(3, lines.length);
        assertTrue(lines[0].endsWith("\t" + NEW_ORDER), lines[0]);
        assertTrue(lines[1].endsWith("\tOrderEvents.cancel(orderId=17, why=RISK)"), lines[1]);
        assertTrue(lines[2].endsWith("\tplain"), lines[2]);
    }

    @Test
    void shouldDumpTypedExcerptsAsTextAndNotListTheSchemaAsAStrayFile() {
        final String dump = run("dump", write().toString());
        assertTrue(dump.contains("    typed " + NEW_ORDER + System.lineSeparator()), dump);
        assertTrue(dump.contains("    typed OrderEvents.cancel(orderId=17, why=RISK)"), dump);
        assertFalse(dump.contains("ignored file"), dump);
        assertTrue(dump.lines().anyMatch(line -> line.matches("\\s*schema generation\\s*:?\\s*1")), dump);
    }

    @Test
    void shouldPrintTypedExcerptsByIdsAndTypesWithoutASchema() throws Exception {
        final Path directory = write();
        Files.delete(directory.resolve("dev.spool.queue.typed.OrderEvents.spool-schema"));
        final String tail = run("tail", directory.toString());
        assertTrue(tail.contains("\tevents#" + OrderEventsSpoolWriter.EVENTS_ID + ".method#"), tail);
        assertTrue(tail.contains("(#0={#0=17, #1=\"EURUSD\", #2=ordinal 1, #3=1.0842, #4=1000000,"), tail);
    }
}
