package dev.spool.benchmarks.demo;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** The README's main command, {@code java -jar benchmarks.jar demo}, as a user runs it: every phase, every check. */
class DemoTest {
    @Test
    void shouldRunEveryPhaseAndPassEveryCheck() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Demo.run(new String[0], new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        final String report = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, report);
        for (final String phase : new String[]{"machine:", "typed:", "live:", "  queue 50%:", "  floor 50%:", "burst:",
            "metrics (JMX", "ring:", "replication:"}) {
            assertTrue(report.contains(phase), "the demo reports its " + phase + " phase\n" + report);
        }
        assertFalse(report.contains(": false"), "every check of the demo holds\n" + report);
        assertEquals(4, report.split(": true", -1).length - 1, "typed, live, ring and replica checks\n" + report);
        assertTrue(report.contains("after the drain: RingStats{capacity=") && report.contains(", occupancy=0,")
                        && report.contains(", drainedRecords=2000000,"),
                "the ring's figures are read once every record was drained\n" + report);
    }

    @Test
    void shouldNameTheMachinesCpusMemoryJdkAndTheFileSystemsOfTheQueueAndTheRing(@TempDir final Path queues)
            throws IOException {
        final Path ring = Path.of("/dev/shm");
        final String machine = Demo.machine(queues, Files.isDirectory(ring) ? ring : queues);
        final int cpus = Runtime.getRuntime().availableProcessors();
        assertTrue(machine.startsWith("machine: " + cpus + " CPU"), machine);
        assertTrue(machine.contains(" MiB of memory, "), machine);
        assertTrue(machine.contains(System.getProperty("java.runtime.version")), machine);
        assertTrue(machine.contains("queues on " + queues + " (" + Files.getFileStore(queues).type() + ")"), machine);
        if (Files.isDirectory(ring)) {
            assertTrue(machine.contains("ring on /dev/shm (" + Files.getFileStore(ring).type() + ")"), machine);
        }
    }
}
