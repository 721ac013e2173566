package dev.spool.benchmarks.cluster;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code cluster} command as a user runs it, shortened: a real ZooKeeper server, three nodes in child JVMs, the
 * primary killed, a failover, every acknowledged message found on the new primary.
 */
class ClusterCommandTest {
    @TempDir
    Path dir;

    @AfterEach
    void forgetTheDirectory() {
        System.clearProperty(BenchmarkDirectory.BASE_PROPERTY);
    }

    @Test
    void shouldFailOverAfterTheKillOfThePrimaryAndFindEveryAcknowledgedMessageOnTheNewOne() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = ClusterCommand.run(new String[]{"--session-timeout", "1500", "--messages", "200", "--dir",
            dir.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        final String report = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, report);
        assertTrue(report.contains("kill -9 of "), report);
        assertTrue(report.matches("(?s).*came [\\d,]+ ms after the kill: the failover time.*"), report);
        assertTrue(report.contains("with the same bytes: true (0 lost)"), report);
    }

    @Test
    void shouldRefuseAnUnknownOptionAndASessionTimeoutZooKeeperCannotKeep() {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8);
        final PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(2, ClusterCommand.run(new String[]{"--kills", "3"}, out, errors));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown option '--kills' for cluster"));
        assertEquals(2, ClusterCommand.run(new String[]{"--session-timeout", "50"}, out, errors));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--session-timeout=50 must be at least 100"));
    }
}
