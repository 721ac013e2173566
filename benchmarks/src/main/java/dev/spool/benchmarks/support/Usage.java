package dev.spool.benchmarks.support;

/**
 * The {@code --help} text of {@code benchmarks.jar}, which the launcher prints and the {@code jmh} command prints as
 * its own.
 */
public final class Usage {
    /** The text, ending in a line separator. */
    public static final String TEXT = String.join(System.lineSeparator(),
            "Usage: java -jar benchmarks.jar <command> [options]",
            "",
            "Commands:",
            "  demo",
            "      The main job on embedded defaults: first 1M typed orders through a generated method writer",
            "      and reader (appender.methodWriter / tailer.methodReader); then bytes: a queue in a temporary",
            "      directory, 2M messages at 250K",
            "      msg/s tailed live by a second thread with latencies, then a burst read back; 2M appends",
            "      through the ring buffer on /dev/shm and its drainer; 200K messages replicated to a second",
            "      queue over loopback, with append-to-ack latencies and a check that the replica matches.",
            "  jmh [regex...] [--quick] [--no-gc] [--dir <path>] [--results <dir>] [JMH options...]",
            "      Runs the JMH benchmarks whose names match a regex (all if none): FloorBenchmark,",
            "      SpoolBenchmark, ChronicleBenchmark (experiment E4), RingBenchmark (ring claim/commit,",
            "      drainer ns per record, async append with 0 or 1 awaiting tailer), ReplicationBenchmark,",
            "      TypedBenchmark (a 5-field order written and read: typed layer, hand-written claim/commit,",
            "      Chronicle's methodWriter/methodReader):",
            "      ns per operation and, from the gc profiler,",
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
            "      articles' SUMMARY tables per variant (floor = in-memory handoff, spool, spool-typed, ring,",
            "      ring-read, ring-default, ring-lowduty-100us, ring-invoked, ring-tmpfs, ring-nodrain, ring-stall,",
            "      chronicle), ratios to the floor and to Chronicle Queue, HdrHistogram files and a plot (E0, E1).",
            "      Full length by default (hours for all); --short is seconds a run. `jlbh --help` lists",
            "      the experiments, variants and defaults.",
            "  all [--short|--smoke|--full] [--dir <path>] [--results <dir>]",
            "      Every experiment the code supports: every jlbh experiment in that mode, then the whole jmh",
            "      suite (--quick unless --full). --short (the default here) is a look at everything in",
            "      minutes, not a measurement; --full is the articles' lengths, many hours.",
            "  startup [--runs N] [--dir <path>]",
            "      First open of a new queue to its first append, in a fresh JVM per sample, Spool and",
            "      Chronicle Queue alternating (default 10 runs each): every sample, then min/median/max.",
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

    private Usage() {
    }
}
