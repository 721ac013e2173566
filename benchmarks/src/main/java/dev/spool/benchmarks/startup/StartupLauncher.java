package dev.spool.benchmarks.startup;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.JvmFlags;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The {@code startup} command: {@code --runs N} (default 10) samples of each system, alternating, each a fresh JVM
 * with the fork flags the other benchmarks use; prints every sample, then the minimum, median and maximum of each
 * and the ratio of the medians.
 */
public final class StartupLauncher {
    private static final String[] SYSTEMS = {"spool", "chronicle"};

    private StartupLauncher() {
    }

    /**
     * @param options {@code [--runs N] [--dir <path>]}.
     * @param out     where the samples and the summary go.
     * @param err     where errors go.
     * @return 0 done, 1 a probe failed, 2 bad options.
     */
    public static int run(final String[] options, final PrintStream out, final PrintStream err) {
        int runs = 10;
        for (int i = 0; i < options.length; i++) {
            if (i + 1 >= options.length) {
                err.println(options[i] + " needs a value");
                return 2;
            }
            switch (options[i]) {
                case "--runs" -> runs = Integer.parseInt(options[++i]);
                case "--dir" -> System.setProperty(BenchmarkDirectory.BASE_PROPERTY, options[++i]);
                default -> {
                    err.println("unknown option '" + options[i] + "' for startup: --runs N, --dir <path>");
                    return 2;
                }
            }
        }
        if (runs < 1) {
            err.println("--runs=" + runs + " must be at least 1");
            return 2;
        }
        final List<String> flags = JvmFlags.load().forkFlags(Runtime.version().feature());
        out.println("first open to first append of a new queue, each sample a fresh JVM with: " + String.join(" ", flags));
        final long[][] micros = new long[SYSTEMS.length][runs];
        final long[][] uptimes = new long[SYSTEMS.length][runs];
        try {
            final BenchmarkDirectory work = BenchmarkDirectory.create("startup-");
            for (int run = 0; run < runs; run++) {
                for (int s = 0; s < SYSTEMS.length; s++) {
                    final String[] sample = probe(flags, SYSTEMS[s], work.path().resolve(SYSTEMS[s] + "-" + run), err);
                    if (sample == null) {
                        return 1;
                    }
                    micros[s][run] = Long.parseLong(sample[2]);
                    uptimes[s][run] = Long.parseLong(sample[3]);
                    out.printf(Locale.ROOT, "%-9s run %2d: open to append %8.1f ms, JVM start to append %5d ms%n",
                            SYSTEMS[s], run + 1, micros[s][run] / 1e3, uptimes[s][run]);
                }
            }
            work.delete();
        } catch (IOException e) {
            err.println("startup: " + e.getMessage());
            return 1;
        }
        out.println();
        out.println("system     open-to-append ms (min / median / max)   JVM-start-to-append ms (min / median / max)");
        for (int s = 0; s < SYSTEMS.length; s++) {
            out.printf(Locale.ROOT, "%-9s  %8.1f / %8.1f / %8.1f           %6d / %6d / %6d%n", SYSTEMS[s],
                    min(micros[s]) / 1e3, median(micros[s]) / 1e3, max(micros[s]) / 1e3,
                    min(uptimes[s]), median(uptimes[s]), max(uptimes[s]));
        }
        out.printf(Locale.ROOT, "spool / chronicle, medians: open-to-append %.2f, JVM-start-to-append %.2f%n",
                (double) median(micros[0]) / median(micros[1]), (double) median(uptimes[0]) / median(uptimes[1]));
        return 0;
    }

    /** @return the probe's words ({@code STARTUP system micros uptime}), or null after printing why it failed. */
    private static String[] probe(final List<String> flags, final String system, final Path directory,
                                  final PrintStream err) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(StartupProbe.class.getName());
        command.add(system);
        command.add(directory.toString());
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String[] result = null;
        final StringBuilder output = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith(StartupProbe.PREFIX + " ")) {
                    result = line.split(" ");
                } else {
                    output.append(line).append(System.lineSeparator());
                }
            }
        }
        try {
            final int status = process.waitFor();
            if (status != 0 || result == null) {
                err.println("startup probe of " + system + " exited with " + status + ": " + output);
                return null;
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return null;
        }
        return result;
    }

    private static long min(final long[] values) {
        return Arrays.stream(values).min().orElse(0);
    }

    private static long max(final long[] values) {
        return Arrays.stream(values).max().orElse(0);
    }

    private static long median(final long[] values) {
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
