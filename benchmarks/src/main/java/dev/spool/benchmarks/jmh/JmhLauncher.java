package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.JvmFlags;
import dev.spool.benchmarks.support.MachineFacts;
import dev.spool.benchmarks.support.ResultFiles;
import dev.spool.benchmarks.support.TeeOutputStream;
import dev.spool.benchmarks.support.Usage;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.ProfilerConfig;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.runner.format.OutputFormatFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The {@code jmh} command: runs JMH through its Runner API with Spool's defaults (fork flags for this Java, the gc
 * profiler, fail on error, JSON results) under whatever JMH options the user gave, and tees JMH's text output
 * into the run's result file.
 */
public final class JmhLauncher {
    private JmhLauncher() {
    }

    /**
     * @param options     the options after {@code jmh}.
     * @param commandLine the launcher's whole argument list, for the record.
     * @param out         where JMH's output and the help go.
     * @param err         where errors go.
     * @return the exit status.
     */
    public static int run(final String[] options, final String[] commandLine, final PrintStream out, final PrintStream err) {
        final Arguments arguments;
        final CommandLineOptions jmhOptions;
        try {
            arguments = Arguments.parse(options);
            jmhOptions = new CommandLineOptions(arguments.jmhArgs.toArray(new String[0]));
        } catch (IllegalArgumentException | CommandLineOptionException e) {
            err.println(e.getMessage());
            err.print(Usage.TEXT);
            return 2;
        }
        if (arguments.help) {
            out.print(Usage.TEXT);
            return 0;
        }
        try {
            if (showInformation(jmhOptions)) {
                return 0;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        final int feature = Runtime.version().feature();
        if (jmhOptions.getJvm().hasValue()) {
            err.println("warning: -jvm " + jmhOptions.getJvm().get() + ": the forks get the flags for Java " + feature
                    + ", the Java running this launcher");
        }
        final List<String> forkFlags = JvmFlags.load().forkFlags(feature);
        final Path benchDirectory = arguments.benchDirectory != null ? arguments.benchDirectory : BenchmarkDirectory.base();
        final ResultFiles files = ResultFiles.create(
                arguments.resultsDirectory != null ? arguments.resultsDirectory : ResultFiles.defaultDirectory(),
                "jmh-" + label(jmhOptions) + (arguments.quick ? "-quick" : ""));
        final MachineFacts facts = MachineFacts.collect(commandLine, benchDirectory, forkFlags);
        files.writeFacts(facts.toJson());
        final Options runOptions = runOptions(jmhOptions, arguments, forkFlags, files.json());
        final Path plot = files.sibling(".png");
        if (arguments.quick) {
            // JMH's lock keeps two measurements off one machine; a quick run measures nothing, so it may overlap
            System.setProperty("jmh.ignoreLock", "true");
        }
        final List<Path> written = new ArrayList<>(List.of(files.text(), files.json(), files.facts()));
        try (PrintStream text = files.openText();
             PrintStream tee = new PrintStream(new TeeOutputStream(out, text), true, StandardCharsets.UTF_8)) {
            tee.print(facts.toText());
            tee.println();
            final VerboseMode verbosity = runOptions.verbosity().orElse(VerboseMode.NORMAL);
            final Collection<RunResult> results = new Runner(runOptions,
                    OutputFormatFactory.createFormatInstance(tee, verbosity)).run();
            if (JmhPlot.write(plot, "E4, JMH: " + label(jmhOptions) + (arguments.quick ? " (quick: not a measurement)" : "")
                    + ", JDK " + Runtime.version().feature(), results)) {
                written.add(plot);
            }
        } catch (NoBenchmarksException e) {
            err.println("no benchmark matches " + jmhOptions.getIncludes() + "; `jmh -l` lists them");
            files.delete();
            return 1;
        } catch (RunnerException e) {
            err.println("the benchmark run failed: " + e.getMessage() + "; see " + files.text());
            return 1;
        }
        out.println("results: " + written);
        return 0;
    }

    /** JMH's listing options, answered as JMH's own Main would. */
    private static boolean showInformation(final CommandLineOptions jmhOptions) throws IOException {
        if (jmhOptions.shouldHelp()) {
            jmhOptions.showHelp();
        } else if (jmhOptions.shouldList()) {
            new Runner(jmhOptions).list();
        } else if (jmhOptions.shouldListWithParams()) {
            new Runner(jmhOptions).listWithParams(jmhOptions);
        } else if (jmhOptions.shouldListProfilers()) {
            jmhOptions.listProfilers();
        } else if (jmhOptions.shouldListResultFormats()) {
            jmhOptions.listResultFormats();
        } else {
            return false;
        }
        return true;
    }

    /** Spool's defaults, each only where the user's JMH options leave the setting open. */
    static Options runOptions(final CommandLineOptions jmhOptions, final Arguments arguments, final List<String> forkFlags,
                              final Path json) {
        final ChainedOptionsBuilder builder = new OptionsBuilder().parent(jmhOptions);
        final List<String> append = new ArrayList<>(forkFlags);
        if (arguments.benchDirectory != null) {
            append.add("-D" + BenchmarkDirectory.BASE_PROPERTY + "=" + arguments.benchDirectory);
        }
        if (jmhOptions.getJvmArgsAppend().hasValue()) {
            // ours replace the user's in a chained builder: keep both
            append.addAll(jmhOptions.getJvmArgsAppend().get());
        }
        builder.jvmArgsAppend(append.toArray(new String[0]));
        if (arguments.gc && !hasGcProfiler(jmhOptions)) {
            builder.addProfiler(GCProfiler.class);
        }
        if (arguments.quick) {
            final TimeValue second = TimeValue.seconds(1);
            if (!jmhOptions.getWarmupIterations().hasValue()) {
                builder.warmupIterations(1);
            }
            if (!jmhOptions.getWarmupTime().hasValue()) {
                builder.warmupTime(second);
            }
            if (!jmhOptions.getMeasurementIterations().hasValue()) {
                builder.measurementIterations(1);
            }
            if (!jmhOptions.getMeasurementTime().hasValue()) {
                builder.measurementTime(second);
            }
            if (!jmhOptions.getForkCount().hasValue()) {
                builder.forks(1);
            }
        }
        if (!jmhOptions.shouldFailOnError().hasValue()) {
            // a benchmark that throws must fail the run, or a smoke test in CI passes with no result
            builder.shouldFailOnError(true);
        }
        if (!jmhOptions.getResult().hasValue() && !jmhOptions.getResultFormat().hasValue()) {
            builder.result(json.toString()).resultFormat(ResultFormatType.JSON);
        }
        return builder.build();
    }

    private static boolean hasGcProfiler(final CommandLineOptions jmhOptions) {
        for (final ProfilerConfig profiler : jmhOptions.getProfilers()) {
            if (profiler.getKlass().equals("gc") || profiler.getKlass().equals(GCProfiler.class.getName())) {
                return true;
            }
        }
        return false;
    }

    /** @return the benchmark regexes, made safe for a file name, or "all". */
    private static String label(final CommandLineOptions jmhOptions) {
        final List<String> includes = jmhOptions.getIncludes();
        if (includes.isEmpty()) {
            return "all";
        }
        final String label = String.join("+", includes).replaceAll("[^A-Za-z0-9.+_-]+", "_");
        return label.length() > 40 ? label.substring(0, 40) : label;
    }

    /** The launcher's own options; everything else is JMH's. */
    static final class Arguments {
        boolean quick;
        boolean gc = true;
        boolean help;
        Path benchDirectory;
        Path resultsDirectory;
        final List<String> jmhArgs = new ArrayList<>();

        static Arguments parse(final String[] args) {
            final Arguments arguments = new Arguments();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick":
                        arguments.quick = true;
                        break;
                    case "--no-gc":
                        arguments.gc = false;
                        break;
                    case "--help":
                        arguments.help = true;
                        break;
                    case "--dir":
                        arguments.benchDirectory = Paths.get(value(args, ++i, "--dir")).toAbsolutePath();
                        break;
                    case "--results":
                        arguments.resultsDirectory = Paths.get(value(args, ++i, "--results")).toAbsolutePath();
                        break;
                    default:
                        arguments.jmhArgs.add(args[i]);
                }
            }
            return arguments;
        }

        private static String value(final String[] args, final int i, final String option) {
            if (i >= args.length || args[i].startsWith("-")) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }
    }
}
