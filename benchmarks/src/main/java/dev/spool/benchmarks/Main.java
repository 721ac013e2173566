package dev.spool.benchmarks;

import dev.spool.benchmarks.cluster.ClusterCommand;
import dev.spool.benchmarks.cluster.FailoverCommand;
import dev.spool.benchmarks.demo.Demo;
import dev.spool.benchmarks.jmh.JmhLauncher;
import dev.spool.benchmarks.latency.JlbhLauncher;
import dev.spool.benchmarks.migration.ImportCommand;
import dev.spool.benchmarks.report.ReportCommand;
import dev.spool.benchmarks.startup.StartupLauncher;
import dev.spool.benchmarks.support.Usage;
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
 * {@code demo} is the main job on embedded defaults, {@code cluster} the same as a cluster whose primary is killed;
 * {@code failover} times many failovers and a cluster node's publish latency; {@code jmh} runs the throughput and allocation suite (E4);
 * {@code jlbh} runs the latency experiments (E0 to E3b) under JLBH, each variant in a JVM of its own; {@code startup}
 * times a new queue's first append; {@code import} times an import from Chronicle Queue beside a plain copy of the same
 * bytes; {@code report} writes the tables of docs/benchmarks.md from the result files.
 */
public final class Main {
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
            err.print(Usage.TEXT);
            return 2;
        }
        final String[] options = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "demo":
                return Demo.run(options, out, err);
            case "cluster":
                return ClusterCommand.run(options, out, err);
            case "failover":
                return FailoverCommand.run(options, args, out, err);
            case "jmh":
                return JmhLauncher.run(options, args, out, err);
            case "jlbh":
                return JlbhLauncher.run(options, args, out, err);
            case "all":
                return all(options, args, out, err);
            case "startup":
                return StartupLauncher.run(options, out, err);
            case "import":
                return ImportCommand.run(options, out, err);
            case "report":
                return ReportCommand.run(options, out, err);
            case "--help":
            case "-h":
            case "help":
                out.print(Usage.TEXT);
                return 0;
            default:
                err.println("unknown command '" + args[0] + "'");
                err.print(Usage.TEXT);
                return 2;
        }
    }
}
