package dev.spool.benchmarks.migration;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.importer.ChronicleImport;
import dev.spool.importer.ImportReport;

import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The {@code import} command: writes a Chronicle Queue of {@code --megabytes} of documents of {@code --size} bytes
 * with Chronicle Queue, and a flat file of the same payload bytes; then, {@code --runs} times alternating, imports
 * the queue into a new Spool queue and copies the flat file with {@code Files.copy} (the plain copy of the same
 * bytes: no reader, no framing, no index), each into a fresh directory. Prints each run's MB/s (10^6 bytes of
 * payload a second), the minimum, median and maximum of each, and the ratio of the medians (import / copy). Both
 * read what the writer left in the page cache, so the ratio is of the work each does, not of the disk.
 */
public final class ImportCommand {
    private ImportCommand() {
    }

    /**
     * @param options {@code [--runs N] [--megabytes M] [--size B] [--dir <path>]}.
     * @param out     where the runs and the summary go.
     * @param err     where errors go.
     * @return 0 done, 1 a run failed, 2 bad options.
     */
    public static int run(final String[] options, final PrintStream out, final PrintStream err) {
        int runs = 5;
        long megabytes = 256;
        int size = 512;
        for (int i = 0; i < options.length; i++) {
            if (i + 1 >= options.length) {
                err.println(options[i] + " needs a value");
                return 2;
            }
            switch (options[i]) {
                case "--runs" -> runs = Integer.parseInt(options[++i]);
                case "--megabytes" -> megabytes = Long.parseLong(options[++i]);
                case "--size" -> size = Integer.parseInt(options[++i]);
                case "--dir" -> System.setProperty(BenchmarkDirectory.BASE_PROPERTY, options[++i]);
                default -> {
                    err.println("unknown option '" + options[i] + "' for import: --runs N, --megabytes M, --size B,"
                            + " --dir <path>");
                    return 2;
                }
            }
        }
        if (runs < 1 || megabytes < 1 || size < 1) {
            err.println("--runs, --megabytes and --size must be at least 1");
            return 2;
        }
        final BenchmarkDirectory work = BenchmarkDirectory.create("import-");
        try {
            final Path chronicle = work.path().resolve("chronicle");
            final Path flat = work.path().resolve("payloads.bin");
            final long documents = megabytes * 1_000_000 / size;
            final long bytes = write(chronicle, flat, documents, size);
            out.printf(Locale.ROOT, "%,d documents of %d bytes (%,d bytes) in %s%n", documents, size, bytes,
                    work.path());
            final double[] imports = new double[runs];
            final double[] copies = new double[runs];
            for (int run = 0; run < runs; run++) {
                final ImportReport report = ChronicleImport.from(chronicle).into(work.path().resolve("spool-" + run))
                        .run();
                if (report.bytesWritten() != bytes) {
                    err.println("import: run " + (run + 1) + " wrote " + report.bytesWritten() + " bytes, not " + bytes);
                    return 1;
                }
                imports[run] = report.megabytesPerSecond();
                final Path target = work.path().resolve("copy-" + run + ".bin");
                final long start = System.nanoTime();
                Files.copy(flat, target);
                copies[run] = bytes * 1e3 / (System.nanoTime() - start);
                out.printf(Locale.ROOT, "run %2d: import %8.1f MB/s   plain copy %8.1f MB/s%n", run + 1, imports[run],
                        copies[run]);
                deleteTree(work.path().resolve("spool-" + run));
                Files.delete(target);
            }
            out.println();
            out.printf(Locale.ROOT, "import     MB/s min / median / max: %8.1f / %8.1f / %8.1f%n", min(imports),
                    median(imports), max(imports));
            out.printf(Locale.ROOT, "plain copy MB/s min / median / max: %8.1f / %8.1f / %8.1f%n", min(copies),
                    median(copies), max(copies));
            out.printf(Locale.ROOT, "import / plain copy (medians): %.2f x (goal: at least 0.5 x)%n",
                    median(imports) / median(copies));
            return 0;
        } catch (IOException e) {
            err.println("import: " + e.getMessage());
            return 1;
        } finally {
            work.delete();
        }
    }

    /** Writes the Chronicle Queue, and the same payloads one after another into {@code flat}; returns their bytes. */
    private static long write(final Path chronicle, final Path flat, final long documents, final int size)
            throws IOException {
        final byte[] payload = new byte[size];
        final SplittableRandom random = new SplittableRandom(1);
        long bytes = 0;
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(chronicle).build();
             ExcerptAppender appender = queue.createAppender();
             OutputStream out = Files.newOutputStream(flat)) {
            for (long i = 0; i < documents; i++) {
                random.nextBytes(payload);
                try (DocumentContext document = appender.writingDocument()) {
                    document.wire().bytes().write(payload);
                }
                out.write(payload);
                bytes += size;
            }
        }
        return bytes;
    }

    private static void deleteTree(final Path directory) throws IOException {
        try (var paths = Files.walk(directory)) {
            for (final Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static double min(final double[] values) {
        return Arrays.stream(values).min().orElse(0);
    }

    private static double max(final double[] values) {
        return Arrays.stream(values).max().orElse(0);
    }

    private static double median(final double[] values) {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
