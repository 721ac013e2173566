package dev.spool.benchmarks.cluster;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code failover} command's refusals, before it starts anything; the machinery it runs is the {@code cluster}
 * command's, which ClusterCommandTest runs end to end.
 */
class FailoverCommandTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8);
    private final PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    @Test
    void shouldRefuseAnUnknownOptionAMissingValueAndNoKills() {
        assertEquals(2, FailoverCommand.run(new String[]{"--rate", "5"}, new String[0], out, errors));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown option '--rate' for failover"));
        assertEquals(2, FailoverCommand.run(new String[]{"--kills"}, new String[0], out, errors));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--kills needs a value"));
        assertEquals(2, FailoverCommand.run(new String[]{"--kills", "0"}, new String[0], out, errors));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--kills=0 and --latency-messages=10000 must be at"
                + " least 1"));
    }
}
