package dev.spool.benchmarks.report;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The table of a {@code startup} result file: for Spool and Chronicle Queue, the time from the first open of a new
 * queue to its first append and from the JVM's start to that append, minimum, median and maximum over the samples.
 */
final class StartupTable {
    private static final Pattern SYSTEM = Pattern.compile(
            "^(\\S+)\\s+([\\d.]+) /\\s+([\\d.]+) /\\s+([\\d.]+)\\s+(\\d+) /\\s+(\\d+) /\\s+(\\d+)\\s*$");
    private static final Pattern COMMAND = Pattern.compile("^=== \\S+ (.*\\.jar .*)$");
    private static final Pattern RUNS = Pattern.compile("--runs (\\d+)");

    private StartupTable() {
    }

    /**
     * @param file  the result file's name, for the caption and errors.
     * @param lines its lines.
     * @return the markdown of the table and its caption.
     */
    static String render(final String file, final List<String> lines) {
        final StringBuilder rows = new StringBuilder();
        String command = null;
        String ratio = null;
        for (final String line : lines) {
            final Matcher system = SYSTEM.matcher(line);
            final Matcher started = COMMAND.matcher(line);
            if (system.matches()) {
                rows.append("| ").append(system.group(1)).append(" | ").append(system.group(2)).append(" / ")
                        .append(system.group(3)).append(" / ").append(system.group(4)).append(" | ")
                        .append(system.group(5)).append(" / ").append(system.group(6)).append(" / ")
                        .append(system.group(7)).append(" |\n");
            } else if (started.matches() && command == null) {
                command = ResultHeader.benchmarksCommand(started.group(1));
            } else if (line.startsWith("spool / chronicle, medians: ")) {
                ratio = line.substring("spool / chronicle, medians: ".length()).trim();
            }
        }
        if (rows.length() == 0) {
            throw new IllegalArgumentException(file
                    + " has no summary of the start-up samples: not a startup result file");
        }
        final StringBuilder md = new StringBuilder("From `").append(file).append('`');
        if (command != null) {
            final Matcher runs = RUNS.matcher(command);
            md.append(": `").append(command).append('`');
            if (runs.find()) {
                md.append(", ").append(runs.group(1)).append(" samples each, a fresh JVM per sample");
            }
        }
        md.append(".\n\n| system | first open to first append, ms (min / median / max)"
                + " | JVM start to first append, ms |\n");
        md.append("|---|---|---|\n").append(rows);
        if (ratio != null) {
            md.append("\nSpool / Chronicle, medians: ").append(ratio).append(".\n");
        }
        return md.toString();
    }
}
