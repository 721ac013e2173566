package dev.spool.importer;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TypedImportTest extends SpoolTestBase {
    private Path chronicle;
    private Path spool;

    @BeforeEach
    void setUp() {
        chronicle = tempDir.resolve("chronicle");
        spool = tempDir.resolve("spool");
        expectWarning("Overriding roll length from existing metadata");
    }

    @Test
    void shouldImportEachMethodWriterCallAsASpoolTypedEvent() {
        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            final Trades trades = appender.methodWriter(Trades.class);
            for (int i = 0; i < 500; i++) {
                trades.trade(i, 100.25 + i, "SYM" + i % 7);
                if (i % 10 == 0) {
                    trades.cancel(i);
                }
                if (i == 250) {
                    time.advanceMillis(1_000);
                }
            }
        }

        final ImportReport report = ChronicleImport.from(chronicle).into(spool).typed(Trades.class).run();

        final List<String> expected = chronicleCalls();
        assertEquals(550, expected.size());
        assertEquals(550, report.excerptsWritten(), report.toString());
        assertEquals(expected, spoolCalls());
        try (SpoolQueue queue = SpoolQueue.builder(spool).readOnly().open()) {
            final long first = ChronicleQueues.START_MILLIS / 1_000;
            org.junit.jupiter.api.Assertions.assertArrayEquals(new long[]{first, first + 1}, queue.cycles(),
                    "each call in the Spool cycle of its Chronicle cycle");
        }

        // a run after more calls resumes after the last, checking it by its encoding
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appender.methodWriter(Trades.class).trade(1_000, 1.5, "LAST");
        }
        final ImportReport again = ChronicleImport.from(chronicle).into(spool).typed(Trades.class).run();
        assertEquals(1, again.excerptsWritten(), again.toString());
        assertEquals(report.lastSpoolIndex(), again.resumedAfterSpoolIndex(), again.toString());
        assertEquals(chronicleCalls(), spoolCalls());
    }

    @Test
    void shouldStopAtADocumentThatIsNotACallOfTheInterface() {
        final SetTimeProvider time = ChronicleQueues.clock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            final Trades trades = appender.methodWriter(Trades.class);
            trades.trade(1, 2.5, "A");
            trades.cancel(1);
            ChronicleQueues.append(appender, 16, 3);
            trades.trade(2, 3.5, "B");
        }

        final SpoolException stopped = assertThrows(SpoolException.class,
                () -> ChronicleImport.from(chronicle).into(spool).typed(Trades.class).run());

        assertTrue(stopped.getMessage().contains("is not a call of " + Trades.class.getName()), stopped.getMessage());
        assertEquals(List.of("trade 1 2.5 A", "cancel 1"), spoolCalls());
    }

    private List<String> chronicleCalls() {
        final List<String> calls = new ArrayList<>();
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(chronicle).readOnly(true).build();
             net.openhft.chronicle.queue.ExcerptTailer tailer = queue.createTailer()) {
            final net.openhft.chronicle.bytes.MethodReader reader = tailer.methodReader(new Recorder(calls));
            while (reader.readOne()) {
                continue;
            }
        }
        return calls;
    }

    private List<String> spoolCalls() {
        final List<String> calls = new ArrayList<>();
        try (SpoolQueue queue = SpoolQueue.builder(spool).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            final dev.spool.queue.typed.MethodReader reader = tailer.methodReader(Trades.class, new Recorder(calls));
            while (reader.readOne()) {
                continue;
            }
        }
        return calls;
    }

    /** Records each call as a line. */
    public static final class Recorder implements Trades {
        private final List<String> calls;

        Recorder(final List<String> calls) {
            this.calls = calls;
        }

        @Override
        public void trade(final long id, final double price, final CharSequence symbol) {
            calls.add("trade " + id + " " + price + " " + symbol);
        }

        @Override
        public void cancel(final long id) {
            calls.add("cancel " + id);
        }
    }
}
