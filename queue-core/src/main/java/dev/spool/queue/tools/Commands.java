package dev.spool.queue.tools;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.ReplicaRepair;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * {@link SpoolTool}'s command line, declared for picocli: the {@code spool} command and its five subcommands, each
 * a check that its directory holds a queue, then the tool that does the work.
 */
final class Commands {
    private static final String EXIT_CODES = "%nExit status:%n";

    private Commands() {
    }

    /**
     * @param out  receives the commands' output.
     * @param err  receives {@code tail}'s errors.
     * @param stop polled by {@code tail -f}.
     * @return the {@code spool} command with its subcommands.
     */
    static CommandLine commandLine(final PrintStream out, final PrintStream err, final BooleanSupplier stop) {
        final CommandLine commandLine = new CommandLine(new Spool())
                .addSubcommand(new Dump(out))
                .addSubcommand(new Tail(out, err, stop))
                .addSubcommand(new Stats(out))
                .addSubcommand(new Verify(out))
                .addSubcommand(new Repair(out));
        for (final CommandLine subcommand : commandLine.getSubcommands().values()) {
            // a subcommand's header is its line in the command list; its own help starts with the usage line
            final List<String> sections = new ArrayList<>(subcommand.getHelpSectionKeys());
            sections.removeAll(List.of(CommandLine.Model.UsageMessageSpec.SECTION_KEY_HEADER_HEADING,
                    CommandLine.Model.UsageMessageSpec.SECTION_KEY_HEADER));
            subcommand.setHelpSectionKeys(sections);
        }
        // registered after the subcommands, so that it reaches them
        commandLine.registerConverter(From.class, text -> {
            try {
                return From.parse(text);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        });
        return commandLine;
    }

    /** The top-level command: it only names the subcommands. */
    @Command(name = "spool", synopsisHeading = "usage: ", customSynopsis = "spool <command> <queueDir> [options]",
            description = "Inspects, follows and checks a Spool queue. `spool` stands for "
                    + "`java -jar queue-core-VERSION-cli.jar`, the jar that carries the JVM flags it needs.",
            commandListHeading = "%nCommands:%n",
            footer = {"%nSTART (--from) is " + From.FORMS + " (a time needs a queue created with indexTimes).",
                    "`spool <command> --help` describes a command."},
            exitCodeListHeading = EXIT_CODES,
            exitCodeList = {"0:ok", "1:damage found, or the command failed", "2:usage error, or no queue at the path"})
    static final class Spool implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Prints this help to standard output.")
        boolean help;

        /** What stands where a command should: a command picocli does not know, said so in its words. */
        @Parameters(hidden = true)
        List<String> unknown = List.of();

        @Override
        public Integer call() {
            throw new ParameterException(spec.commandLine(), unknown.isEmpty() ? "no command"
                    : "unknown command '" + unknown.get(0) + "'");
        }
    }

    /** The queue directory every subcommand takes, its help option, and the check that a queue is there. */
    static final class QueueDirectory {
        @Spec(Spec.Target.MIXEE)
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "<queueDir>", description = "The queue's directory.")
        Path directory;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Prints this help to standard output.")
        boolean help;

        /** @return true if the directory holds a queue; else false, once the reason is printed. */
        boolean holdsQueue() {
            if (QueueFiles.isQueue(directory)) {
                return true;
            }
            spec.commandLine().getErr().println("spool: no Spool queue at " + directory + ": "
                    + (Files.isDirectory(directory) ? "the directory has no " + MetadataDescriptor.FILE_NAME
                    : Files.exists(directory) ? "it is a file, not a directory" : "the directory does not exist"));
            return false;
        }
    }

    @Command(name = "dump", synopsisHeading = "usage: ", header = "Shows the files: metadata, cycle headers, excerpts.",
            description = "Metadata, then every cycle file's header, root index and excerpts: position, header, kind, "
                    + "index, length and the first 64 payload bytes (--full: all of them); typed excerpts also as calls "
                    + "with field names and values. Reads the files, never opens the queue (but for a START that is a "
                    + "time), so it shows a damaged queue up to the damage.",
            exitCodeListHeading = EXIT_CODES,
            exitCodeList = {"0:ok", "1:damage found, or START names no excerpt", "2:usage error, or no queue at the path"})
    static final class Dump implements Callable<Integer> {
        private final PrintStream out;
        @Mixin
        QueueDirectory queue;
        @Option(names = "--from", paramLabel = "START", description = "The first excerpt to show (default: start).")
        From from = From.START;
        @Option(names = "--limit", paramLabel = "N", description = "Shows at most N excerpts.")
        long limit = Long.MAX_VALUE;
        @Option(names = "--full", description = "Shows whole payloads.")
        boolean full;

        Dump(final PrintStream out) {
            this.out = out;
        }

        @Override
        public Integer call() {
            if (limit < 0) {
                throw new ParameterException(queue.spec.commandLine(), "bad count '" + limit + "' for --limit: expected 0 or more");
            }
            if (!queue.holdsQueue()) {
                return SpoolTool.EXIT_USAGE;
            }
            final QueueFiles files = QueueFiles.read(queue.directory);
            return new QueueDumper(files, out, firstIndex(files), limit, full).dump() ? SpoolTool.EXIT_OK : SpoolTool.EXIT_FAILED;
        }

        /** @return the index of the first excerpt to show: -1 for all, {@link Long#MAX_VALUE} for none. */
        private long firstIndex(final QueueFiles files) {
            final RollCycle rollCycle = files.rollCycle();
            if (from.kind() == From.Kind.START || rollCycle == null) {
                // with an unknown roll cycle the dump lists no cycle file, and says why
                return -1;
            }
            if (from.kind() == From.Kind.END) {
                return Long.MAX_VALUE;
            }
            if (from.kind() == From.Kind.TIME) {
                return firstIndexAtTime();
            }
            final long index = from.index(rollCycle);
            final IndexRange range = IndexRange.scan(files, rollCycle);
            if (!range.holds(index)) {
                throw new SpoolException(From.noExcerpt(index, rollCycle, queue.directory, range.first(), range.last()));
            }
            return index;
        }

        /**
         * The files alone cannot answer a time: the queue's time index can, so only this form opens the queue, read
         * only, as {@code tail} does.
         */
        private long firstIndexAtTime() {
            try (SpoolQueue opened = SpoolQueue.builder(queue.directory).readOnly().open();
                 ExcerptTailer tailer = opened.createTailer()) {
                tailer.moveToTime(from.time());
                final long[] first = {Long.MAX_VALUE};
                tailer.read((bytes, offset, length, index) -> first[0] = index);
                return first[0];
            }
        }
    }

    @Command(name = "tail", synopsisHeading = "usage: ", header = "Prints the excerpts; -f follows new ones.",
            description = "One line per excerpt: index<TAB>length<TAB>payload, the payload as a typed call, as UTF-8 "
                    + "text if printable, else 0x and hex; the index as 0x<hex> (cycle <cycle> seq <seq>), as everywhere "
                    + "in Spool. Reads through an ordinary tailer, as an application does.",
            exitCodeListHeading = EXIT_CODES,
            exitCodeList = {"0:ok", "1:START names no excerpt, or the command failed", "2:usage error, or no queue at the path"})
    static final class Tail implements Callable<Integer> {
        private final PrintStream out;
        private final PrintStream err;
        private final BooleanSupplier stop;
        @Mixin
        QueueDirectory queue;
        @Option(names = {"-f", "--follow"}, description = "Follows new excerpts until interrupted (Ctrl-C).")
        boolean follow;
        @Option(names = "--from", paramLabel = "START", description = "The first excerpt to print (default: start).")
        From from = From.START;

        Tail(final PrintStream out, final PrintStream err, final BooleanSupplier stop) {
            this.out = out;
            this.err = err;
            this.stop = stop;
        }

        @Override
        public Integer call() {
            if (!queue.holdsQueue()) {
                return SpoolTool.EXIT_USAGE;
            }
            return new QueueTail(queue.directory, out).tail(from, follow, stop, err);
        }
    }

    @Command(name = "stats", synopsisHeading = "usage: ", header = "Counts cycles, excerpts, bytes; named tailers' lag.",
            description = "Cycles, excerpts and bytes per cycle file and in total; the first and last index; named "
                    + "tailers and their lag.",
            exitCodeListHeading = EXIT_CODES,
            exitCodeList = {"0:ok", "1:a file could not be walked to its end", "2:usage error, or no queue at the path"})
    static final class Stats implements Callable<Integer> {
        private final PrintStream out;
        @Mixin
        QueueDirectory queue;

        Stats(final PrintStream out) {
            this.out = out;
        }

        @Override
        public Integer call() {
            if (!queue.holdsQueue()) {
                return SpoolTool.EXIT_USAGE;
            }
            return new QueueStats(QueueFiles.read(queue.directory), out).print() ? SpoolTool.EXIT_OK : SpoolTool.EXIT_FAILED;
        }
    }

    @Command(name = "verify", synopsisHeading = "usage: ", header = "Checks every header, excerpt and index entry.",
            description = "Checks every header, excerpt and index entry without trusting the tailer; prints "
                    + "'OK: N cycles, M excerpts', or 'DAMAGE <file> position=<p>: <what>' for each problem.",
            exitCodeListHeading = EXIT_CODES,
            exitCodeList = {"0:no damage", "1:damage found", "2:usage error, or no queue at the path"})
    static final class Verify implements Callable<Integer> {
        private final PrintStream out;
        @Mixin
        QueueDirectory queue;

        Verify(final PrintStream out) {
            this.out = out;
        }

        @Override
        public Integer call() {
            if (!queue.holdsQueue()) {
                return SpoolTool.EXIT_USAGE;
            }
            return new QueueVerifier(QueueFiles.read(queue.directory), out).verify() ? SpoolTool.EXIT_OK : SpoolTool.EXIT_FAILED;
        }
    }

    @Command(name = "repair", synopsisHeading = "usage: ", header = "Rewrites damaged excerpts with a copy's verified bytes.",
            description = "Finds the excerpts whose CRC32C fails and the data headers no writer produces (or takes "
                    + "--range), reads the same indices from a copy of the queue (a replica's directory, a backup; or, "
                    + "with --replica, a running replica's sink over the authenticated replication protocol, which "
                    + "needs queue-replication's cli jar) and rewrites each damaged excerpt in place when the copy's bytes pass their own CRC32C and have the "
                    + "stored length, crash-safely (a journal the next writer finishes). A range that cannot be proven "
                    + "right is refused, naming it and why, with nothing of it written. Needs a queue created with "
                    + "checksums. Prints 'REPAIRED <from>..<to>: ...' for each range, then 'OK: ...' or the damage left. "
                    + "With --replica, a queue a scan finds undamaged (within --range, if given) is left alone and the "
                    + "replica is not contacted ('nothing was damaged, so the replica at ... was not contacted'); when "
                    + "there is damage, a replica that cannot be reached within 10 s of retries fails the repair, "
                    + "naming the attempts and the last cause.",
            exitCodeListHeading = EXIT_CODES,
            exitCodeList = {"0:no damage left", "1:a repair was refused, or damage is left",
                    "2:usage error, or no queue at a path"})
    static final class Repair implements Callable<Integer> {
        private final PrintStream out;
        @Mixin
        QueueDirectory queue;
        @Option(names = "--copy", paramLabel = "DIR",
                description = "A copy of the queue to take the bytes from: a replica's directory, or a backup.")
        Path copy;
        @Option(names = "--replica", paramLabel = "HOST:PORT",
                description = "Instead of --copy: the address a replica's sink listens on, to fetch the bytes from "
                        + "over the network (queue-replication's cli jar only).")
        String replica;
        @Option(names = "--secret-file", paramLabel = "FILE",
                description = "With --replica: the file whose bytes are the replicas' shared secret.")
        Path secretFile;
        @Option(names = "--insecure", description = "With --replica: the sink has no shared secret.")
        boolean insecure;
        @Option(names = "--range", paramLabel = "FROM..TO",
                description = "Repairs these indices only (0x<hex>, decimal or <cycle>:<seq>, TO inclusive); default: "
                        + "every damaged range a scan finds.")
        String range;

        Repair(final PrintStream out) {
            this.out = out;
        }

        @Override
        public Integer call() {
            if ((copy == null) == (replica == null)) {
                throw new ParameterException(queue.spec.commandLine(), "give one of --copy DIR or --replica HOST:PORT");
            }
            if (replica != null && (secretFile == null) == !insecure) {
                throw new ParameterException(queue.spec.commandLine(), "--replica needs one of --secret-file FILE or"
                        + " --insecure");
            }
            if (!queue.holdsQueue()) {
                return SpoolTool.EXIT_USAGE;
            }
            if (copy != null && !QueueFiles.isQueue(copy)) {
                queue.spec.commandLine().getErr().println("spool: no Spool queue at " + copy + " (--copy)");
                return SpoolTool.EXIT_USAGE;
            }
            long from = -1;
            long to = -1;
            if (range != null) {
                final String[] ends = range.split("\\.\\.", -1);
                final RollCycle rollCycle = QueueFiles.read(queue.directory).rollCycle();
                if (ends.length != 2 || rollCycle == null) {
                    throw new ParameterException(queue.spec.commandLine(), "bad range '" + range + "' for --range: expected FROM..TO");
                }
                from = indexOf(ends[0], rollCycle);
                to = indexOf(ends[1], rollCycle);
                if (to < from) {
                    throw new ParameterException(queue.spec.commandLine(), "bad range '" + range + "' for --range: TO is before FROM");
                }
            }
            final QueueRepairTool tool = new QueueRepairTool(queue.directory, out);
            if (copy != null) {
                return tool.repair(copy, from, to) ? SpoolTool.EXIT_OK : SpoolTool.EXIT_FAILED;
            }
            final ReplicaRepair network = ServiceLoader.load(ReplicaRepair.class).findFirst().orElse(null);
            if (network == null) {
                queue.spec.commandLine().getErr().println("spool: repair --replica needs queue-replication's cli jar"
                        + " (queue-replication-VERSION-cli.jar), which holds the replication protocol; this jar"
                        + " repairs from a --copy only");
                return SpoolTool.EXIT_USAGE;
            }
            final byte[] secret;
            try {
                secret = secretFile == null ? null : Files.readAllBytes(secretFile);
            } catch (IOException e) {
                queue.spec.commandLine().getErr().println("spool: cannot read the secret file " + secretFile + ": " + e);
                return SpoolTool.EXIT_USAGE;
            }
            return tool.repair(network, replica, secret, from, to) ? SpoolTool.EXIT_OK : SpoolTool.EXIT_FAILED;
        }

        private long indexOf(final String text, final RollCycle rollCycle) {
            final From end;
            try {
                end = From.parse(text);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(queue.spec.commandLine(), "bad index '" + text + "' in --range: " + e.getMessage());
            }
            if (end.kind() != From.Kind.INDEX && end.kind() != From.Kind.CYCLE_SEQUENCE) {
                throw new ParameterException(queue.spec.commandLine(), "bad index '" + text + "' in --range: expected 0x<hex>,"
                        + " a decimal index or <cycle>:<seq>");
            }
            return end.index(rollCycle);
        }
    }
}
