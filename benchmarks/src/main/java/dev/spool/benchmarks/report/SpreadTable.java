package dev.spool.benchmarks.report;

import dev.spool.benchmarks.report.JlbhTable.Variant;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The spread of a JLBH experiment over several invocations of one command: each invocation is a new launch of the
 * worker JVMs, whose p50 lands near one of two values from one launch to the next, so one invocation can be lucky.
 * Per variant, the minimum, median and maximum over the invocations of each invocation's median (over its runs) at
 * p50, p99 and p99.99; and its ratios to the floor and to Chronicle Queue taken within each invocation, shown as
 * their median and range. A p50 ratio pairs two p50s of the same mode only: a pair across the modes measures the
 * launch, not the queue.
 */
final class SpreadTable {
    /** The SUMMARY rows shown: p50, p99 and p99.99, indices into {@link JlbhTable#SHOWN}. */
    private static final int[] ROWS = {0, 2, 4};
    private static final String[] HEADINGS = {"p50", "p99", "p99.99"};
    /** Two p50s further apart than this factor, with none between, are two modes. */
    private static final double MODE_GAP = 1.8;

    private SpreadTable() {
    }

    /**
     * @param files the result files' names, one per invocation, for the caption and errors.
     * @param lines each file's lines, in the same order.
     * @return the markdown of the table and its caption.
     */
    static String render(final List<String> files, final List<List<String>> lines) {
        if (files.size() < 2) {
            throw new IllegalArgumentException("a spread needs two invocations or more, not " + files);
        }
        final List<Map<String, Variant>> invocations = new ArrayList<>();
        final Map<String, Boolean> names = new LinkedHashMap<>();
        for (int i = 0; i < files.size(); i++) {
            final Map<String, Variant> byName = new LinkedHashMap<>();
            for (final Variant variant : JlbhTable.parse(files.get(i), lines.get(i))) {
                byName.put(variant.name(), variant);
                names.put(variant.name(), Boolean.TRUE);
            }
            invocations.add(byName);
        }
        final double modeSplit = modeSplit(invocations);
        final StringBuilder md = new StringBuilder();
        md.append(caption(files, lines, modeSplit)).append("\n\n");
        md.append("| variant | held the rate | p50 | p99 | p99.99 | / floor p50 (same mode) · p99 | / chronicle p50 (same mode) · p99 |\n");
        md.append("|---|---|---|---|---|---|---|\n");
        for (final String name : names.keySet()) {
            md.append("| ").append(name).append(" | ").append(held(name, invocations)).append(" |");
            for (final int row : ROWS) {
                md.append(' ').append(spread(name, row, invocations)).append(" |");
            }
            md.append(' ').append(ratios(name, invocations, modeSplit, true)).append(" |");
            md.append(' ').append(ratios(name, invocations, modeSplit, false)).append(" |\n");
        }
        return md.toString();
    }

    private static String caption(final List<String> files, final List<List<String>> lines, final double modeSplit) {
        final Set<String> commands = new LinkedHashSet<>();
        for (final List<String> file : lines) {
            final String command = ResultHeader.parse(file).command();
            commands.add(command == null ? "(not recorded)" : command);
        }
        final StringBuilder caption = new StringBuilder("Spread over ").append(files.size()).append(" invocations")
                .append(commands.size() == 1 ? " of one command" : " of " + commands.size() + " commands")
                .append(", each a new launch of the worker JVMs: ");
        for (int i = 0; i < files.size(); i++) {
            caption.append(i == 0 ? "" : ", ").append('`').append(files.get(i)).append('`');
        }
        caption.append("; ");
        for (final String command : commands) {
            caption.append('`').append(command).append("`; ");
        }
        caption.append(ResultHeader.parse(lines.get(0)).machine()).append(". Each cell is min · median · max, in µs, of the"
                + " invocations' medians over their runs; a ratio is taken within each invocation and shown as its"
                + " median (min to max).");
        if (Double.isNaN(modeSplit)) {
            caption.append(" The p50s fell in one mode.");
        } else {
            caption.append(String.format(Locale.ROOT, " The p50s fell in two modes, below and above %.2f µs; a p50"
                    + " ratio pairs p50s of one mode only, and says how many invocations had such a pair.", modeSplit));
        }
        return caption.toString();
    }

    /** @return in how many invocations every run of the variant held the rate, "k of n". */
    private static String held(final String name, final List<Map<String, Variant>> invocations) {
        int held = 0;
        int ran = 0;
        for (final Map<String, Variant> invocation : invocations) {
            final Variant variant = invocation.get(name);
            if (variant != null) {
                ran++;
                held += variant.allHeld() ? 1 : 0;
            }
        }
        return held + " of " + ran;
    }

    private static String spread(final String name, final int row, final List<Map<String, Variant>> invocations) {
        final double[] medians = invocations.stream().map(invocation -> invocation.get(name))
                .filter(variant -> variant != null).mapToDouble(variant -> variant.median(row))
                .filter(value -> !Double.isNaN(value)).sorted().toArray();
        if (medians.length == 0) {
            return "-";
        }
        return Numbers.measure(medians[0]) + " · " + Numbers.measure(median(medians)) + " · "
                + Numbers.measure(medians[medians.length - 1]);
    }

    /** @return the p50 and p99 ratios to the floor (or to Chronicle) of the same invocation, "" for the peer itself. */
    private static String ratios(final String name, final List<Map<String, Variant>> invocations,
                                 final double modeSplit, final boolean toFloor) {
        final List<Double> p50 = new ArrayList<>();
        final List<Double> p99 = new ArrayList<>();
        int paired = 0;
        for (final Map<String, Variant> invocation : invocations) {
            final Variant variant = invocation.get(name);
            if (variant == null) {
                continue;
            }
            final List<Variant> all = List.copyOf(invocation.values());
            final Variant peer = toFloor ? JlbhTable.floor(all) : JlbhTable.chroniclePeer(variant, all);
            if (peer == null || peer == variant) {
                continue;
            }
            paired++;
            final double mine = variant.median(ROWS[0]);
            final double theirs = peer.median(ROWS[0]);
            if (Double.isNaN(modeSplit) || (mine < modeSplit) == (theirs < modeSplit)) {
                p50.add(mine / theirs);
            }
            p99.add(variant.median(ROWS[1]) / peer.median(ROWS[1]));
        }
        if (paired == 0) {
            return "";
        }
        return range(p50) + " in " + p50.size() + " of " + paired + " · " + range(p99);
    }

    private static String range(final List<Double> ratios) {
        final double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).filter(r -> !Double.isNaN(r))
                .sorted().toArray();
        if (sorted.length == 0) {
            return "-";
        }
        return Numbers.ratio(median(sorted)) + " (" + Numbers.ratio(sorted[0]) + " to "
                + Numbers.ratio(sorted[sorted.length - 1]) + ")";
    }

    /**
     * @return the p50 between two modes (the geometric mean across the widest gap between neighbouring p50s of every
     * variant and invocation, when that gap exceeds {@link #MODE_GAP}), or NaN if the p50s form one mode.
     */
    static double modeSplit(final List<Map<String, Variant>> invocations) {
        final double[] p50s = invocations.stream().flatMap(invocation -> invocation.values().stream())
                .mapToDouble(variant -> variant.median(ROWS[0])).filter(value -> !Double.isNaN(value) && value > 0)
                .sorted().toArray();
        double widest = MODE_GAP;
        double split = Double.NaN;
        for (int i = 1; i < p50s.length; i++) {
            final double gap = p50s[i] / p50s[i - 1];
            if (gap > widest) {
                widest = gap;
                split = Math.sqrt(p50s[i] * p50s[i - 1]);
            }
        }
        return split;
    }

    private static double median(final double[] sorted) {
        final int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
