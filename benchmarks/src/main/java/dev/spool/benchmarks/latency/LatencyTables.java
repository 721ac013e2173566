package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.support.VariantNames;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The text tables of a JLBH experiment: the article's SUMMARY table per variant (percentiles down, runs across,
 * microseconds) and the ratios between variants per percentile.
 */
public final class LatencyTables {
    /**
     * Chronicle's variant of the same scenario as Spool's variant {@code X} is named {@code chronicle-X}; a Spool
     * variant without one is divided by plain {@link VariantNames#CHRONICLE}.
     */
    static final String CHRONICLE_PREFIX = VariantNames.CHRONICLE + "-";
    /**
     * Pairs of variants whose ratio is a claim to check: E3's, that syncing when the content asks for it (ten times a
     * second) brings the tail to a tenth or less of syncing every message; and what an ack quorum of two
     * replicas (either, both) costs over one replica's ack, and over the raw TCP round trip with the threaded
     * source's hand-offs (the plain round trip is the floor every variant is divided by already).
     */
    private static final List<String[]> CLAIMS = List.of(new String[]{"sync-content", "sync-every"},
            new String[]{"e3-acked-any-of-2", "e3-acked"}, new String[]{"e3-acked-2-of-2", "e3-acked"},
            new String[]{"e3-acked-any-of-2", "floor-tcp-threaded"}, new String[]{"e3-acked-2-of-2", "floor-tcp-threaded"});
    private static final int WIDTH = 100;
    private static final String NL = System.lineSeparator();

    private LatencyTables() {
    }

    /**
     * @param result one variant's runs.
     * @return its SUMMARY table; a run that did not hold the rate is marked {@code !} and explained below.
     */
    static String summary(final VariantResult result) {
        final StringBuilder table = new StringBuilder();
        table.append(rule("-------------------------------- SUMMARY (" + result.variant()
                + ": end to end, microseconds) ")).append(NL);
        table.append("Percentile");
        for (int run = 0; run < result.runs(); run++) {
            table.append(String.format(Locale.ROOT, "%13s", "run" + (run + 1) + (result.rateHeld(run) ? "" : "!")));
        }
        table.append("  % Variation").append(NL);
        for (int row = 0; row < VariantResult.PERCENTILES.length; row++) {
            table.append(String.format(Locale.ROOT, "%-10s", VariantResult.LABELS.get(row) + ":"));
            final double[] values = new double[result.runs()];
            for (int run = 0; run < result.runs(); run++) {
                values[run] = result.latencyMicros(run, row);
                table.append(cell(values[run]));
            }
            table.append(cell(variation(values))).append(NL);
        }
        table.append(rule("----")).append(NL);
        table.append("\"-\": JLBH gives 99.7 from 10,000 samples a run, 99.9 from 100,000, 99.97 from 300,000, 99.99 from"
                + " 1,000,000" + (result.messagesPerSend() == 1 ? " (a sample per message)."
                : " (a sample per batch of " + result.messagesPerSend() + ").")).append(NL);
        table.append("% Variation: JLBH's, 100 (max - min) / (max + min / 2), over runs 2..n (over all runs if fewer than 3).")
                .append(NL);
        table.append(sendRates(result));
        for (int run = 0; run < result.runs(); run++) {
            if (!result.rateHeld(run)) {
                table.append(String.format(Locale.ROOT, "WARNING: run%d! sent %s msg/s, %.1f%% below the %s msg/s "
                                + "asked for: the sender did not hold the rate; its latencies flatter.%n",
                        run + 1, VariantResult.formatRate(result.achievedRate(run)),
                        100 * (1 - result.achievedRate(run) / result.rate()), VariantResult.formatRate(result.rate())));
            }
        }
        return table.toString();
    }

    /**
     * JLBH takes the end of its busy-wait before a send as the send's start time and the base of the next one, so
     * a sender descheduled while it waits moves the schedule on instead of making the following messages late:
     * the stall is missing from the latencies and shows only as time the run lost. This line shows that time.
     *
     * @param result one variant's runs.
     * @return the rate each run sent at, and how far its schedule slipped behind the one asked for.
     */
    static String sendRates(final VariantResult result) {
        final List<String> rates = new ArrayList<>();
        final List<String> slips = new ArrayList<>();
        for (int run = 0; run < result.runs(); run++) {
            final double achieved = result.achievedRate(run);
            rates.add(VariantResult.formatRate(achieved));
            // the schedule spans the run's sends but its last: messages - messagesPerSend at the message rate
            final double slipMillis = 1e3 * (result.messagesPerRun() - result.messagesPerSend())
                    * (1 / achieved - 1.0 / result.rate());
            slips.add(String.format(Locale.ROOT, slipMillis < 10 ? "%.1f" : "%.0f", slipMillis));
        }
        final String batches = result.messagesPerSend() == 1 ? ""
                : String.format(Locale.ROOT, " (%,d messages a run in batches of %d, one sample a batch)",
                result.messagesPerRun(), result.messagesPerSend());
        return "Sent: " + String.join(" / ", rates) + " msg/s" + batches + "; the send schedule slipped "
                + String.join(" / ", slips) + " ms a run" + NL + "(JLBH restarts its schedule when its sender wakes late from the wait before a"
                + " send: a stall there is not in the latencies)." + NL;
    }

    /**
     * @param results the variants of one experiment.
     * @return per percentile, every other variant over the floor, then every Spool variant over its Chronicle peer
     * ({@link #CHRONICLE_PREFIX}), then the {@link #CLAIMS}, each the ratio of the two variants' medians over their
     * runs; empty if no pair ran.
     */
    static String ratios(final List<VariantResult> results) {
        final List<VariantResult[]> pairs = new ArrayList<>();
        final VariantResult floor = findFloor(results);
        for (final VariantResult result : results) {
            if (floor != null && result != floor) {
                pairs.add(new VariantResult[]{result, floor});
            }
        }
        for (final VariantResult result : results) {
            if (result == floor || result.variant().startsWith(VariantNames.CHRONICLE)) {
                continue;
            }
            final VariantResult peer = find(results, CHRONICLE_PREFIX + result.variant());
            final VariantResult chronicle = peer != null ? peer : find(results, VariantNames.CHRONICLE);
            if (chronicle != null) {
                pairs.add(new VariantResult[]{result, chronicle});
            }
        }
        for (final String[] claim : CLAIMS) {
            final VariantResult first = find(results, claim[0]);
            final VariantResult second = find(results, claim[1]);
            if (first != null && second != null) {
                pairs.add(new VariantResult[]{first, second});
            }
        }
        if (pairs.isEmpty()) {
            return "";
        }
        final List<String> headers = new ArrayList<>();
        int width = 13;
        for (final VariantResult[] pair : pairs) {
            final String header = pair[0].variant() + "/" + pair[1].variant();
            headers.add(header);
            width = Math.max(width, header.length() + 2);
        }
        final String column = "%" + width + "s";
        final StringBuilder table = new StringBuilder();
        table.append(rule("-------------------------------- RATIOS (median over runs 1..n of each variant) ")).append(NL);
        table.append("Percentile");
        for (final String header : headers) {
            table.append(String.format(Locale.ROOT, column, header));
        }
        table.append(NL);
        for (int row = 0; row < VariantResult.PERCENTILES.length; row++) {
            table.append(String.format(Locale.ROOT, "%-10s", VariantResult.LABELS.get(row) + ":"));
            for (final VariantResult[] pair : pairs) {
                final double ratio = pair[0].medianMicros(row) / pair[1].medianMicros(row);
                table.append(String.format(Locale.ROOT, column, Double.isNaN(ratio) ? "-"
                        : String.format(Locale.ROOT, "%.2f", ratio)));
            }
            table.append(NL);
        }
        table.append(rule("----")).append(NL);
        table.append("Each cell: the first variant's median latency at that percentile divided by the second's;"
                + " 1.00 = the same.").append(NL);
        return table.toString();
    }

    /**
     * JLBH's variation of a percentile between runs, for tables that compare with the article's.
     *
     * @param values the percentile's value in each run, NaN where there is none.
     * @return 100 (max - min) / (max + min / 2) over runs 2..n, or over all if there are fewer than 3; NaN
     * if fewer than two runs have a value.
     */
    static double variation(final double[] values) {
        final int first = values.length >= 3 ? 1 : 0;
        double max = Double.NEGATIVE_INFINITY;
        double min = Double.POSITIVE_INFINITY;
        int count = 0;
        for (int run = first; run < values.length; run++) {
            if (!Double.isNaN(values[run])) {
                max = Math.max(max, values[run]);
                min = Math.min(min, values[run]);
                count++;
            }
        }
        return count < 2 ? Double.NaN : 100 * (max - min) / (max + min / 2);
    }

    /** @return the E0 floor, or the floor of another kind an experiment runs instead (named {@code floor-...}). */
    private static VariantResult findFloor(final List<VariantResult> results) {
        for (final VariantResult result : results) {
            if (result.variant().equals(VariantNames.FLOOR) || result.variant().startsWith(VariantNames.FLOOR + "-")) {
                return result;
            }
        }
        return null;
    }

    private static VariantResult find(final List<VariantResult> results, final String name) {
        for (final VariantResult result : results) {
            if (result.variant().equals(name)) {
                return result;
            }
        }
        return null;
    }

    private static String cell(final double value) {
        return Double.isNaN(value) ? String.format(Locale.ROOT, "%13s", "-")
                : String.format(Locale.ROOT, "%13.2f", value);
    }

    /** @return {@code start} padded with dashes to the table width, as JLBH draws its rules. */
    static String rule(final String start) {
        final StringBuilder rule = new StringBuilder(start);
        while (rule.length() < WIDTH) {
            rule.append('-');
        }
        return rule.toString();
    }
}
