package dev.spool.benchmarks.report;

import dev.spool.benchmarks.support.ResultFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

/**
 * The {@code report} command: regenerates the tables of docs/benchmarks.md from the result files they name, or with
 * {@code --check} changes nothing and fails naming each table that differs from its result file. It runs no
 * benchmark.
 */
public final class ReportCommand {
    /** The command's help text, ending in a line separator. */
    public static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar benchmarks.jar report [--check] [--page <file>] [--results <dir>]",
            "  Writes the tables of docs/benchmarks.md, each between <!-- table:NAME file=RESULT-FILE --> and",
            "  <!-- /table -->, from the result file it names; the prose around them is kept as it is.",
            "  --check          change nothing; exit 1 naming each table that differs from its result file",
            "  --page <file>    the page (default: docs/benchmarks.md of the repository the jar was built in)",
            "  --results <dir>  the result files (default: benchmarks/results beside the jar's target/)",
            "");

    private ReportCommand() {
    }

    /**
     * @param options the options after {@code report}.
     * @param out     where the outcome goes.
     * @param err     where errors go.
     * @return 0 when the page is (or now is) what its result files give; 1 when {@code --check} found a table that
     * differs, or a result file cannot be read; 2 for a bad command line.
     */
    public static int run(final String[] options, final PrintStream out, final PrintStream err) {
        boolean check = false;
        Path results = ResultFiles.defaultDirectory();
        Path page = null;
        for (int i = 0; i < options.length; i++) {
            switch (options[i]) {
                case "--check" -> check = true;
                case "--help", "-h" -> {
                    out.print(USAGE);
                    return 0;
                }
                case "--page", "--results" -> {
                    if (i + 1 >= options.length) {
                        err.println(options[i] + " needs a value");
                        return 2;
                    }
                    final Path value = Paths.get(options[i + 1]);
                    if (options[i].equals("--page")) {
                        page = value;
                    } else {
                        results = value;
                    }
                    i++;
                }
                default -> {
                    err.println("unknown option '" + options[i] + "' for report");
                    err.print(USAGE);
                    return 2;
                }
            }
        }
        if (page == null) {
            page = defaultPage(results);
        }
        try {
            final BenchmarkPage benchmarks = BenchmarkPage.read(page);
            for (final Map.Entry<String, List<String>> newer : benchmarks.newerRuns(results).entrySet()) {
                out.println("note: table " + newer.getKey() + " of " + page + " shows an older run than "
                        + String.join(", ", newer.getValue()));
            }
            final List<String> differing = benchmarks.differences(results);
            if (check) {
                if (differing.isEmpty()) {
                    out.println(page + ": its " + benchmarks.tableNames().size()
                            + " tables are what the result files in "
                            + results + " give");
                    return 0;
                }
                for (final String table : differing) {
                    err.println(page + ": table " + table + " differs from what its result file gives");
                }
                err.println("run `java -jar benchmarks/target/benchmarks.jar report` to write them,"
                        + " and commit the page");
                return 1;
            }
            if (!differing.isEmpty()) {
                Files.writeString(page, benchmarks.render(results), StandardCharsets.UTF_8);
            }
            out.println(page + ": "
                    + (differing.isEmpty() ? "no table changed" : "wrote " + String.join(", ", differing))
                    + " (" + benchmarks.tableNames().size() + " tables)");
            return 0;
        } catch (IllegalArgumentException | UncheckedIOException e) {
            err.println(e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("cannot write " + page + ": " + e.getMessage());
            return 1;
        }
    }

    /**
     * @return docs/benchmarks.md of the repository whose benchmarks/results these are, else that of the working
     * directory.
     */
    private static Path defaultPage(final Path results) {
        final Path module = results.toAbsolutePath().normalize().getParent();
        final Path repository = module == null ? null : module.getParent();
        if (repository != null && Files.isRegularFile(repository.resolve("docs").resolve("benchmarks.md"))) {
            return repository.resolve("docs").resolve("benchmarks.md");
        }
        return Paths.get("docs", "benchmarks.md");
    }
}
