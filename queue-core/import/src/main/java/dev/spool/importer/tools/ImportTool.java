package dev.spool.importer.tools;

import dev.spool.importer.ChronicleBridge;
import dev.spool.importer.ChronicleImport;
import dev.spool.importer.ImportReport;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;

import org.agrona.concurrent.BackoffIdleStrategy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The {@code Main-Class} of {@code queue-import-VERSION-cli.jar}:
 * <pre>
 * spool import CHRONICLE_DIR SPOOL_DIR [--roll-cycle CYCLE] [--no-index-times]
 * spool bridge CHRONICLE_DIR SPOOL_DIR [--roll-cycle CYCLE] [--no-index-times]
 * </pre>
 * {@code import} copies what the Chronicle Queue holds and prints the report; {@code bridge} follows its writer until
 * stopped (Ctrl-C), printing its progress every few seconds. Both resume where an earlier run stopped. Exit status:
 * 0 done, 1 failed, 2 usage error.
 */
public final class ImportTool {
    private static final long PROGRESS_INTERVAL_MILLIS = 5_000;

    private ImportTool() {
    }

    /**
     * Runs one command and exits with its status.
     *
     * @param args the command and its arguments.
     */
    public static void main(final String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        // Chronicle's read-only open adopts the roll cycle the queue's metadata holds and says so at WARN each time:
        // the expected case here, not news for the user
        final String metadataLogger = "org.slf4j.simpleLogger.log.net.openhft.chronicle.queue.impl.single.SCQMeta";
        if (System.getProperty(metadataLogger) == null) {
            System.setProperty(metadataLogger, "error");
        }
        final AtomicBoolean stop = new AtomicBoolean();
        final CountDownLatch done = new CountDownLatch(1);
        final Thread hook = new Thread(() -> {
            stop.set(true);
            try {
                done.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "spool-import-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        final int status;
        try {
            status = run(args, System.out, System.err, stop::get);
        } finally {
            done.countDown();
        }
        System.out.flush();
        System.exit(status);
    }

    /**
     * Runs one command.
     *
     * @param args the command and its arguments.
     * @param out  receives the report.
     * @param err  receives usage and error messages.
     * @param stop polled by {@code bridge}: true ends it.
     * @return the exit status: 0, 1 or 2.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err, final BooleanSupplier stop) {
        final PrintWriter errWriter = new PrintWriter(err, true);
        final CommandLine commandLine = new CommandLine(new Spool())
                .addSubcommand(new Import(out))
                .addSubcommand(new Bridge(out, stop));
        commandLine.setOut(new PrintWriter(out, true)).setErr(errWriter)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler((e, arguments) -> {
                    errWriter.println("spool: " + e.getMessage());
                    e.getCommandLine().usage(errWriter);
                    return 2;
                })
                .setExecutionExceptionHandler((e, line, result) -> {
                    if (e instanceof SpoolException || e instanceof IllegalStateException
                            || e instanceof IllegalArgumentException) {
                        errWriter.println("spool: " + e.getMessage());
                        return 1;
                    }
                    throw e;
                });
        return commandLine.execute(args);
    }

    /** The top-level command: it only names the subcommands. */
    @Command(name = "spool", synopsisSubcommandLabel = "(import | bridge)",
            description = "From Chronicle Queue to Spool: `spool` stands for `java -jar queue-import-VERSION-cli.jar`.",
            footer = "%nExit status: 0 done, 1 failed, 2 usage error. `spool <command> --help` describes a command.")
    static final class Spool implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Prints this help.")
        boolean help;

        @Override
        public Integer call() {
            throw new ParameterException(spec.commandLine(), "no command: import or bridge");
        }
    }

    /** The options both commands take. */
    abstract static class Common {
        @Parameters(index = "0", paramLabel = "<chronicleDir>", description = "The Chronicle Queue's directory.")
        Path chronicle;
        @Parameters(index = "1", paramLabel = "<spoolDir>", description = "The Spool queue: created if absent,"
                + " resumed if an earlier run wrote it.")
        Path spool;
        @Option(names = "--roll-cycle", paramLabel = "CYCLE", description = "The new Spool queue's roll cycle"
                + " (${COMPLETION-CANDIDATES}); default: the one nearest Chronicle's.")
        RollCycle rollCycle;
        @Option(names = "--no-index-times", description = "Create the Spool queue without index times.")
        boolean noIndexTimes;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Prints this help.")
        boolean help;

        ChronicleImport configured() {
            final ChronicleImport chronicleImport = ChronicleImport.from(chronicle).into(spool)
                    .indexTimes(!noIndexTimes);
            return rollCycle == null ? chronicleImport : chronicleImport.rollCycle(rollCycle);
        }
    }

    @Command(name = "import", description = "Copies every document of a Chronicle Queue into a Spool queue, in"
            + " order and byte for byte, and prints what it did. Resumes where an earlier run stopped.")
    static final class Import extends Common implements Callable<Integer> {
        private final PrintStream out;

        Import(final PrintStream out) {
            this.out = out;
        }

        @Override
        public Integer call() {
            final ImportReport report = configured().run();
            out.print(report);
            return 0;
        }
    }

    @Command(name = "bridge", description = "Follows a Chronicle Queue another process appends to, copying each"
            + " document into a Spool queue as it comes, until stopped (Ctrl-C). Resumes where an earlier run stopped.")
    static final class Bridge extends Common implements Callable<Integer> {
        private final PrintStream out;
        private final BooleanSupplier stop;

        Bridge(final PrintStream out, final BooleanSupplier stop) {
            this.out = out;
            this.stop = stop;
        }

        @Override
        public Integer call() throws InterruptedException {
            try (ChronicleBridge bridge = configured().startBridge(new BackoffIdleStrategy(100, 100, 1_000,
                    1_000_000))) {
                out.printf("bridging %s to %s; Ctrl-C stops%n", chronicle, spool);
                long waited = 0;
                while (!stop.getAsBoolean() && bridge.metrics().isRunning()) {
                    TimeUnit.MILLISECONDS.sleep(100);
                    waited += 100;
                    if (waited >= PROGRESS_INTERVAL_MILLIS) {
                        waited = 0;
                        progress(bridge);
                    }
                }
                progress(bridge);
                if (bridge.errorCount() > 0) {
                    throw new IllegalStateException("bridge stopped: " + bridge.lastError());
                }
                return 0;
            }
        }

        private void progress(final ChronicleBridge bridge) {
            out.printf("copied %,d documents (%,d bytes); last Chronicle index 0x%x at Spool index 0x%x; lag %,d%n",
                    bridge.metrics().getDocumentsCopied(), bridge.metrics().getBytesCopied(),
                    bridge.metrics().getLastChronicleIndex(), bridge.metrics().getLastSpoolIndex(),
                    bridge.metrics().getLagDocuments());
        }
    }
}
