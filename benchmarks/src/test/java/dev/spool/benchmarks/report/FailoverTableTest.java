package dev.spool.benchmarks.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table of a {@code failover} result file, from the lines the command writes. */
class FailoverTableTest {
    private static final List<String> RUN = List.of(
            "# command: /usr/bin/java -jar benchmarks/target/benchmarks.jar failover --results /tmp/r",
            "# cpus: 2",
            "",
            "publish to a commit at ACKED_BY_QUORUM, one message at a time at 1,000 msg/s, 10,000 timed after 2,000 of"
                    + " warm-up, in 10 alternate blocks, us:",
            "  plain    p50 120.5  p90 150.2  p99 300.1  p99.9 900.0  worst 2000.0  (10000 messages)",
            "  cluster  p50 125.0  p90 155.0  p99 310.0  p99.9 950.0  worst 2100.0  (10000 messages)",
            "  cluster / plain: p50 1.04  p90 1.03  p99 1.03",
            "kill  1: a (primary of term 1) killed; b primary of term 2 after 4,094 ms; failover 4,466 ms",
            "failover time, kill -9 of the primary to the first commit acknowledged at ACKED_BY_QUORUM by the new one,"
                    + " over 20 kills:",
            "  p50 4466 ms, max 4783 ms; / session timeout of 4000 ms: p50 1.12, max 1.20; ZooKeeper tick 200 ms",
            "  of which the kill to the new primary's report of its promotion: p50 4094 ms, max 4494 ms",
            "acknowledged messages: 23,456, lost: 0; given up on by the client, never acknowledged: 20");

    @Test
    void shouldShowTheFailoverTimesTheLossesAndBothLatenciesWithTheirRatio() {
        final String table = FailoverTable.render("20261126T000000Z-failover.txt", RUN);
        assertTrue(table.startsWith("From `20261126T000000Z-failover.txt`: `java -jar benchmarks/target/benchmarks.jar"
                + " failover`; 2 CPUs"), table);
        assertTrue(table.contains("| failover time over 20 kills of the primary, p50 / max | 4466 / 4783 ms |"), table);
        assertTrue(table.contains("| the same / the session timeout of 4000 ms | 1.12 / 1.20 |"), table);
        assertTrue(table.contains("| of which the kill to the promotion, p50 / max | 4094 / 4494 ms |"), table);
        assertTrue(table.contains("| messages acknowledged at ACKED_BY_QUORUM / lost | 23,456 / 0 |"), table);
        assertTrue(table.contains("| publish latency, plain | 120.5 / 150.2 / 300.1 / 2000.0 µs (10000 messages) |"),
                table);
        assertTrue(table.contains("| publish latency, cluster / plain, p50 / p90 / p99 | 1.04 / 1.03 / 1.03 |"), table);
    }

    @Test
    void shouldRefuseARunThatDidNotFinishNamingTheFile() {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> FailoverTable.render("20261126T000000Z-failover.txt", RUN.subList(0, 8)));
        assertTrue(refused.getMessage().startsWith("20261126T000000Z-failover.txt has no summary"),
                refused.getMessage());
    }
}
