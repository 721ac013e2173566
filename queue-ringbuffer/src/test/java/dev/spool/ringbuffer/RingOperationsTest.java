package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.*;

/** The ring's file modes, and its MBean on request. */
class RingOperationsTest extends SpoolTestBase {

    private static String mode(final Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    @Test
    void shouldCreateTheRingAndItsLockFileWithTheirModes() throws IOException {
        final Path ring = tempDir.resolve("default.ring");
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             AsyncQueue async = AsyncQueue.builder(queue).ringPath(ring).ringCapacity(1 << 16).build()) {
            assertEquals("rw-r-----", mode(ring));
            assertEquals("rw-------", mode(tempDir.resolve("default.ring.lock")), "only writers may open the lock file");
        }
        final Path shared = tempDir.resolve("shared.ring");
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).openOrCreate();
             AsyncQueue async = AsyncQueue.builder(queue).ringPath(shared).ringCapacity(1 << 16)
                     .ringFileMode(PosixFilePermissions.fromString("rw-rw----")).build()) {
            assertEquals("rw-rw----", mode(shared));
            assertEquals("rw-rw----", mode(tempDir.resolve("shared.ring.lock")));
        }
    }

    @Test
    void shouldRejectABadRingFileModeAtBuildNamingTheOption() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate()) {
            final SpoolException e = assertThrows(SpoolException.class,
                    () -> AsyncQueue.builder(queue).ringPath(tempDir.resolve("x.ring"))
                            .ringFileMode(PosixFilePermissions.fromString("rwxrwxrwx")).build());
            assertTrue(e.getMessage().startsWith("ringFileMode=rwxrwxrwx"), e.getMessage());
            assertFalse(Files.exists(tempDir.resolve("x.ring")));
        }
    }

    @Test
    void shouldShowTheRingsCountersThroughItsMBeanOnRequest() throws Exception {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final Path ring = tempDir.resolve("q.ring");
        final ObjectName name = new ObjectName("dev.spool:type=Ring,name=" + ObjectName.quote(ring.toString()));
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate()) {
            try (AsyncQueue async = AsyncQueue.builder(queue).ringPath(ring).ringCapacity(1 << 16).registerMBean().build();
                 AsyncAppender appender = async.createAppender()) {
                appender.append(new byte[100]);
                appender.append(new byte[100]);
                assertTrue((Long) server.getAttribute(name, "Occupancy") > 200, "two records wait in the ring");
                assertEquals(1 << 16, server.getAttribute(name, "Capacity"));
                assertEquals(0L, server.getAttribute(name, "BackPressureEvents"));
            }
            assertFalse(server.isRegistered(name), "closing unregisters");
            try (AsyncQueue async = AsyncQueue.builder(queue).ringPath(ring).ringCapacity(1 << 16).build()) {
                assertFalse(server.isRegistered(name), "not without registerMBean()");
                assertEquals(2, async.stats().drainedRecords(), "the close drained both");
            }
        }
    }
}
