package dev.spool.queue;

import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The queue's counters count what happened, cost the append no allocation, and show through JMX on request. */
class QueueMetricsTest extends SpoolTestBase {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final long DAY = 86_400_000L;

    @Test
    void shouldCountAppendsBytesAndSyncsOfOpenAndClosedAppenders() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate()) {
            final QueueMXBean metrics = queue.metrics();
            try (ExcerptAppender plain = queue.createAppender()) {
                for (int i = 0; i < 10; i++) {
                    plain.append(new byte[16]);
                }
            }
            try (ExcerptAppender syncing = queue.createAppender(SyncPolicy.everyMessage())) {
                for (int i = 0; i < 5; i++) {
                    syncing.append(new byte[100]);
                }
                assertEquals(15, metrics.getAppends(), "closed and open appenders together");
                assertEquals(10 * 16 + 5 * 100, metrics.getAppendedBytes());
                assertEquals(5, metrics.getSyncs(), "one msync per message");
                assertTrue(metrics.getSyncTimeTotalNanos() >= metrics.getSyncTimeMaxNanos()
                        && metrics.getSyncTimeMaxNanos() > 0, "sync latency is measured");
                assertEquals(syncing.lastIndexAppended(), metrics.getLastIndex());
                assertEquals(syncing.lastIndexAppended(), metrics.getLastSyncedIndex());
                assertEquals(1, metrics.getOpenUsers());
            }
            assertEquals(15, metrics.getAppends(), "a closed appender's counts stay");
            assertEquals(0, metrics.getWriteLockTakeovers());
            assertEquals(0, metrics.getTornTailRecoveries());
            assertEquals("PRIMARY", metrics.getRole());
        }
    }

    @Test
    void shouldReportEachNamedTailersLagWithinAndAcrossCycles() {
        final ManualClock clock = new ManualClock(100 * DAY);
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).epochClock(clock).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer audit = queue.createTailer("audit");
             ExcerptTailer idle = queue.createTailer("idle")) {
            for (int i = 0; i < 10; i++) {
                appender.append(new byte[8]);
            }
            for (int i = 0; i < 3; i++) {
                assertTrue(audit.read((bytes, offset, length, index) -> { }));
            }
            assertEquals(Map.of("audit", 7L, "idle", 10L), queue.metrics().getNamedTailerLag());
            assertEquals("idle", idle.name());
            clock.advance(DAY);
            for (int i = 0; i < 5; i++) {
                appender.append(new byte[8]);
            }
            assertEquals(Map.of("audit", 12L, "idle", 15L), queue.metrics().getNamedTailerLag(), "across a roll");
            assertEquals(-1L, queue.metrics().getNamedTailerIndex().get("idle"));
            assertEquals(15, queue.metrics().getAckLag(), "nothing acknowledged: everything lags");
        }
    }

    @Test
    void shouldRegisterTheMBeanOnlyOnRequestAndUnregisterItOnClose() throws Exception {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final Path directory = tempDir.resolve("q");
        final ObjectName name = new ObjectName("dev.spool:type=Queue,name=" + ObjectName.quote(directory.toString()));
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate()) {
            assertFalse(server.isRegistered(name), "not without registerMBean()");
        }
        try (SpoolQueue queue = SpoolQueue.builder(directory).registerMBean().openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer named = queue.createTailer("reader")) {
            appender.append(new byte[8]);
            appender.append(new byte[8]);
            assertEquals(2L, server.getAttribute(name, "Appends"));
            assertEquals(appender.lastIndexAppended(), server.getAttribute(name, "LastIndex"));
            final TabularData lag = (TabularData) server.getAttribute(name, "NamedTailerLag");
            final CompositeData row = lag.get(new Object[]{"reader"});
            assertEquals(2L, row.get("value"));
            final SpoolException twice = assertThrows(SpoolException.class,
                    () -> SpoolQueue.builder(directory).registerMBean().openOrCreate());
            assertTrue(twice.getMessage().contains(name.toString()) && twice.getMessage().contains("registered already"),
                    twice.getMessage());
        }
        assertFalse(server.isRegistered(name), "closing unregisters");
    }

    @Test
    void shouldCountAppendsWithoutAllocating() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final byte[] payload = new byte[32];
            for (int i = 0; i < 20_000; i++) {
                appender.append(payload);
            }
            final long thread = Thread.currentThread().getId();
            final long before = THREADS.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 20_000; i++) {
                appender.append(payload);
            }
            final long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
            assertEquals(40_000, queue.metrics().getAppends());
            // an object per append would be at least 16 bytes each; the little left is a chunk mapped on the way
            assertTrue(allocated < 20_000, "20,000 counted appends allocated " + allocated + " bytes");
        }
    }
}
