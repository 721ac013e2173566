package dev.spool.benchmarks.report;

import dev.spool.benchmarks.support.VariantNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The latency table of a {@code jlbh} result file: per variant the median over its runs at p50 to p99.99 and the
 * worst, in microseconds, then its ratios to the floor and to Chronicle Queue at p50, p99 and p99.99. The
 * medians come from the file's SUMMARY tables (two decimals), and the ratios are of the medians shown, so a reader
 * can check each cell.
 */
final class JlbhTable {
    private static final Pattern SUMMARY = Pattern.compile("^-+ SUMMARY \\((.+?): end to end, microseconds\\) -*$");
    private static final Pattern MESSAGES = Pattern.compile("(\\d+)-byte messages at ([\\d,]+) msg/s");
    private static final Pattern RUNS = Pattern.compile("^(\\d+) runs of ([\\d.]+) s \\(([\\d,]+) messages each\\)");
    /** The rows of the file's SUMMARY tables that the table shows. */
    static final List<String> SHOWN = List.of("50", "90", "99", "99.9", "99.99", "worst");
    private static final List<String> HEADINGS = List.of("p50", "p90", "p99", "p99.9", "p99.99", "worst");
    /** The percentiles of the ratio columns, indices into {@link #SHOWN}. */
    private static final int[] RATIO_ROWS = {0, 2, 4};

    private JlbhTable() {
    }

    /** One variant's runs: its name, whether each run held the rate, and its SUMMARY rows. */
    record Variant(String name, boolean[] rateHeld, List<double[]> rows) {
        boolean allHeld() {
            for (final boolean held : rateHeld) {
                if (!held) {
                    return false;
                }
            }
            return true;
        }

        double median(final int row) {
            final double[] values = Arrays.stream(rows.get(row)).filter(value -> !Double.isNaN(value)).sorted()
                    .toArray();
            if (values.length == 0) {
                return Double.NaN;
            }
            final int middle = values.length / 2;
            return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
        }
    }

    /**
     * @param file   the result file's name, for the caption and errors.
     * @param lines  its lines.
     * @param ratios further pairs of variants ({@code a/b}) whose ratios get a table of their own.
     * @return the markdown of the table and its caption, without the plot.
     */
    static String render(final String file, final List<String> lines, final List<String> ratios) {
        final List<Variant> variants = parse(file, lines);
        final ResultHeader header = ResultHeader.parse(lines);
        final StringBuilder md = new StringBuilder();
        md.append(caption(file, lines, header, variants)).append("\n\n");
        final Variant floor = floor(variants);
        final boolean anyChronicle = variants.stream().anyMatch(variant -> isChronicle(variant.name()));
        md.append("| variant |");
        HEADINGS.forEach(heading -> md.append(' ').append(heading).append(" |"));
        if (floor != null) {
            md.append(" / ").append(floor.name()).append(" p50 · p99 · p99.99 |");
        }
        if (anyChronicle) {
            md.append(" / chronicle p50 · p99 · p99.99 |");
        }
        md.append("\n|---|");
        md.append("---|".repeat(HEADINGS.size() + (floor != null ? 1 : 0) + (anyChronicle ? 1 : 0)));
        md.append('\n');
        for (final Variant variant : variants) {
            md.append("| ").append(variant.name()).append(variant.allHeld() ? "" : " !").append(" |");
            for (int row = 0; row < SHOWN.size(); row++) {
                md.append(' ').append(Numbers.measure(variant.median(row))).append(" |");
            }
            if (floor != null) {
                md.append(' ').append(variant == floor ? "" : ratios(variant, floor)).append(" |");
            }
            if (anyChronicle) {
                final Variant chronicle = chroniclePeer(variant, variants);
                md.append(' ').append(chronicle == null ? "" : ratios(variant, chronicle)).append(" |");
            }
            md.append('\n');
        }
        if (!ratios.isEmpty()) {
            md.append("\n| ratio of medians |");
            HEADINGS.subList(0, HEADINGS.size() - 1).forEach(heading -> md.append(' ').append(heading).append(" |"));
            md.append("\n|---|").append("---|".repeat(HEADINGS.size() - 1)).append('\n');
            for (final String pair : ratios) {
                final String[] names = pair.split("/");
                if (names.length != 2) {
                    throw new IllegalArgumentException("ratio '" + pair + "' for " + file + " is not variant/variant");
                }
                final Variant first = find(file, variants, names[0]);
                final Variant second = find(file, variants, names[1]);
                md.append("| ").append(first.name()).append(" / ").append(second.name()).append(" |");
                for (int row = 0; row < SHOWN.size() - 1; row++) {
                    md.append(' ').append(Numbers.ratio(first.median(row) / second.median(row))).append(" |");
                }
                md.append('\n');
            }
        }
        return md.toString();
    }

    private static String caption(final String file, final List<String> lines, final ResultHeader header,
                                  final List<Variant> variants) {
        String messages = "";
        String runs = "";
        for (final String line : lines) {
            final Matcher message = MESSAGES.matcher(line);
            if (messages.isEmpty() && line.startsWith("JLBH experiment ") && message.find()) {
                messages = message.group(1) + "-byte messages at " + message.group(2) + " msg/s";
            }
            final Matcher run = RUNS.matcher(line);
            if (runs.isEmpty() && run.find()) {
                runs = run.group(1) + " runs of " + run.group(2) + " s (" + run.group(3) + " messages each)";
            }
        }
        final StringBuilder caption = new StringBuilder("From `").append(file).append("`: ").append(messages)
                .append(", ").append(runs).append("; ");
        final String command = header.command();
        if (command != null) {
            caption.append('`').append(command).append("`; ");
        }
        caption.append(header.machine()).append(". Medians over the runs in µs; the ratios are of those medians.");
        if (variants.stream().anyMatch(variant -> !variant.allHeld())) {
            caption.append(" `!`: a run of that variant sent more than 5 % below the rate asked for, and its latencies"
                    + " flatter it.");
        }
        return caption.toString();
    }

    /** @return the ratios of the first variant's medians to the second's at p50, p99 and p99.99. */
    private static String ratios(final Variant variant, final Variant over) {
        final List<String> cells = new ArrayList<>();
        for (final int row : RATIO_ROWS) {
            cells.add(Numbers.ratio(variant.median(row) / over.median(row)));
        }
        return String.join(" · ", cells);
    }

    /**
     * @param file  the result file's name, for errors.
     * @param lines its lines.
     * @return its variants, in file order, each with the {@link #SHOWN} rows of its SUMMARY table.
     */
    static List<Variant> parse(final String file, final List<String> lines) {
        final List<Variant> variants = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            final Matcher summary = SUMMARY.matcher(lines.get(i));
            if (!summary.matches()) {
                continue;
            }
            final String[] columns = lines.get(i + 1).trim().split("\\s+");
            if (!columns[0].equals("Percentile")) {
                throw new IllegalArgumentException(file + " line " + (i + 2)
                        + ": expected the SUMMARY's Percentile line");
            }
            final List<Boolean> held = new ArrayList<>();
            for (int column = 1; column < columns.length && columns[column].startsWith("run"); column++) {
                held.add(!columns[column].endsWith("!"));
            }
            final boolean[] rateHeld = new boolean[held.size()];
            for (int run = 0; run < rateHeld.length; run++) {
                rateHeld[run] = held.get(run);
            }
            final List<double[]> rows = new ArrayList<>();
            for (final String label : SHOWN) {
                rows.add(row(file, lines, i + 2, label, rateHeld.length));
            }
            variants.add(new Variant(summary.group(1), rateHeld, rows));
        }
        if (variants.isEmpty()) {
            throw new IllegalArgumentException(file + " has no SUMMARY table of a variant: not a jlbh result file");
        }
        return variants;
    }

    /** @return the values of each run in the SUMMARY row of that label, which starts at line {@code from}. */
    private static double[] row(final String file, final List<String> lines, final int from, final String label,
                                final int runs) {
        for (int i = from; i < lines.size() && !lines.get(i).startsWith("----"); i++) {
            final String[] cells = lines.get(i).trim().split("\\s+");
            if (cells[0].equals(label + ":")) {
                final double[] values = new double[runs];
                for (int run = 0; run < runs; run++) {
                    values[run] = cells[run + 1].equals("-") ? Double.NaN : Double.parseDouble(cells[run + 1]);
                }
                return values;
            }
        }
        throw new IllegalArgumentException(file + ": the SUMMARY table at line " + (from - 1) + " has no row " + label);
    }

    /** @return the E0 floor, or the floor of another kind the experiment runs instead ({@code floor-...}). */
    static Variant floor(final List<Variant> variants) {
        for (final Variant variant : variants) {
            if (variant.name().equals(VariantNames.FLOOR) || variant.name().startsWith(VariantNames.FLOOR + "-")) {
                return variant;
            }
        }
        return null;
    }

    private static boolean isChronicle(final String name) {
        return name.equals(VariantNames.CHRONICLE) || name.startsWith(VariantNames.CHRONICLE + "-");
    }

    /** @return Chronicle's variant of the same scenario, else plain Chronicle; none for a floor or Chronicle itself. */
    static Variant chroniclePeer(final Variant variant, final List<Variant> variants) {
        if (isChronicle(variant.name()) || variant.name().startsWith(VariantNames.FLOOR)) {
            return null;
        }
        Variant plain = null;
        for (final Variant other : variants) {
            if (other.name().equals(VariantNames.CHRONICLE + "-" + variant.name())) {
                return other;
            }
            if (other.name().equals(VariantNames.CHRONICLE)) {
                plain = other;
            }
        }
        return plain;
    }

    private static Variant find(final String file, final List<Variant> variants, final String name) {
        for (final Variant variant : variants) {
            if (variant.name().equals(name)) {
                return variant;
            }
        }
        throw new IllegalArgumentException(file + " has no variant " + name);
    }
}
