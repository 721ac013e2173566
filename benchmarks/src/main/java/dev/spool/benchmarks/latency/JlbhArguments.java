package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariants;
import dev.spool.benchmarks.support.VariantNames;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code jlbh} command's options, and the plan they make: which experiments run, at what length, rate, number
 * and length of runs, and which variants.
 */
final class JlbhArguments {
    /** How long the runs are, unless {@code --runs}, {@code --seconds} or {@code --warmup} say otherwise. */
    enum Mode {
        /** The article's lengths; numbers worth keeping. */
        FULL("", 0, 0, 10),
        /** A few seconds a run, to look at; the result files are named {@code -short} and never committed. */
        SHORT("-short", 3, 4, 1),
        /** Tiny runs that prove every part works, for the test suite; the numbers mean nothing. */
        SMOKE("-smoke", 2, 0.25, 0.1);

        private final String suffix;
        private final int runs;
        private final double runSeconds;
        private final double warmUpSeconds;

        Mode(final String suffix, final int runs, final double runSeconds, final double warmUpSeconds) {
            this.suffix = suffix;
            this.runs = runs;
            this.runSeconds = runSeconds;
            this.warmUpSeconds = warmUpSeconds;
        }

        /** @return what result file names of this mode end with. */
        String suffix() {
            return suffix;
        }

        /** @return the option that selects this mode. */
        String option() {
            return "--" + name().toLowerCase(Locale.ROOT);
        }

        int runs(final LatencyExperiment experiment) {
            return runs == 0 ? experiment.runs() : Math.min(runs, experiment.runs());
        }

        double runSeconds(final LatencyExperiment experiment) {
            return runSeconds == 0 ? experiment.runSeconds() : runSeconds;
        }

        double warmUpSeconds() {
            return warmUpSeconds;
        }
    }

    /**
     * One experiment as it will run.
     *
     * @param experiment       the experiment, at the length and rate it runs.
     * @param mode             the mode it runs in.
     * @param runs             measured runs.
     * @param iterations       messages per run.
     * @param warmUpIterations messages before the first run, sent as fast as they go (JLBH's warm-up is unpaced).
     * @param variants         the variants that run it, in running order.
     */
    record Plan(LatencyExperiment experiment, Mode mode, int runs, int iterations, int warmUpIterations,
                List<String> variants) {
        /** @return the experiment's name. */
        String name() {
            return experiment.name();
        }

        /** @return seconds a run lasts at the experiment's rate. */
        double runSeconds() {
            return iterations / (double) experiment.rate();
        }
    }

    boolean help;
    Mode mode;
    Integer rate;
    Integer length;
    Integer runs;
    Double seconds;
    Double warmUpSeconds;
    Path benchDirectory;
    Path resultsDirectory;
    /** Whether {@code --pin} asked the launcher to choose a core for each hot thread. */
    boolean pin;
    /** The cores {@code --cores} named, or null. */
    CoreLayout cores;
    final List<String> experiments = new ArrayList<>();
    final List<String> variants = new ArrayList<>();

    private JlbhArguments() {
    }

    /**
     * @param args the options after {@code jlbh}.
     * @return the options.
     * @throws IllegalArgumentException naming the bad option.
     */
    static JlbhArguments parse(final String[] args) {
        final JlbhArguments arguments = new JlbhArguments();
        for (int i = 0; i < args.length; i++) {
            final String arg = args[i];
            switch (arg) {
                case "--help":
                case "-h":
                    arguments.help = true;
                    break;
                case "--full":
                    arguments.mode(Mode.FULL);
                    break;
                case "--short":
                    arguments.mode(Mode.SHORT);
                    break;
                case "--smoke":
                    arguments.mode(Mode.SMOKE);
                    break;
                case "--rate":
                    arguments.rate = positiveInt(arg, value(args, ++i, arg));
                    break;
                case "--size":
                    arguments.length = positiveInt(arg, value(args, ++i, arg));
                    if (arguments.length < Long.BYTES) {
                        throw new IllegalArgumentException("--size must be at least " + Long.BYTES
                                + " bytes, which hold the start time; was " + arguments.length);
                    }
                    break;
                case "--runs":
                    arguments.runs = positiveInt(arg, value(args, ++i, arg));
                    break;
                case "--seconds":
                    arguments.seconds = positiveDouble(arg, value(args, ++i, arg));
                    break;
                case "--warmup":
                    arguments.warmUpSeconds = positiveDouble(arg, value(args, ++i, arg));
                    break;
                case "--variant":
                    for (final String name : value(args, ++i, arg).split(",")) {
                        final String variant = name.trim().toLowerCase(Locale.ROOT);
                        if (!LatencyVariants.names().contains(variant)) {
                            throw new IllegalArgumentException("unknown variant '" + name + "'; the variants are "
                                    + String.join(", ", LatencyVariants.names()));
                        }
                        if (!arguments.variants.contains(variant)) {
                            arguments.variants.add(variant);
                        }
                    }
                    break;
                case "--dir":
                    arguments.benchDirectory = Paths.get(value(args, ++i, arg)).toAbsolutePath();
                    break;
                case "--results":
                    arguments.resultsDirectory = Paths.get(value(args, ++i, arg)).toAbsolutePath();
                    break;
                case CoreLayout.PIN_OPTION:
                    arguments.pin = true;
                    break;
                case CoreLayout.CORES_OPTION:
                    arguments.cores = CoreLayout.parse(value(args, ++i, arg));
                    break;
                default:
                    if (arg.startsWith("-")) {
                        throw new IllegalArgumentException("unknown option '" + arg + "'");
                    }
                    arguments.experiments.add(arg);
            }
        }
        arguments.plans();
        return arguments;
    }

    private void mode(final Mode chosen) {
        if (mode != null && mode != chosen) {
            throw new IllegalArgumentException(mode.option() + " and " + chosen.option() + " exclude each other");
        }
        mode = chosen;
    }

    /**
     * @param machine the CPUs of the machine the runs are on.
     * @return where the hot threads run: the cores {@code --cores} named, those {@code --pin} chooses, or null
     * (not pinned).
     * @throws IllegalArgumentException naming the cores asked for and those the machine has, if it cannot give them.
     */
    CoreLayout coreLayout(final CoreLayout.Cpus machine) {
        if (cores != null) {
            return cores.check(machine);
        }
        return pin ? CoreLayout.choose(machine) : null;
    }

    /** @return the mode chosen, full if none. */
    Mode mode() {
        return mode != null ? mode : Mode.FULL;
    }

    /**
     * @param experiment an experiment.
     * @return the variants of it to run, in its running order: all of them unless {@code --variant} chose some.
     */
    List<String> variants(final LatencyExperiment experiment) {
        final List<String> chosen = new ArrayList<>();
        for (final String name : experiment.variants()) {
            if (variants.isEmpty() || variants.contains(name)) {
                chosen.add(name);
            }
        }
        return chosen;
    }

    /**
     * @return the experiments to run, in running order, with every option applied; an experiment that the
     * {@code --rate} and {@code --size} options make the same as another runs once.
     * @throws IllegalArgumentException for an unknown experiment, variants that none of the experiments runs, or
     *                                  runs too long for JLBH.
     */
    List<Plan> plans() {
        final List<LatencyExperiment> chosen = new ArrayList<>();
        final List<String> names = experiments.isEmpty() ? List.of("all") : experiments;
        for (final String name : names) {
            final int before = chosen.size();
            for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
                if (name.equalsIgnoreCase("all") || name.equalsIgnoreCase(experiment.group())
                        || name.equalsIgnoreCase(experiment.name())) {
                    chosen.add(experiment);
                }
            }
            if (chosen.size() == before) {
                throw new IllegalArgumentException("unknown experiment '" + name + "'; the experiments are all, "
                        + String.join(", ", experimentNames()));
            }
        }
        final Mode mode = mode();
        final Map<String, Plan> plans = new LinkedHashMap<>();
        for (final LatencyExperiment base : chosen) {
            final List<String> running = variants(base);
            // the floor is there to divide by: alone it runs only if it is all that was asked for
            if (running.isEmpty() || running.equals(List.of(VariantNames.FLOOR)) && !variants.equals(running)) {
                continue;
            }
            final LatencyExperiment experiment = base.with(length != null ? length : base.length(),
                    rate != null ? rate : base.rate());
            final double runSeconds = seconds != null ? seconds : mode.runSeconds(base);
            final double warmUp = warmUpSeconds != null ? warmUpSeconds : mode.warmUpSeconds();
            final Plan plan = new Plan(experiment, mode, runs != null ? runs : mode.runs(base),
                    iterations(experiment.rate(), runSeconds, "--seconds"), iterations(experiment.rate(), warmUp, "--warmup"),
                    running);
            plans.putIfAbsent(plan.name(), plan);
        }
        if (plans.isEmpty()) {
            throw new IllegalArgumentException("no experiment chosen runs the variant(s) " + String.join(", ", variants)
                    + "; `jlbh --help` lists the variants of each experiment");
        }
        return new ArrayList<>(plans.values());
    }

    /** @return the messages sent in {@code seconds} at {@code rate}, at least 1. */
    private static int iterations(final int rate, final double seconds, final String option) {
        final double iterations = Math.max(1, Math.rint(rate * seconds));
        // JLBH counts a run's iterations in an int
        if (iterations > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(option + " " + seconds + " at " + rate + " msg/s is "
                    + (long) iterations + " messages, more than JLBH can count (" + Integer.MAX_VALUE + ")");
        }
        return (int) iterations;
    }

    /** @return the name of every experiment and of every group of them. */
    static List<String> experimentNames() {
        final List<String> names = new ArrayList<>();
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            if (!names.contains(experiment.group())) {
                names.add(experiment.group());
            }
            names.add(experiment.name());
        }
        return names;
    }

    private static String value(final String[] args, final int i, final String option) {
        if (i >= args.length || args[i].startsWith("-")) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int positiveInt(final String option, final String value) {
        final int parsed;
        try {
            parsed = Integer.parseInt(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number, not '" + value + "'", e);
        }
        if (parsed <= 0) {
            throw new IllegalArgumentException(option + " must be positive, was " + parsed);
        }
        return parsed;
    }

    private static double positiveDouble(final String option, final String value) {
        final double parsed;
        try {
            parsed = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a number of seconds, not '" + value + "'", e);
        }
        if (!(parsed > 0) || Double.isInfinite(parsed)) {
            throw new IllegalArgumentException(option + " must be a positive number of seconds, was " + value);
        }
        return parsed;
    }
}
