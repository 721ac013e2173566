package dev.spool.benchmarks.latency;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyTablesTest {
    private static final double NAN = Double.NaN;

    @Test
    void shouldPickTheTableRowsOutOfWhatJlbhComputedAndLeaveTheRestEmpty() {
        // 50,000 messages a run: JLBH computes 50, 90, 99, 99.7 and the worst, not 99.9 (needs 100,000)
        final double[] fractions = net.openhft.chronicle.core.util.Histogram.percentilesFor(50_000);
        assertEquals(5, fractions.length);
        final double[] rows = VariantResult.rows(fractions, new double[]{100, 200, 300, 400, 900});
        assertEquals(List.of(100.0, 200.0, 300.0, 400.0, NAN, NAN, NAN, 900.0),
                Arrays.stream(rows).boxed().toList());
        final double[] million = net.openhft.chronicle.core.util.Histogram.percentilesFor(1_000_000);
        final double[] all = VariantResult.rows(million, new double[million.length]);
        assertFalse(Arrays.stream(all).anyMatch(Double::isNaN), "every row from 1,000,000 messages a run");
    }

    @Test
    void shouldPrintTheSummaryWithDashesForMissingPercentilesAndMarkRunsThatMissedTheRate() {
        final VariantResult result = result("spool", 100_000, new double[]{100_000, 93_000, 99_000},
                row(370, 420, 2_430, 7_020, NAN, NAN, NAN, 1_839_620),
                row(370, 420, 2_540, 7_730, NAN, NAN, NAN, 2_561_020),
                row(380, 430, 2_460, 4_660, NAN, NAN, NAN, 2_565_120));
        final String table = LatencyTables.summary(result);
        final List<String> lines = table.lines().toList();
        assertTrue(lines.get(0).startsWith("-------------------------------- SUMMARY (spool: end to end, microseconds)"));
        assertEquals("Percentile         run1        run2!         run3  % Variation", lines.get(1));
        assertEquals("50:                0.37         0.37         0.38         1.77", lines.get(2));
        assertEquals("99.9:                 -            -            -            -", lines.get(6));
        assertEquals("worst:          1839.62      2561.02      2565.12         0.11", lines.get(9));
        assertTrue(table.contains("WARNING: run2! sent 93,000 msg/s, 7.0% below the 100,000 msg/s asked for"), table);
        // 999,999 intervals at 93,000 msg/s instead of 100,000: 10.753 s instead of 10 s
        assertTrue(table.contains("Sent: 100,000 / 93,000 / 99,000 msg/s; the send schedule slipped 0.0 / 753 / 101 ms a run"),
                table);
    }

    @Test
    void shouldCountMessagesNotBatchesInABatchVariantsSentLineAndSlip() {
        // 50,000 batches of 20 a run, one sample each; the rates are of messages
        final VariantResult result = new VariantResult("spool-replicated-b20", "test", 100_000, 50_000, 500, 20,
                new double[][]{row(370, 420, 2_430, 7_020, NAN, NAN, NAN, 9_000)}, new double[]{93_000},
                new Histogram(3), "main", "JLBH");
        assertEquals(1_000_000, result.messagesPerRun());
        final String table = LatencyTables.summary(result);
        // 999,980 messages after the first batch at 93,000 msg/s instead of 100,000: 753 ms later
        assertTrue(table.contains("Sent: 93,000 msg/s (1,000,000 messages a run in batches of 20, one sample a batch);"
                + " the send schedule slipped 753 ms a run"), table);
        assertTrue(table.contains("(a sample per batch of 20)"), table);
        assertTrue(table.contains("WARNING: run1! sent 93,000 msg/s, 7.0% below the 100,000 msg/s asked for"), table);
    }

    @Test
    void shouldKeepTheBatchSizeInTheResultFile(@TempDir final Path directory) {
        final Path file = directory.resolve("result.properties");
        new VariantResult("spool-publish-b5", "test", 100_000, 20_000, 200, 5,
                new double[][]{row(1, 2, 3, 4, NAN, NAN, NAN, 9)}, new double[]{99_000}, new Histogram(3), "main",
                "JLBH").write(file);
        final VariantResult read = VariantResult.read(file);
        assertEquals(5, read.messagesPerSend());
        assertEquals(20_000, read.iterations());
        assertEquals(100_000, read.messagesPerRun());
    }

    @Test
    void shouldComputeJlbhsVariationLeavingOutTheFirstRunOfThreeOrMore() {
        assertEquals(100 * (4.0 - 2.0) / (4.0 + 2.0 / 2), LatencyTables.variation(new double[]{100, 2, 4}), 1e-9);
        assertEquals(100 * (100.0 - 2.0) / (100.0 + 2.0 / 2), LatencyTables.variation(new double[]{100, 2}), 1e-9);
        assertTrue(Double.isNaN(LatencyTables.variation(new double[]{1, NAN, 3})), "one run left with a value");
    }

    @Test
    void shouldDivideMediansOverRunsForEveryPairWithTheFloor() {
        final VariantResult floor = result("floor", 1_000, new double[]{1_000, 1_000, 1_000},
                row(100, 100, 100, 100, 100, NAN, NAN, 100), row(200, 200, 200, 200, 200, NAN, NAN, 200),
                row(900, 900, 900, 900, 900, NAN, NAN, 900));
        final VariantResult spool = result("spool", 1_000, new double[]{1_000, 1_000, 1_000},
                row(400, 400, 400, 400, 400, NAN, NAN, 400), row(400, 400, 400, 400, 400, NAN, NAN, 400),
                row(400, 400, 400, 400, 400, NAN, NAN, 400));
        final VariantResult chronicle = result("chronicle", 1_000, new double[]{1_000, 1_000, 1_000},
                row(800, 800, 800, 800, 800, NAN, NAN, 800), row(800, 800, 800, 800, 800, NAN, NAN, 800),
                row(800, 800, 800, 800, 800, NAN, NAN, 800));
        assertEquals(0.2, floor.medianMicros(0), 1e-9, "median of 0.1, 0.2, 0.9");
        final List<String> lines = LatencyTables.ratios(List.of(floor, spool, chronicle)).lines().toList();
        assertEquals("Percentile      spool/floor  chronicle/floor  spool/chronicle", lines.get(1));
        assertEquals("50:                    2.00             4.00             0.50", lines.get(2));
        assertEquals("99.97:                    -                -                -", lines.get(7));
        assertEquals("", LatencyTables.ratios(List.of(chronicle)), "nothing to divide");
    }

    @Test
    void shouldCompareEachSyncPolicyWithChroniclesAndContentSyncWithASyncPerMessage() {
        final List<VariantResult> results = new java.util.ArrayList<>();
        for (final String variant : List.of("floor", "sync-every", "sync-content", "chronicle-sync-every",
                "chronicle-sync-content")) {
            results.add(result(variant, 1_000, new double[]{1_000}, row(100, 100, 100, 100, 100, NAN, NAN, 100)));
        }
        final String header = LatencyTables.ratios(results).lines().toList().get(1);
        assertEquals(List.of("Percentile", "sync-every/floor", "sync-content/floor", "chronicle-sync-every/floor",
                        "chronicle-sync-content/floor", "sync-every/chronicle-sync-every",
                        "sync-content/chronicle-sync-content", "sync-content/sync-every"),
                List.of(header.trim().split(" +")));
    }

    @Test
    void shouldCarryAResultFromTheWorkerToTheLauncherUnchanged(@TempDir final Path directory) {
        final VariantResult result = result("chronicle", 250_000, new double[]{249_999.5, 180_000},
                row(380, 430, 2_460, 4_660, 12_160, NAN, NAN, 2_581_500), row(1, 2, 3, 4, 5, 6, 7, 8));
        result.histogram().recordValue(1_234);
        final Path file = directory.resolve("result.properties");
        result.write(file);
        final VariantResult read = VariantResult.read(file);
        assertEquals(LatencyTables.summary(result), LatencyTables.summary(read));
        assertEquals(1, read.histogram().getTotalCount());
        assertEquals(result.histogram().getMaxValue(), read.histogram().getMaxValue());
        assertEquals("main, jlbh-reader", read.threads());
        assertEquals("JLBH said\nthis", read.jlbhLog());
        assertFalse(read.rateHeld(1));
    }

    @Test
    void shouldLabelThePlotsAxisInPercentiles() {
        assertEquals("0", LatencyPlot.percentileLabel(0));
        assertEquals("90", LatencyPlot.percentileLabel(1));
        assertEquals("99", LatencyPlot.percentileLabel(2));
        assertEquals("99.99", LatencyPlot.percentileLabel(4));
        assertEquals("99.7", LatencyPlot.percentileLabel(2.5));
    }

    private static double[] row(final double... values) {
        return values;
    }

    private static VariantResult result(final String variant, final int rate, final double[] rates,
                                        final double[]... runs) {
        return new VariantResult(variant, "test", rate, 1_000_000, 1_000, 1, runs, rates, new Histogram(3),
                "main, jlbh-reader", "JLBH said\nthis");
    }
}
