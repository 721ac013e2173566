package dev.spool.benchmarks.report;

import dev.spool.benchmarks.jmh.JmhPlot;
import dev.spool.benchmarks.support.VariantNames;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The table of a {@code jmh} result file, from JMH's own result table at its end. When every benchmark of the run
 * is an operation of the floor, Spool or Chronicle Queue ({@link JmhPlot#OPERATIONS}), one row per operation and
 * payload with the three side by side and Spool's ratios to the other two; otherwise one row per benchmark.
 * Scores are JMH's (ns per operation, ± the 99.9 % confidence interval); allocation is the gc profiler's
 * {@code gc.alloc.rate.norm}, bytes per operation.
 */
final class JmhTable {
    private static final String ALLOCATION = ":gc.alloc.rate.norm";
    private static final String PAYLOAD = "payloadLength";
    private static final Set<String> MODES = Set.of("avgt", "thrpt", "sample", "ss");

    private JmhTable() {
    }

    /**
     * One benchmark at one set of parameters: its score, interval and unit, and what it allocated.
     *
     * @param benchmark  {@code Class.method}.
     * @param parameters the JMH parameters and their values, in the table's order.
     * @param score      the score as JMH printed it.
     * @param error      the interval as JMH printed it, empty if none.
     * @param unit       the score's unit.
     * @param allocated  bytes per operation as JMH printed them, empty if the gc profiler was off.
     */
    private record Row(String benchmark, Map<String, String> parameters, String score, String error, String unit,
                       String allocated) {
        double value() {
            try {
                return Double.parseDouble(score);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }

        String payload() {
            final String payload = parameters.getOrDefault(PAYLOAD, "");
            return payload.equals("N/A") ? "" : payload;
        }

        /** @return the parameters other than the payload's length, e.g. {@code checksums=true}. */
        String others() {
            final List<String> others = new ArrayList<>();
            parameters.forEach((name, value) -> {
                // JMH's N/A: a parameter of another benchmark in the same run
                if (!name.equals(PAYLOAD) && !value.equals("N/A")) {
                    others.add(name + "=" + value);
                }
            });
            return String.join(", ", others);
        }

        private String interval() {
            try {
                return Numbers.measure(Double.parseDouble(error));
            } catch (NumberFormatException e) {
                return error;
            }
        }

        String scoreCell() {
            final double value = value();
            final String number = Double.isNaN(value) ? score : Numbers.measure(value);
            final String cell = error.isEmpty() ? number : number + " ± " + interval();
            return unit.equals("ns/op") ? cell : cell + " " + unit;
        }
    }

    /**
     * @param file  the result file's name, for the caption and errors.
     * @param lines its lines.
     * @return the markdown of the table and its caption, without the plot.
     */
    static String render(final String file, final List<String> lines) {
        final List<Row> rows = parse(file, lines);
        final ResultHeader header = ResultHeader.parse(lines);
        final StringBuilder md = new StringBuilder("From `").append(file).append("`: ");
        final String command = header.command();
        if (command != null) {
            md.append('`').append(command).append("`; ");
        }
        md.append(header.machine()).append(". ns per operation, ± the 99.9 % confidence interval; B/op is bytes"
                + " allocated per operation (`gc.alloc.rate.norm`).\n\n");
        final boolean comparable = rows.stream().allMatch(row -> JmhPlot.OPERATIONS.containsKey(row.benchmark()));
        if (comparable) {
            comparison(rows, md);
        } else {
            list(rows, md);
        }
        return md.toString();
    }

    /**
     * One row per operation, payload and Spool's other parameters: the floor, Spool and Chronicle side by side, each
     * column only if the run measured it.
     */
    private static void comparison(final List<Row> rows, final StringBuilder md) {
        final Map<String, Map<String, List<Row>>> byOperation = new LinkedHashMap<>();
        boolean anyFloor = false;
        boolean anyChronicle = false;
        for (final Row row : rows) {
            final String[] operation = JmhPlot.OPERATIONS.get(row.benchmark());
            anyFloor |= operation[1].equals(VariantNames.FLOOR);
            anyChronicle |= operation[1].equals(VariantNames.CHRONICLE);
            byOperation.computeIfAbsent(operation[0] + "\u0000" + row.payload(), key -> new LinkedHashMap<>())
                    .computeIfAbsent(operation[1], key -> new ArrayList<>()).add(row);
        }
        final List<String> keys = new ArrayList<>(byOperation.keySet());
        keys.sort(Comparator.comparingInt((String key) -> order(key.substring(0, key.indexOf('\u0000'))))
                .thenComparingInt(key -> length(key.substring(key.indexOf('\u0000') + 1))));
        md.append("| operation | payload |").append(anyFloor ? " floor |" : "").append(" Spool |")
                .append(anyChronicle ? " Chronicle |" : "").append(anyFloor ? " Spool / floor |" : "")
                .append(anyChronicle ? " Spool / Chronicle |" : "").append(" Spool B/op |\n|---|---|")
                .append("---|".repeat(2 + (anyFloor ? 2 : 0) + (anyChronicle ? 2 : 0))).append('\n');
        for (final String key : keys) {
            final Map<String, List<Row>> implementations = byOperation.get(key);
            final Row floor = first(implementations.get(VariantNames.FLOOR));
            final Row chronicle = first(implementations.get(VariantNames.CHRONICLE));
            final List<Row> spools = new ArrayList<>(implementations.getOrDefault(VariantNames.SPOOL, List.of()));
            if (spools.isEmpty()) {
                spools.add(null);
            }
            for (final Row spool : spools) {
                final Row any = spool != null ? spool : floor != null ? floor : chronicle;
                final String others = spool == null ? "" : spool.others();
                md.append("| ").append(key, 0, key.indexOf('\u0000'))
                        .append(others.isEmpty() ? "" : " (" + others + ")")
                        .append(" | ").append(any.payload().isEmpty() ? "" : any.payload() + " B").append(" |");
                if (anyFloor) {
                    md.append(' ').append(floor == null ? "" : floor.scoreCell()).append(" |");
                }
                md.append(' ').append(spool == null ? "" : spool.scoreCell()).append(" |");
                if (anyChronicle) {
                    md.append(' ').append(chronicle == null ? "" : chronicle.scoreCell()).append(" |");
                }
                if (anyFloor) {
                    md.append(' ')
                            .append(spool == null || floor == null ? "" : Numbers.ratio(spool.value() / floor.value()))
                            .append(" |");
                }
                if (anyChronicle) {
                    md.append(' ')
                            .append(spool == null || chronicle == null ? ""
                                    : Numbers.ratio(spool.value() / chronicle.value()))
                            .append(" |");
                }
                md.append(' ').append(spool == null ? "" : spool.allocated()).append(" |\n");
            }
        }
    }

    /** One row per benchmark and parameters, in JMH's order. */
    private static void list(final List<Row> rows, final StringBuilder md) {
        md.append("| benchmark | parameters | score | B/op |\n|---|---|---|---|\n");
        for (final Row row : rows) {
            final String payload = row.payload().isEmpty() ? "" : PAYLOAD + "=" + row.payload();
            final String others = row.others();
            final String parameters = payload.isEmpty() ? others : others.isEmpty() ? payload : payload + ", " + others;
            md.append("| `").append(row.benchmark()).append("` | ").append(parameters).append(" | ")
                    .append(row.scoreCell()).append(" | ").append(row.allocated()).append(" |\n");
        }
    }

    private static Row first(final List<Row> rows) {
        return rows == null || rows.isEmpty() ? null : rows.get(0);
    }

    private static int order(final String operation) {
        final int index = JmhPlot.ORDER.indexOf(operation);
        return index < 0 ? JmhPlot.ORDER.size() : index;
    }

    private static int length(final String payload) {
        return payload.isEmpty() ? 0 : Integer.parseInt(payload);
    }

    /** @return the rows of JMH's result table, the last one in the file, each with its allocation. */
    private static List<Row> parse(final String file, final List<String> lines) {
        int header = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("Benchmark ") && lines.get(i).contains("Score")) {
                header = i;
            }
        }
        if (header < 0) {
            throw new IllegalArgumentException(file + " has no JMH result table: not a finished jmh result file");
        }
        final List<String> parameters = new ArrayList<>();
        for (final String column : lines.get(header).trim().split("\\s+")) {
            if (column.startsWith("(") && column.endsWith(")")) {
                parameters.add(column.substring(1, column.length() - 1));
            }
        }
        final Map<String, Row> rows = new LinkedHashMap<>();
        final Map<String, String> allocation = new LinkedHashMap<>();
        for (int i = header + 1; i < lines.size() && !lines.get(i).isBlank(); i++) {
            final String[] cells = lines.get(i).trim().split("\\s+");
            int mode = 1;
            while (mode < cells.length && !MODES.contains(cells[mode])) {
                mode++;
            }
            if (mode != 1 + parameters.size() || mode >= cells.length) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": not a row of JMH's result table");
            }
            final Map<String, String> values = new LinkedHashMap<>();
            for (int p = 0; p < parameters.size(); p++) {
                values.put(parameters.get(p), cells[1 + p]);
            }
            final String unit = cells[cells.length - 1];
            String score = cells[cells.length - 2];
            String error = "";
            for (int c = mode + 1; c < cells.length - 1; c++) {
                if (cells[c].equals("±")) {
                    score = cells[c - 1];
                    error = cells[c + 1];
                } else if (cells[c].equals("≈")) {
                    score = "≈ " + cells[c + 1];
                }
            }
            final String name = cells[0];
            final String key = name.replace(ALLOCATION, "") + values;
            if (name.endsWith(ALLOCATION)) {
                allocation.put(key, score);
            } else if (!name.contains(":")) {
                rows.put(key, new Row(name, values, score, error, unit, ""));
            }
        }
        final List<Row> result = new ArrayList<>();
        rows.forEach((key, row) -> result.add(new Row(row.benchmark(), row.parameters(), row.score(), row.error(),
                row.unit(), allocation.getOrDefault(key, ""))));
        if (result.isEmpty()) {
            throw new IllegalArgumentException(file + ": JMH's result table is empty");
        }
        return result;
    }
}
