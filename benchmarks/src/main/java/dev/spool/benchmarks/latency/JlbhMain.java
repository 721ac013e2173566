package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariant;
import dev.spool.benchmarks.latency.variants.LatencyVariants;
import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker JVM of the {@code jlbh} command: runs one variant of one experiment under JLBH and writes what it
 * measured to a file for the launcher, which prints the tables and draws the plot. The launcher starts one worker
 * per variant with the JVM flags of the Java it runs on (on Java 23+ that includes
 * {@code --sun-misc-unsafe-memory-access=allow}, which a jar's manifest cannot set), so that each variant gets a
 * JVM whose JIT has seen no other variant, as JMH forks a JVM per benchmark.
 * <p>
 * It can be run by hand, e.g. under a profiler, with the flags that {@code jlbh} prints:
 * {@code java <flags> -cp benchmarks.jar dev.spool.benchmarks.latency.JlbhMain --experiment E1-32B-250K --size 32
 * --rate 250000 --runs 3 --iterations 1000000 --warmup-iterations 250000 --variant spool --out result.properties},
 * and {@code --cores SENDER,READER,DRAINER} to pin the hot threads (with {@code -Daffinity.reserved} set to the
 * drainer's CPU, as {@code jlbh --pin} prints it).
 * Rate and iterations are of messages for every variant; for a batch variant
 * ({@link LatencyVariant#messagesPerSend()} above 1) {@link JlbhRun} runs JLBH at the rate over the batch size,
 * for the iterations over it rounded up, and the result reports the messages actually sent.
 */
public final class JlbhMain {
    private JlbhMain() {
    }

    /**
     * Runs one variant and exits: 0 done, 1 the run failed, 2 bad arguments.
     *
     * @param args {@code --experiment NAME --size BYTES --rate MSG_PER_S --runs N --iterations N
     *             --warmup-iterations N --variant NAME --out FILE [--cores SENDER,READER,DRAINER]}.
     */
    public static void main(final String[] args) {
        // exits even if a library left a non-daemon thread behind: the launcher waits for this JVM to end
        System.exit(run(args, System.out, System.err));
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err) {
        final Arguments arguments;
        final LatencyVariant variant;
        try {
            arguments = Arguments.parse(args);
            variant = LatencyVariants.create(arguments.variant);
        } catch (IllegalArgumentException e) {
            err.println("JlbhMain: " + e.getMessage());
            return 2;
        }
        try {
            new JlbhRun(arguments.experiment, variant, arguments.length, arguments.rate, arguments.runs,
                    arguments.iterations, arguments.warmUpIterations, arguments.cores, out).run().write(arguments.out);
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("JlbhMain: interrupted");
            return 1;
        } catch (RuntimeException e) {
            err.println("JlbhMain: " + arguments.experiment + " " + arguments.variant + " failed:");
            e.printStackTrace(err);
            return 1;
        }
    }

    /**
     * The worker's command line, as the launcher writes it.
     *
     * @param experiment       the experiment's name.
     * @param length           bytes per message.
     * @param rate             messages per second.
     * @param runs             measured runs.
     * @param iterations       messages per run.
     * @param warmUpIterations messages before the first run.
     * @param variant          the variant's name.
     * @param out              where the result goes.
     * @return the arguments of {@link #main(String[])}.
     */
    static List<String> arguments(final String experiment, final int length, final int rate, final int runs,
                                  final int iterations, final int warmUpIterations, final String variant,
                                  final Path out) {
        return new ArrayList<>(List.of("--experiment", experiment, "--size", Integer.toString(length),
                "--rate", Integer.toString(rate), "--runs", Integer.toString(runs),
                "--iterations", Integer.toString(iterations), "--warmup-iterations", Integer.toString(warmUpIterations),
                "--variant", variant, "--out", out.toString()));
    }

    /** The parsed command line; every option is required but {@code --cores}. */
    private static final class Arguments {
        String experiment;
        CoreLayout cores;
        String variant;
        Path out;
        int length;
        int rate;
        int runs;
        int iterations;
        int warmUpIterations;

        static Arguments parse(final String[] args) {
            final Arguments arguments = new Arguments();
            if (args.length != 16 && args.length != 18) {
                throw new IllegalArgumentException("expected 8 or 9 options with a value each, got " + List.of(args));
            }
            for (int i = 0; i < args.length; i += 2) {
                final String value = args[i + 1];
                switch (args[i]) {
                    case "--experiment" -> arguments.experiment = value;
                    case "--variant" -> arguments.variant = value;
                    case "--out" -> arguments.out = Paths.get(value);
                    case "--size" -> arguments.length = positive(args[i], value);
                    case "--rate" -> arguments.rate = positive(args[i], value);
                    case "--runs" -> arguments.runs = positive(args[i], value);
                    case "--iterations" -> arguments.iterations = positive(args[i], value);
                    case "--warmup-iterations" -> arguments.warmUpIterations = positive(args[i], value);
                    case CoreLayout.CORES_OPTION -> arguments.cores = CoreLayout.parse(value);
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
                }
            }
            if (arguments.experiment == null || arguments.variant == null || arguments.out == null
                    || arguments.length == 0 || arguments.rate == 0 || arguments.runs == 0 || arguments.iterations == 0
                    || arguments.warmUpIterations == 0) {
                throw new IllegalArgumentException("every option is required: " + List.of(args));
            }
            if (arguments.length < Long.BYTES) {
                throw new IllegalArgumentException("--size must be at least " + Long.BYTES + ", was " + arguments.length);
            }
            return arguments;
        }

        private static int positive(final String option, final String value) {
            try {
                final int parsed = Integer.parseInt(value);
                if (parsed <= 0) {
                    throw new IllegalArgumentException(option + " must be positive, was " + parsed);
                }
                return parsed;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " takes a whole number, not '" + value + "'", e);
            }
        }
    }
}
