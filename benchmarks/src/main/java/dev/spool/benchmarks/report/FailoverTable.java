package dev.spool.benchmarks.report;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The table of a {@code failover} result file: the failover time over the kills, p50 and max, in milliseconds and
 * as a ratio to the session timeout; the acknowledged messages and how many of them were lost; and the publish
 * latency through a cluster node beside the same replication without ZooKeeper, with their ratio.
 */
final class FailoverTable {
    private static final Pattern KILLS = Pattern.compile("^failover time, .* over (\\d+) kills:$");
    private static final Pattern TIMES = Pattern.compile(
            "^  p50 (\\d+) ms, max (\\d+) ms; / session timeout of (\\d+) ms: p50 ([\\d.]+), max ([\\d.]+);"
                    + " ZooKeeper tick (\\d+) ms$");
    private static final Pattern PROMOTION = Pattern.compile(
            "^  of which the kill to the new primary's report of its promotion: p50 (\\d+) ms, max (\\d+) ms$");
    private static final Pattern MESSAGES = Pattern.compile(
            "^acknowledged messages: ([\\d,]+), lost: (\\d+); given up on by the client, never acknowledged: (\\d+)$");
    private static final Pattern LATENCY = Pattern.compile(
            "^  (plain|cluster)\\s+p50 ([\\d.]+)  p90 ([\\d.]+)  p99 ([\\d.]+)  p99.9 ([\\d.]+)  worst ([\\d.]+)"
                    + "  \\(([\\d,]+) messages\\)$");
    private static final Pattern RATIO = Pattern.compile(
            "^  cluster / plain: p50 ([\\d.]+)  p90 ([\\d.]+)  p99 ([\\d.]+)$");
    private static final Pattern RATE = Pattern.compile("^publish to a commit at ACKED_BY_QUORUM, (.*), us:$");

    private FailoverTable() {
    }

    /**
     * @param file  the result file's name, for the caption and errors.
     * @param lines its lines.
     * @return the markdown of the table and its caption.
     * @throws IllegalArgumentException if the file has no summary of a finished failover run.
     */
    static String render(final String file, final List<String> lines) {
        Matcher kills = null;
        Matcher times = null;
        Matcher messages = null;
        Matcher ratio = null;
        Matcher promotion = null;
        String rate = null;
        final StringBuilder latencies = new StringBuilder();
        for (final String line : lines) {
            final Matcher latency = LATENCY.matcher(line);
            if (latency.matches()) {
                latencies.append("| publish latency, ").append(latency.group(1)).append(" | ")
                        .append(latency.group(2)).append(" / ").append(latency.group(3)).append(" / ")
                        .append(latency.group(4)).append(" / ").append(latency.group(6)).append(" µs (")
                        .append(latency.group(7)).append(" messages) |\n");
            }
            kills = matched(KILLS, line, kills);
            times = matched(TIMES, line, times);
            messages = matched(MESSAGES, line, messages);
            ratio = matched(RATIO, line, ratio);
            promotion = matched(PROMOTION, line, promotion);
            final Matcher rated = RATE.matcher(line);
            if (rated.matches()) {
                rate = rated.group(1);
            }
        }
        if (kills == null || times == null || messages == null) {
            throw new IllegalArgumentException(file + " has no summary of the failover times and acknowledged"
                    + " messages: not a failover result file, or a run that did not finish");
        }
        final ResultHeader header = ResultHeader.parse(lines);
        final StringBuilder md = new StringBuilder("From `").append(file).append("`: ");
        if (header.command() != null) {
            md.append('`').append(header.command()).append("`; ");
        }
        md.append(header.machine()).append('.');
        if (rate != null) {
            md.append(" Publish latency: ").append(rate).append(", p50 / p90 / p99 / worst.");
        }
        md.append("\n\n| measure | figure |\n|---|---|\n");
        md.append("| failover time over ").append(kills.group(1)).append(" kills of the primary, p50 / max | ")
                .append(times.group(1)).append(" / ").append(times.group(2)).append(" ms |\n");
        md.append("| the same / the session timeout of ").append(times.group(3)).append(" ms | ")
                .append(times.group(4)).append(" / ").append(times.group(5)).append(" |\n");
        if (promotion != null) {
            md.append("| of which the kill to the promotion, p50 / max | ").append(promotion.group(1)).append(" / ")
                    .append(promotion.group(2)).append(" ms |\n");
        }
        md.append("| messages acknowledged at ACKED_BY_QUORUM / lost | ").append(messages.group(1)).append(" / ")
                .append(messages.group(2)).append(" |\n");
        md.append(latencies);
        if (ratio != null) {
            md.append("| publish latency, cluster / plain, p50 / p90 / p99 | ").append(ratio.group(1)).append(" / ")
                    .append(ratio.group(2)).append(" / ").append(ratio.group(3)).append(" |\n");
        }
        return md.toString();
    }

    private static Matcher matched(final Pattern pattern, final String line, final Matcher found) {
        if (found != null) {
            return found;
        }
        final Matcher matcher = pattern.matcher(line);
        return matcher.matches() ? matcher : null;
    }
}
