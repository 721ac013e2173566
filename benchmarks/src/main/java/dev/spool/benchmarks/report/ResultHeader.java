package dev.spool.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The machine facts at the top of a result file ({@code # name: value} lines, as
 * {@link dev.spool.benchmarks.support.MachineFacts} writes them), told in one sentence for a table's caption.
 */
final class ResultHeader {
    /** Characters a shell takes as they are; an argument with any other is quoted. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./=,:+@%-]+");

    private final Map<String, String> facts;

    private ResultHeader(final Map<String, String> facts) {
        this.facts = facts;
    }

    /**
     * @param lines the result file's lines.
     * @return its facts; none if the file starts otherwise.
     */
    static ResultHeader parse(final List<String> lines) {
        final Map<String, String> facts = new LinkedHashMap<>();
        for (final String line : lines) {
            if (!line.startsWith("# ")) {
                break;
            }
            final int colon = line.indexOf(": ");
            if (colon > 2) {
                facts.put(line.substring(2, colon), line.substring(colon + 2).trim());
            }
        }
        return new ResultHeader(facts);
    }

    /** @return whether the file had machine facts at all. */
    boolean present() {
        return facts.containsKey("cpus");
    }

    /** @return the command that wrote the file, or null if it is not recorded. */
    String command() {
        final String command = facts.get("command");
        return command == null ? null : benchmarksCommand(command);
    }

    /**
     * The launcher's own command line names the java binary and wherever the jar was; a reader runs it from the
     * repository root, and the directory the results went to is of no use to them.
     *
     * @param commandLine a command line that runs the benchmarks jar.
     * @return {@code java -jar benchmarks/target/benchmarks.jar} and the arguments after the jar but
     * {@code --results}, each quoted for a shell where needed; the line itself if it does not run a jar.
     */
    static String benchmarksCommand(final String commandLine) {
        final int jar = commandLine.indexOf(".jar ");
        if (jar < 0) {
            return commandLine;
        }
        final String[] arguments = commandLine.substring(jar + 5).trim().split("\\s+");
        final List<String> kept = new ArrayList<>();
        for (int i = 0; i < arguments.length; i++) {
            if (arguments[i].equals("--results")) {
                i++;
            } else {
                kept.add(PLAIN.matcher(arguments[i]).matches() ? arguments[i] : "'" + arguments[i] + "'");
            }
        }
        return "java -jar benchmarks/target/benchmarks.jar " + String.join(" ", kept);
    }

    /**
     * @return e.g. "2 CPUs (Intel Xeon Processor), 24105 MiB, Linux 6.18 amd64, OpenJDK 17.0.15, files in /tmp
     * (ext4), load average 3.97 at the start"; "machine not recorded" if the file has no facts.
     */
    String machine() {
        if (!present()) {
            return "machine not recorded in the file";
        }
        final String jdk = facts.getOrDefault("jdk", "unknown JDK");
        final int home = jdk.indexOf(" (");
        final String load = facts.getOrDefault("loadAverage", "unknown");
        return facts.get("cpus") + " CPUs (" + facts.getOrDefault("cpuModel", "unknown") + "), "
                + facts.getOrDefault("memory", "unknown memory") + ", " + facts.getOrDefault("os", "unknown OS") + ", "
                + (home > 0 ? jdk.substring(0, home) : jdk)
                + ", files in " + facts.getOrDefault("benchDirectory", "unknown")
                + ", load average " + load.split(" ")[0] + " at the start";
    }
}
