package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariant;
import dev.spool.benchmarks.latency.variants.LatencyVariants;
import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.JvmFlags;
import dev.spool.benchmarks.support.MachineFacts;
import dev.spool.benchmarks.support.ResultFiles;
import dev.spool.benchmarks.support.TeeOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * The {@code jlbh} command: plans the experiments, starts one worker JVM ({@link JlbhMain}) per variant of each,
 * with the JVM flags of the Java this launcher runs on, and turns what the workers measured into the result files:
 * the SUMMARY tables and ratios (printed and written with the machine facts), an HdrHistogram percentile
 * distribution per variant and a plot per experiment.
 * <p>
 * One JVM per variant rather than one for all: JLBH's send loop and the reader's loop would otherwise see every
 * variant in turn, and the JIT would compile the later variants' calls as megamorphic (and Spool's and
 * Chronicle's shared Chronicle-Bytes code with both profiles mixed): the order of the variants would show in
 * their numbers. JMH forks a JVM per benchmark for the same reason.
 */
public final class JlbhLauncher {
    /** Seconds a worker takes besides its runs: JVM start, queue creation, JLBH's warm-up check, clean-up. */
    private static final double WORKER_OVERHEAD_SECONDS = 3;
    /** Lines of a failed worker's error output kept for the result file. */
    private static final int ERROR_LINES = 40;
    private static final String NL = System.lineSeparator();

    private JlbhLauncher() {
    }

    /**
     * @param options     the options after {@code jlbh}.
     * @param commandLine the launcher's whole argument list, for the record.
     * @param out         where tables and progress go.
     * @param err         where errors go.
     * @return the exit status: 0 done, 1 a variant failed, 2 bad command line.
     */
    public static int run(final String[] options, final String[] commandLine, final PrintStream out, final PrintStream err) {
        final JlbhArguments arguments;
        final List<JlbhArguments.Plan> plans;
        try {
            arguments = JlbhArguments.parse(options);
            plans = arguments.plans();
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.println("`java -jar benchmarks.jar jlbh --help` lists the experiments, variants and options");
            return 2;
        }
        if (arguments.help) {
            out.print(usage());
            return 0;
        }
        final CoreLayout cores;
        try {
            cores = arguments.coreLayout(CoreLayout.Cpus.ofThisJvm());
        } catch (IllegalArgumentException e) {
            err.println("jlbh: " + e.getMessage());
            return 2;
        }
        final List<String> forkFlags = JvmFlags.load().forkFlags(Runtime.version().feature());
        final Path benchDirectory = arguments.benchDirectory != null ? arguments.benchDirectory : BenchmarkDirectory.base();
        final Path resultsDirectory = arguments.resultsDirectory != null ? arguments.resultsDirectory
                : ResultFiles.defaultDirectory();
        double seconds = 0;
        int workers = 0;
        for (final JlbhArguments.Plan plan : plans) {
            seconds += plan.variants().size() * (plan.runs() * plan.runSeconds() + WORKER_OVERHEAD_SECONDS);
            workers += plan.variants().size();
        }
        out.printf(Locale.ROOT, "jlbh: %d experiment(s), %d variant run(s), %s mode, each variant in its own JVM: "
                        + "about %.0f min%n", plans.size(), workers, arguments.mode().name().toLowerCase(Locale.ROOT),
                Math.ceil(seconds / 60));
        int status = 0;
        for (final JlbhArguments.Plan plan : plans) {
            final Experiment experiment = new Experiment(plan, forkFlags, cores, benchDirectory, out, err);
            if (!experiment.run(resultsDirectory, commandLine)) {
                status = 1;
            }
        }
        return status;
    }

    /** @return the {@code jlbh --help} text: experiments, variants, modes and options, from the code's own lists. */
    static String usage() {
        final StringBuilder usage = new StringBuilder();
        usage.append("Usage: java -jar benchmarks.jar jlbh [EXPERIMENT...] [--short|--full|--smoke] [--rate N] [--size B]")
                .append(NL).append("           [--runs N] [--seconds S] [--warmup S] [--variant NAME[,NAME]]"
                        + " [--dir <path>] [--results <dir>]").append(NL)
                .append("           [--pin | --cores SENDER,READER,DRAINER]").append(NL).append(NL);
        usage.append("End-to-end latency under JLBH (experiments E0 to E3b of docs/benchmarks.md): JLBH's thread")
                .append(NL).append("sends timestamped messages at a steady rate, taking each one's due time as its start")
                .append(NL).append("(coordinated omission accounted for);")
                .append(NL).append("a reader thread busy-spins, reads each message and samples now minus the due time. At least")
                .append(NL).append("2 threads spin per variant, JLBH's sender and the reader; the variants below say how many"
                        + " in all.").append(NL).append("JLBH's OS-jitter thread is off; no thread is pinned unless --pin"
                        + " or --cores asks.").append(NL)
                .append("Every variant runs in a JVM of its own, one after the other.").append(NL).append(NL);
        usage.append("Experiments (none given = all; a group name, e.g. E1, runs every experiment in it):").append(NL);
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            usage.append(String.format(Locale.ROOT, "  %-14s %d B at %s msg/s; full: %d runs of %.0f s (%,d messages each)%n",
                    experiment.name(), experiment.length(), VariantResult.formatRate(experiment.rate()),
                    experiment.runs(), experiment.runSeconds(), (long) (experiment.rate() * experiment.runSeconds())));
            usage.append("                 from ").append(experiment.source()).append(NL);
            usage.append("                 variants: ").append(String.join(", ", experiment.variants())).append(NL);
        }
        usage.append("Variants (an experiment runs all of its own by default, in its order; every ratio is over the floor,")
                .append(NL).append("so keep it), with the threads that spin while each runs:").append(NL);
        for (final String name : LatencyVariants.names()) {
            usage.append(variantLine(name));
        }
        usage.append("Modes:").append(NL);
        usage.append("  --full     (default) the article's lengths, above; warm-up: 10 s worth of messages").append(NL);
        usage.append("  --short    3 runs (fewer if the experiment has fewer) of 4 s, warm-up 1 s worth; result files")
                .append(NL).append("             are named -short and git-ignored: a look, not a measurement").append(NL);
        usage.append("  --smoke    2 runs of 0.25 s, warm-up 0.1 s worth: proves every part works, measures nothing")
                .append(NL).append("             (the test suite runs it); files named -smoke, git-ignored").append(NL);
        usage.append("Options (they apply to every experiment chosen):").append(NL);
        usage.append("  --rate N         messages per second; runs keep their length in seconds").append(NL);
        usage.append("  --size B         bytes per message, at least 8 (they hold the start time)").append(NL);
        usage.append("  --runs N         measured runs").append(NL);
        usage.append("  --seconds S      length of a run, decimals allowed").append(NL);
        usage.append("  --warmup S       S seconds' worth of messages at the rate, before the runs; JLBH sends them as")
                .append(NL).append("                   fast as they go").append(NL);
        usage.append("  --variant A,B    only these variants").append(NL);
        usage.append("  --dir <path>     where queues are created (default: java.io.tmpdir); the file system sets what"
                + " a").append(NL).append("                   page fault costs. Full E1 at 250K msg/s writes ~1 GB a run, 8 GB"
                + " a variant, deleted after each variant").append(NL);
        usage.append("  --results <dir>  where result files go (default: benchmarks/results beside the jar's target/)")
                .append(NL);
        usage.append("  --pin            for a server with cores to spare: the sender, the reader and a ring variant's")
                .append(NL).append("                   drainer each on a CPU of its own (OpenHFT Affinity; the drainer"
                        + " through").append(NL).append("                   pinDrainer): the three highest isolated CPUs"
                        + " (isolcpus) if there are three,").append(NL).append("                   else the three highest"
                        + " the JVM may use. Needs ").append(CoreLayout.CPUS_NEEDED).append(" CPUs, one left for the")
                .append(NL).append("                   kernel, the JIT and the GC; refused, naming the CPUs, where there"
                        + " are fewer.").append(NL).append("                   Prepare the server first (docs/operations/servers.md,"
                        + " \"Pinning the hot threads on a server\")").append(NL);
        usage.append("  --cores S,R,D    as --pin, on these CPUs: sender, reader, drainer (the drainer not CPU 0)")
                .append(NL).append(NL);
        usage.append("Each experiment writes <UTC time>-jlbh-<experiment>[-short|-smoke].txt (machine facts, command,")
                .append(NL).append("SUMMARY table per variant in microseconds, ratios per percentile of the medians over runs,")
                .append(NL).append("JLBH's own output), -<variant>.hgrm (HdrHistogram percentile distribution, microseconds) and")
                .append(NL).append(".png (latency by percentile, one line per variant). Percentiles that JLBH cannot compute for")
                .append(NL).append("the messages in a run show as \"-\". A run that sends more than ")
                .append(Math.round(VariantResult.RATE_TOLERANCE * 100)).append("% below the rate asked for")
                .append(NL).append("prints a WARNING and is marked \"!\" in its table.").append(NL).append(NL);
        usage.append("Example: java -jar benchmarks/target/benchmarks.jar jlbh E1 --short").append(NL);
        return usage.toString();
    }

    /** @return the variant's name, the threads that spin while it runs, and its description, on one line. */
    private static String variantLine(final String name) {
        final LatencyVariant variant = LatencyVariants.create(name);
        return String.format(Locale.ROOT, "  %-14s %d threads spinning: %s%n", name, variant.spinningThreads(),
                variant.description());
    }

    /** One experiment: its workers, its tables and its files. */
    private static final class Experiment {
        private final JlbhArguments.Plan plan;
        private final List<String> variants;
        private final List<String> forkFlags;
        private final CoreLayout cores;
        private final Path benchDirectory;
        private final PrintStream out;
        private final PrintStream err;

        Experiment(final JlbhArguments.Plan plan, final List<String> forkFlags, final CoreLayout cores,
                   final Path benchDirectory, final PrintStream out, final PrintStream err) {
            this.plan = plan;
            this.variants = plan.variants();
            this.forkFlags = forkFlags;
            this.cores = cores;
            this.benchDirectory = benchDirectory;
            this.out = out;
            this.err = err;
        }

        /** @return false if a variant failed. */
        boolean run(final Path resultsDirectory, final String[] commandLine) {
            final ResultFiles files = ResultFiles.create(resultsDirectory, "jlbh-" + plan.name() + plan.mode().suffix());
            final MachineFacts facts = MachineFacts.collect(commandLine, benchDirectory, forkFlags);
            files.writeFacts(facts.toJson());
            final List<VariantResult> results = new ArrayList<>();
            final List<String> commands = new ArrayList<>();
            final List<Path> written = new ArrayList<>(List.of(files.text(), files.facts()));
            boolean ok = true;
            try (PrintStream text = files.openText();
                 PrintStream tee = new PrintStream(new TeeOutputStream(out, text), true, StandardCharsets.UTF_8)) {
                tee.print(facts.toText());
                tee.println();
                tee.print(header());
                tee.println();
                for (final String variant : variants) {
                    final Path raw = temporaryFile(variant);
                    try {
                        final List<String> command = command(variant, raw);
                        commands.add(String.join(" ", command));
                        out.println("  " + plan.name() + " " + variant + ": worker JVM started");
                        final Deque<String> errors = new ArrayDeque<>();
                        final int status = runWorker(command, errors);
                        if (status != 0) {
                            ok = false;
                            tee.println("FAILED: " + plan.name() + " " + variant + ": the worker JVM exited with status "
                                    + status + "; the end of its error output:");
                            errors.forEach(tee::println);
                            tee.println();
                            continue;
                        }
                        final VariantResult result = VariantResult.read(raw);
                        results.add(result);
                        tee.print(LatencyTables.summary(result));
                        tee.println();
                        final Path distribution = files.sibling("-" + variant + ".hgrm");
                        writeDistribution(distribution, result);
                        written.add(distribution);
                    } finally {
                        delete(raw);
                    }
                }
                final String ratios = LatencyTables.ratios(results);
                if (!ratios.isEmpty()) {
                    tee.print(ratios);
                    tee.println();
                }
                if (!results.isEmpty()) {
                    final Path plot = files.sibling(".png");
                    LatencyPlot.write(plot, plan.name() + ": " + plan.experiment().length() + " B at "
                            + VariantResult.formatRate(plan.experiment().rate()) + " msg/s, " + plan.runs() + " x "
                            + seconds(plan.runSeconds()) + " s, all runs, " + plan.mode().name().toLowerCase(Locale.ROOT)
                            + " mode", results);
                    written.add(plot);
                }
                text.print(appendix(results, commands));
            }
            out.println("results: " + written);
            out.println();
            return ok;
        }

        private String header() {
            final LatencyExperiment experiment = plan.experiment();
            final StringBuilder header = new StringBuilder();
            header.append(String.format(Locale.ROOT, "JLBH experiment %s (%s mode%s): %d-byte messages at %s msg/s,%n"
                            + "%d runs of %s s (%,d messages each) after %,d warm-up messages, which JLBH sends as fast"
                            + " as they go.%n",
                    plan.name(), plan.mode().name().toLowerCase(Locale.ROOT),
                    plan.mode() == JlbhArguments.Mode.FULL ? "" : ": smoke output from a shared machine, not a measurement",
                    experiment.length(), VariantResult.formatRate(experiment.rate()), plan.runs(),
                    seconds(plan.runSeconds()), plan.iterations(), plan.warmUpIterations()));
            header.append("Reproduces: ").append(experiment.source()).append(NL);
            header.append("The article's figures (other hardware, for context only): ").append(experiment.articleFigures())
                    .append(NL);
            header.append("Timed: JLBH's thread takes the message's due time (coordinated omission accounted for) and sends"
                    + " it;").append(NL).append("a reader thread busy-spins, reads the message and samples now minus the due"
                    + " time.").append(NL);
            header.append(String.format(Locale.ROOT, "Threads spinning: JLBH's sender, which busy-waits between sends,"
                            + " the reader, and any the variant adds (listed below) on %d CPUs;%n"
                            + "JLBH's OS-jitter thread is off, %s; %s wakes every %d s for progress.%n",
                    Runtime.getRuntime().availableProcessors(),
                    cores == null ? "no thread is pinned" : "pinned: " + cores, JlbhRun.MONITOR_THREAD,
                    JlbhRun.PROGRESS_INTERVAL_SECONDS));
            header.append("Each variant runs in its own JVM, one after the other, with: ")
                    .append(String.join(" ", forkFlags)).append(NL);
            header.append("Variants:").append(NL);
            for (final String variant : variants) {
                header.append(variantLine(variant));
            }
            return header.toString();
        }

        private List<String> command(final String variant, final Path raw) {
            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(forkFlags);
            if (cores != null) {
                command.add(cores.reservedAffinity());
            }
            command.add("-D" + BenchmarkDirectory.BASE_PROPERTY + "=" + benchDirectory);
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(JlbhMain.class.getName());
            final LatencyExperiment experiment = plan.experiment();
            command.addAll(JlbhMain.arguments(plan.name(), experiment.length(), experiment.rate(), plan.runs(),
                    plan.iterations(), plan.warmUpIterations(), variant, raw));
            if (cores != null) {
                command.add(CoreLayout.CORES_OPTION);
                command.add(cores.option());
            }
            return command;
        }

        /** Runs a worker, its output to the console, and keeps the end of its error output for the result file. */
        private int runWorker(final List<String> command, final Deque<String> errors) {
            final Process process;
            try {
                process = new ProcessBuilder(command).start();
            } catch (IOException e) {
                errors.add("cannot start " + command.get(0) + ": " + e.getMessage());
                return -1;
            }
            // the worker would keep spinning two CPUs if the launcher were stopped with Ctrl-C or killed
            final Thread killer = new Thread(process::destroyForcibly, "jlbh-worker-killer");
            Runtime.getRuntime().addShutdownHook(killer);
            final Thread stdout = pump(process.getInputStream(), out, null);
            final Thread stderr = pump(process.getErrorStream(), err, errors);
            try {
                final int status = process.waitFor();
                stdout.join();
                stderr.join();
                return status;
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                errors.add("interrupted while waiting for the worker");
                return -1;
            } finally {
                Runtime.getRuntime().removeShutdownHook(killer);
            }
        }

        private static Thread pump(final InputStream from, final PrintStream to, final Deque<String> keep) {
            final Thread pump = new Thread(() -> {
                try (BufferedReader lines = new BufferedReader(new InputStreamReader(from, StandardCharsets.UTF_8))) {
                    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                        to.println(line);
                        if (keep != null) {
                            synchronized (keep) {
                                keep.addLast(line);
                                if (keep.size() > ERROR_LINES) {
                                    keep.removeFirst();
                                }
                            }
                        }
                    }
                } catch (IOException e) {
                    to.println("jlbh: lost the worker's output: " + e.getMessage());
                }
            }, "jlbh-worker-output");
            pump.setDaemon(true);
            pump.start();
            return pump;
        }

        private static void writeDistribution(final Path file, final VariantResult result) {
            try (PrintStream distribution = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
                // values in microseconds: the histogram holds nanoseconds
                result.histogram().outputPercentileDistribution(distribution, 5, 1000.0);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
            }
        }

        private static String appendix(final List<VariantResult> results, final List<String> commands) {
            final StringBuilder appendix = new StringBuilder();
            appendix.append(LatencyTables.rule("======== worker JVM commands ")).append(NL);
            commands.forEach(command -> appendix.append(command).append(NL));
            appendix.append(NL);
            for (final VariantResult result : results) {
                appendix.append(LatencyTables.rule("======== " + result.variant() + ": JLBH's own output ")).append(NL);
                appendix.append("Threads of the worker JVM at the end: ").append(result.threads()).append(NL);
                appendix.append(result.jlbhLog());
                appendix.append(NL);
            }
            return appendix.toString();
        }

        private Path temporaryFile(final String variant) {
            try {
                return Files.createTempFile("jlbh-" + plan.name() + "-" + variant + "-", ".properties");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a temporary file: " + e.getMessage(), e);
            }
        }

        private static void delete(final Path file) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + file + ": " + e.getMessage(), e);
            }
        }

        private static String seconds(final double seconds) {
            return seconds == Math.rint(seconds) ? String.format(Locale.ROOT, "%.0f", seconds)
                    : String.format(Locale.ROOT, "%.2f", seconds);
        }
    }
}
