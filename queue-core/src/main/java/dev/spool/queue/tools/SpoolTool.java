package dev.spool.queue.tools;

import dev.spool.queue.SpoolException;

import picocli.CommandLine;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The command-line tool, {@code spool}: inspect, follow and check a queue. It is the {@code Main-Class} of
 * {@code queue-core-VERSION-cli.jar}, which bundles picocli (the command-line parser) with the library; the
 * library itself does not depend on picocli.
 * <pre>
 * spool dump   QUEUE_DIR [--from START] [--limit N] [--full]
 * spool tail   QUEUE_DIR [-f] [--from START]
 * spool stats  QUEUE_DIR
 * spool verify QUEUE_DIR
 * spool repair QUEUE_DIR --copy COPY_DIR [--range FROM..TO]
 * spool [COMMAND] --help
 * </pre>
 * {@code START} is one of the forms {@code start}, {@code end}, an index ({@code 0x<hex>} or decimal),
 * {@code <cycle>:<seq>} or an ISO-8601 time; see {@code docs/operations/cli.md}.
 * {@code dump}, {@code stats} and {@code verify} read the files with plain reads and never open the queue, so they
 * work on a damaged queue, cannot fault on any byte pattern, and change nothing on disk. {@code tail} reads through
 * an ordinary tailer, which is what an application sees. {@code repair} opens the queue to write the damaged
 * excerpts it can prove, and nothing else. Exit status: 0 when all is well, 1 when {@code verify}
 * finds damage or a command cannot do its work, 2 for a usage error or a directory that holds no queue.
 */
public final class SpoolTool {
    /** Exit status: done, nothing wrong. */
    public static final int EXIT_OK = 0;
    /** Exit status: damage found, or the command failed. */
    public static final int EXIT_FAILED = 1;
    /** Exit status: bad arguments, or not a queue. */
    public static final int EXIT_USAGE = 2;

    private SpoolTool() {
    }

    /**
     * Runs one command and exits with its status. Ctrl-C (SIGINT) ends {@code tail -f} cleanly: the queue is
     * closed before the JVM exits.
     *
     * @param args the command and its arguments; {@code --help} prints the usage to standard output.
     */
    public static void main(final String[] args) {
        // Chronicle logs its start-up at info level through whatever SLF4J provider is present; a tool's output is
        // its result, so only warnings get through unless the user asks for more with -D
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        final AtomicBoolean stop = new AtomicBoolean();
        final CountDownLatch done = new CountDownLatch(1);
        // a stop flag, not an interrupt: an interrupt that lands inside a FileChannel call closes the channel
        final Thread hook = new Thread(() -> {
            stop.set(true);
            try {
                done.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "spool-tool-shutdown");
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
     * Runs one command. {@code tail -f} runs until the calling thread is interrupted.
     *
     * @param args the command and its arguments.
     * @param out  receives the command's output.
     * @param err  receives usage and error messages.
     * @return the exit status: {@value #EXIT_OK}, {@value #EXIT_FAILED} or {@value #EXIT_USAGE}.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err) {
        return run(args, out, err, () -> false);
    }

    /**
     * Runs one command.
     *
     * @param args the command and its arguments.
     * @param out  receives the command's output.
     * @param err  receives usage and error messages.
     * @param stop polled by {@code tail -f}: true, or an interrupt of the calling thread, ends it.
     * @return the exit status: {@value #EXIT_OK}, {@value #EXIT_FAILED} or {@value #EXIT_USAGE}.
     */
    static int run(final String[] args, final PrintStream out, final PrintStream err, final BooleanSupplier stop) {
        final PrintWriter outWriter = new PrintWriter(out, true);
        final PrintWriter errWriter = new PrintWriter(err, true);
        final CommandLine commandLine = Commands.commandLine(out, err, stop);
        commandLine.setOut(outWriter).setErr(errWriter)
                .setParameterExceptionHandler((e, arguments) -> {
                    errWriter.println("spool: " + e.getMessage());
                    e.getCommandLine().usage(errWriter);
                    return EXIT_USAGE;
                })
                .setExecutionExceptionHandler((e, line, result) -> {
                    // what the tools throw for a queue they cannot read or a start that names nothing
                    if (e instanceof SpoolException || e instanceof IllegalStateException
                            || e instanceof IllegalArgumentException || e instanceof UncheckedIOException) {
                        out.flush();
                        errWriter.println("spool: " + e.getMessage());
                        return EXIT_FAILED;
                    }
                    throw e;
                });
        try {
            return commandLine.execute(args);
        } finally {
            outWriter.flush();
            errWriter.flush();
        }
    }
}
