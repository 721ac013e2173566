package dev.spool.importer;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static dev.spool.importer.ChronicleQueues.appendRandom;
import static dev.spool.importer.ChronicleQueues.assertSameDocuments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChronicleBridgeTest extends SpoolTestBase {
    private Path chronicle;
    private Path spool;

    @BeforeEach
    void setUp() {
        chronicle = tempDir.resolve("chronicle");
        spool = tempDir.resolve("spool");
        expectWarning("Overriding roll length from existing metadata");
    }

    @Test
    void shouldShowItsProgressAndLagInJmx() throws Exception {
        final SetTimeProvider time = ChronicleQueues.clock();
        final CachedNanoClock nanoClock = new CachedNanoClock();
        try (SingleChronicleQueue queue = ChronicleQueues.writer(chronicle, time);
             ExcerptAppender appender = queue.createAppender()) {
            appendRandom(appender, 3_000, 100, 1);
            try (ChronicleBridge bridge = ChronicleImport.from(chronicle).into(spool).nanoClock(nanoClock)
                    .invokedBridge()) {
                final ObjectName name = new ObjectName("dev.spool:type=Bridge,name=" + ObjectName.quote(spool.toString()));

                assertEquals(ChronicleImport.BATCH, bridge.invoke());
                assertEquals(3_000L - ChronicleImport.BATCH, attribute(name, "LagDocuments"));
                assertEquals((long) ChronicleImport.BATCH, attribute(name, "DocumentsCopied"));
                while (bridge.invoke() > 0) {
                    continue;
                }
                nanoClock.advance(ChronicleBridge.LAG_CHECK_INTERVAL.toNanos());
                assertEquals(0, bridge.invoke());
                assertEquals(0L, attribute(name, "LagDocuments"));

                // the writer rolls: the bridge follows into the next cycle
                time.advanceMillis(1_000);
                appendRandom(appender, 10, 100, 2);
                nanoClock.advance(ChronicleBridge.LAG_CHECK_INTERVAL.toNanos());
                assertEquals(10, bridge.invoke());
                assertEquals(3_010L, attribute(name, "DocumentsCopied"));
                assertEquals(0L, attribute(name, "LagDocuments"));
                assertEquals(queue.lastIndex(), bridge.metrics().getLastChronicleIndex());
                assertEquals(Boolean.TRUE, attribute(name, "Running"));
                try (SpoolQueue copy = SpoolQueue.builder(spool).readOnly().open()) {
                    assertEquals(copy.lastIndex(), bridge.metrics().getLastSpoolIndex());
                }
            }
            assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(
                    new ObjectName("dev.spool:type=Bridge,name=" + ObjectName.quote(spool.toString()))));
        }
        assertSameDocuments(chronicle, spool);
    }

    @Test
    void shouldFollowAWriterInAnotherProcessAcrossItsRollsAndAKill9AndRestart() throws Exception {
        // the queue exists before the bridge opens it
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(chronicle)
                .rollCycle(net.openhft.chronicle.queue.rollcycles.TestRollCycles.TEST_SECONDLY).build()) {
            assertTrue(queue.lastIndex() < 0);
        }
        try (ChronicleBridge bridge = ChronicleImport.from(chronicle).into(spool)
                .startBridge(new SleepingMillisIdleStrategy(1))) {
            try (ChildJvm writer = ChildJvm.start(ChronicleWriterMain.class, tempDir.resolve("writer-1.err"),
                    chronicle.toString(), "1000000", "1")) {
                assertNotNull(writer.awaitLine("wrote 6000", 120, TimeUnit.SECONDS), writer.stderrTail());
                writer.kill();
            }
            try (ChildJvm writer = ChildJvm.start(ChronicleWriterMain.class, tempDir.resolve("writer-2.err"),
                    chronicle.toString(), "6000", "2")) {
                assertNotNull(writer.awaitLine("done", 120, TimeUnit.SECONDS), writer.stderrTail());
                assertEquals(0, writer.awaitExit(30, TimeUnit.SECONDS));
            }
            final long documents = ChronicleQueues.chronicleDocuments(chronicle).size();
            assertTrue(documents >= 12_000, documents + " documents");
            await(() -> bridge.metrics().getDocumentsCopied() == documents && bridge.metrics().getLagDocuments() == 0,
                    () -> "copied " + bridge.metrics().getDocumentsCopied() + " of " + documents + ", lag "
                            + bridge.metrics().getLagDocuments() + ", errors " + bridge.lastError());
            assertEquals(0, bridge.errorCount(), bridge.lastError());
        }
        assertSameDocuments(chronicle, spool);
        try (SpoolQueue copy = SpoolQueue.builder(spool).readOnly().open()) {
            assertTrue(copy.cycles().length >= 2, "the writer rolled at least once: " + copy.cycles().length);
        }
    }

    private static Object attribute(final ObjectName name, final String attribute) throws Exception {
        return ManagementFactory.getPlatformMBeanServer().getAttribute(name, attribute);
    }

    private static void await(final BooleanSupplier condition, final java.util.function.Supplier<String> state)
            throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, state.get());
            Thread.sleep(5);
        }
    }
}
