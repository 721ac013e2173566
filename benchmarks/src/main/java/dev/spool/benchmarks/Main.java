package dev.spool.benchmarks;

import dev.spool.benchmarks.demo.Demo;
import dev.spool.benchmarks.latency.JlbhLauncher;
import dev.spool.benchmarks.jmh.JmhLauncher;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The benchmark launcher, main class of {@code benchmarks.jar}: {@code java -jar benchmarks.jar jmh Spool --quick}.
 * It computes the JVM flags Chronicle needs for the Java version it runs on, gives them to the benchmark JVMs it
 * forks, and files each run's results with the facts of the machine under {@code benchmarks/results/}. The jar's
 * manifest opens what Chronicle needs to this JVM too, so no command line needs a flag.
 * <p>
 * {@code demo} is the main job on embedded defaults; {@code jmh} runs the throughput and allocation suite (E4);
 * {@code jlbh} runs the latency experiments (E0, E1) under JLBH, each variant in a JVM of its own.
 */
public final class Main {
    /** The {@code --help} text of every command. */
    public static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar benchmarks.jar <command> [options]",
            "",
            "Commands:",
            "  demo",
            "      The main job on embedded defaults: a queue in a temporary directory, 2M messages at 250K",
            "      msg/s tailed live by a second thread with latencies, then a burst read back; 2M appends",
            "      through the ring buffer on /dev/shm and its drainer; 200K messages replicated to a second",
            "      queue over loopback, with append-to-ack latencies and a check that the replica matches.",
            "  jmh [regex...] [--quick] [--no-gc] [--dir <path>] [--results <dir>] [JMH options...]",
            "      Runs the JMH benchmarks whose names match a regex (all if none): FloorBenchmark,",
            "      SpoolBenchmark, ChronicleBenchmark (experiment E4), RingBenchmark (ring claim/commit,",
            "      drainer ns per record), ReplicationBenchmark: ns per operation and, from the gc profiler,",
            "      gc.alloc.rate.norm = bytes allocated per operation.",
            "      --quick          smoke settings: 1 warm-up and 1 measurement iteration of 1 s, 1 fork;",
            "                       speeds mean nothing then. Explicit -wi, -w, -i, -r, -f still win.",
            "      --no-gc          leave out the gc profiler, which is on by default",
            "      --dir <path>     where benchmark queues are created (default: java.io.tmpdir);",
            "                       the file system sets the cost of page faults, e.g. /dev/shm vs disk",
            "      --results <dir>  where result files go (default: benchmarks/results beside the jar's target/)",
            "      JMH options      anything else goes to JMH, e.g. -p payloadLength=8,32,256,1024 -prof stack;",
            "                       `jmh -h` lists them, `jmh -l` lists the benchmarks",
            "  jlbh [EXPERIMENT...] [--short|--full|--smoke] [--rate N] [--size B] [--runs N] [--seconds S]",
            "       [--warmup S] [--variant NAME[,NAME]] [--dir <path>] [--results <dir>]",
            "      End-to-end latency under JLBH at a steady rate, coordinated omission accounted for: the",
            "      articles' SUMMARY tables per variant (floor = in-memory handoff, spool, ring, ring-read,",
            "      chronicle), ratios to the floor and to Chronicle Queue, HdrHistogram files and a plot",
            "      (experiments E0, E1).",
            "      Full length by default (hours for all); --short is seconds a run. `jlbh --help` lists",
            "      the experiments, variants and defaults.",
            "  all [--short|--smoke|--full] [--dir <path>] [--results <dir>]",
            "      Every experiment the code supports: every jlbh experiment in that mode, then the whole jmh",
            "      suite (--quick unless --full). --short (the default here) is a look at everything in",
            "      minutes, not a measurement; --full is the articles' lengths, many hours.",
            "  --help             prints this text",
            "",
            "Forked JVMs (JMH's forks, jlbh's workers) get Chronicle's --add-exports/--add-opens flags, plus",
            "--enable-native-access and --sun-misc-unsafe-memory-access=allow on Java 23+, for the Java",
            "running this launcher.",
            "Each run writes <time>-jmh-<regex>.txt (machine facts, then JMH's output) and .json (JMH's JSON);",
            "jlbh writes <time>-jlbh-<experiment>.txt, a .hgrm file per variant and a .png per experiment.",
            "",
            "Examples: java -jar benchmarks/target/benchmarks.jar jmh Spool --quick",
            "          java -jar benchmarks/target/benchmarks.jar jlbh E1 --short",
            "          java -jar benchmarks/target/benchmarks.jar all --short",
            "");

    private Main() {
    }

    /**
     * Runs a command and exits with a non-zero status if it failed.
     *
     * @param args the command and its options; see {@code --help}.
     */
    public static void main(final String[] args) {
        final int status = run(args, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * The {@code all} command: {@code jlbh all} in the mode given ({@code --short} if none), then {@code jmh}, quick
     * unless the mode is {@code --full}; {@code --dir} and {@code --results} go to both.
     */
    private static int all(final String[] options, final String[] commandLine, final PrintStream out,
                           final PrintStream err) {
        String mode = "--short";
        final List<String> shared = new ArrayList<>();
        for (int i = 0; i < options.length; i++) {
            switch (options[i]) {
                case "--short", "--smoke", "--full" -> mode = options[i];
                case "--dir", "--results" -> {
                    if (i + 1 >= options.length) {
                        err.println(options[i] + " needs a value");
                        return 2;
                    }
                    shared.add(options[i]);
                    shared.add(options[++i]);
                }
                default -> {
                    err.println("unknown option '" + options[i] + "' for all; run jlbh or jmh for finer control");
                    return 2;
                }
            }
        }
        final List<String> jlbh = new ArrayList<>(List.of("all", mode));
        jlbh.addAll(shared);
        final int latency = JlbhLauncher.run(jlbh.toArray(new String[0]), commandLine, out, err);
        final List<String> jmh = new ArrayList<>(shared);
        if (!mode.equals("--full")) {
            jmh.add("--quick");
        }
        final int throughput = JmhLauncher.run(jmh.toArray(new String[0]), commandLine, out, err);
        return Math.max(latency, throughput);
    }

    /**
     * Runs a command in this JVM.
     *
     * @param args the command and its options; see {@code --help}.
     * @param out  where results and help go.
     * @param err  where errors go.
     * @return the process exit status: 0 done, 1 the run failed, 2 bad command line.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err) {
        if (args.length == 0) {
            err.print(USAGE);
            return 2;
        }
        final String[] options = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "demo":
                return Demo.run(options, out, err);
            case "jmh":
                return JmhLauncher.run(options, args, out, err);
            case "jlbh":
                return JlbhLauncher.run(options, args, out, err);
            case "all":
                return all(options, args, out, err);
            case "--help":
            case "-h":
            case "help":
                out.print(USAGE);
                return 0;
            default:
                err.println("unknown command '" + args[0] + "'");
                err.print(USAGE);
                return 2;
        }
    }
}
