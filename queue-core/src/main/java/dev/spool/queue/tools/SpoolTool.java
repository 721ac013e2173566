package dev.spool.queue.tools;

import dev.spool.queue.SpoolException;
import dev.spool.queue.format.MetadataDescriptor;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The command-line tool: inspect, follow and check a queue.
 * <pre>
 * java -jar queue-core-VERSION-cli.jar dump   QUEUE_DIR [--from INDEX] [--limit N] [--full]
 * java -jar queue-core-VERSION-cli.jar tail   QUEUE_DIR [-f] [--from INDEX|start|end]
 * java -jar queue-core-VERSION-cli.jar stats  QUEUE_DIR
 * java -jar queue-core-VERSION-cli.jar verify QUEUE_DIR
 * </pre>
 * {@code dump}, {@code stats} and {@code verify} read the files with plain reads and never open the queue, so they
 * work on a damaged queue, cannot fault on any byte pattern, and change nothing on disk. {@code tail} reads through
 * an ordinary tailer, which is what an application sees. Exit status: 0 when all is well, 1 when {@code verify}
 * finds damage or a command cannot do its work, 2 for a usage error or a directory that holds no queue.
 */
public final class SpoolTool {
    /** Exit status: done, nothing wrong. */
    public static final int EXIT_OK = 0;
    /** Exit status: damage found, or the command failed. */
    public static final int EXIT_FAILED = 1;
    /** Exit status: bad arguments, or not a queue. */
    public static final int EXIT_USAGE = 2;

    private static final String USAGE = """
            usage: spool <command> <queueDir> [options]
              dump   <queueDir> [--from INDEX] [--limit N] [--full]
                     metadata, then every cycle file's header, root index and excerpts: position, header, kind,
                     index, length and the first 64 payload bytes (--full: all of them)
              tail   <queueDir> [-f] [--from INDEX|start|end]
                     one line per excerpt: index<TAB>length<TAB>payload (UTF-8 text if printable, else 0x and hex);
                     the index as 0x<hex> (cycle <cycle> seq <sequence>), as everywhere in Spool;
                     -f follows new excerpts until interrupted; --from defaults to start
              stats  <queueDir>
                     cycles, excerpts and bytes per cycle file and in total; named tailers and their lag
              verify <queueDir>
                     checks every header, excerpt and index entry without trusting the tailer; prints
                     'OK: N cycles, M excerpts', or 'DAMAGE <file> position=<p>: <what>' for each problem
            INDEX is decimal, or hexadecimal after 0x.
            exit status: 0 ok, 1 damage found or command failed, 2 usage error or not a queue""";

    private SpoolTool() {
    }

    /**
     * Runs one command and exits with its status. Ctrl-C (SIGINT) ends {@code tail -f} cleanly: the queue is
     * closed before the JVM exits.
     *
     * @param args the command and its arguments; {@code --help} prints the usage.
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
        final Arguments arguments;
        try {
            arguments = Arguments.parse(args);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null) {
                err.println("spool: " + e.getMessage());
            }
            err.println(USAGE);
            return EXIT_USAGE;
        }
        if (!QueueFiles.isQueue(arguments.directory)) {
            err.println("spool: not a Spool queue: " + arguments.directory + " has no " + MetadataDescriptor.FILE_NAME);
            return EXIT_USAGE;
        }
        try {
            final boolean ok = switch (arguments.command) {
                case "dump" -> new QueueDumper(QueueFiles.read(arguments.directory), out, arguments.from == null ? -1
                        : parseIndex(arguments.from), arguments.limit, arguments.full).dump();
                case "stats" -> new QueueStats(QueueFiles.read(arguments.directory), out).print();
                case "verify" -> new QueueVerifier(QueueFiles.read(arguments.directory), out).verify();
                case "tail" -> new QueueTail(arguments.directory, out).tail(arguments.from == null ? "start" : arguments.from,
                        arguments.follow, stop, err) == EXIT_OK;
                default -> throw new IllegalStateException("unhandled command " + arguments.command);
            };
            out.flush();
            return ok ? EXIT_OK : EXIT_FAILED;
        } catch (SpoolException | IllegalStateException | UncheckedIOException e) {
            out.flush();
            err.println("spool: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    /**
     * @param text decimal, or hexadecimal after {@code 0x}.
     * @return the index.
     * @throws IllegalArgumentException if it is not a non-negative number.
     */
    static long parseIndex(final String text) {
        try {
            final long index = text.startsWith("0x") || text.startsWith("0X") ? Long.parseLong(text.substring(2), 16)
                    : Long.parseLong(text);
            if (index >= 0) {
                return index;
            }
        } catch (NumberFormatException e) {
            // reported below, with the text
        }
        throw new IllegalArgumentException("bad index '" + text + "': expected a decimal number, or hexadecimal after 0x");
    }

    /** The parsed command line. */
    private static final class Arguments {
        String command;
        Path directory;
        String from;
        long limit = Long.MAX_VALUE;
        boolean full;
        boolean follow;

        /** @throws IllegalArgumentException with the problem, or no message for {@code --help}. */
        static Arguments parse(final String[] args) {
            final Arguments parsed = new Arguments();
            if (args.length == 0) {
                throw new IllegalArgumentException("no command");
            }
            for (final String arg : args) {
                if (arg.equals("--help") || arg.equals("-h")) {
                    throw new IllegalArgumentException();
                }
            }
            parsed.command = args[0];
            if (!parsed.command.equals("dump") && !parsed.command.equals("tail") && !parsed.command.equals("stats")
                    && !parsed.command.equals("verify")) {
                throw new IllegalArgumentException("unknown command '" + parsed.command + "'");
            }
            for (int i = 1; i < args.length; i++) {
                final String arg = args[i];
                switch (arg) {
                    case "--from" -> parsed.from = value(args, ++i, parsed.command, "dump", "tail");
                    case "--limit" -> parsed.limit = count(value(args, ++i, parsed.command, "dump"));
                    case "--full" -> parsed.full = flag(arg, parsed.command, "dump");
                    case "-f", "--follow" -> parsed.follow = flag(arg, parsed.command, "tail");
                    default -> {
                        if (arg.startsWith("-") || parsed.directory != null) {
                            throw new IllegalArgumentException("unexpected argument '" + arg + "' for " + parsed.command);
                        }
                        parsed.directory = Path.of(arg);
                    }
                }
            }
            if (parsed.directory == null) {
                throw new IllegalArgumentException(parsed.command + " needs a queue directory");
            }
            final boolean named = parsed.command.equals("tail") && ("start".equals(parsed.from) || "end".equals(parsed.from));
            if (parsed.from != null && !named) {
                // a bad index is a usage error, found before any file is opened
                parseIndex(parsed.from);
            }
            return parsed;
        }

        /** @return the value of the option at {@code args[i - 1]}, which only {@code commands} take. */
        private static String value(final String[] args, final int i, final String command, final String... commands) {
            flag(args[i - 1], command, commands);
            if (i >= args.length) {
                throw new IllegalArgumentException(args[i - 1] + " needs a value");
            }
            return args[i];
        }

        /** @return true, if {@code option} is one of {@code commands}' options. */
        private static boolean flag(final String option, final String command, final String... commands) {
            for (final String allowed : commands) {
                if (allowed.equals(command)) {
                    return true;
                }
            }
            throw new IllegalArgumentException(option + " does not apply to " + command);
        }

        private static long count(final String text) {
            try {
                final long count = Long.parseLong(text);
                if (count >= 0) {
                    return count;
                }
            } catch (NumberFormatException e) {
                // reported below, with the text
            }
            throw new IllegalArgumentException("bad count '" + text + "': expected a number, 0 or more");
        }
    }
}
