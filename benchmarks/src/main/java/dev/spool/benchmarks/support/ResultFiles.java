package dev.spool.benchmarks.support;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The files of one run, named {@code <UTC time>-<label>} so that runs sort by time and never overwrite each other:
 * {@code .txt} (machine facts and the suite's text output), {@code .json} (the suite's own JSON) and
 * {@code -machine.json} (the facts alone, for tools).
 */
public final class ResultFiles {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private final Path directory;
    private final String base;
    private final Path text;
    private final Path json;
    private final Path facts;

    private ResultFiles(final Path directory, final String base) {
        this.directory = directory;
        this.base = base;
        this.text = directory.resolve(base + ".txt");
        this.json = directory.resolve(base + ".json");
        this.facts = directory.resolve(base + "-machine.json");
    }

    /**
     * Claims a name by creating the text file, empty.
     *
     * @param directory where the files go; created if needed.
     * @param label     what ran, e.g. {@code jmh-Spool-quick}.
     * @return the run's files.
     */
    public static ResultFiles create(final Path directory, final String label) {
        final String stamp = STAMP.format(ZonedDateTime.now(ZoneOffset.UTC));
        try {
            Files.createDirectories(directory);
            for (int attempt = 1; ; attempt++) {
                final String suffix = attempt == 1 ? "" : "-" + attempt;
                final ResultFiles files = new ResultFiles(directory, stamp + "-" + label + suffix);
                try {
                    Files.createFile(files.text);
                    return files;
                } catch (FileAlreadyExistsException e) {
                    // another run started in the same second: take the next name
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create result files in " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * @return {@code benchmarks/results} when the launcher runs from {@code benchmarks/target/} (the jar or the
     * classes), else {@code results} in the working directory.
     */
    public static Path defaultDirectory() {
        final CodeSource source = ResultFiles.class.getProtectionDomain().getCodeSource();
        if (source != null) {
            Path at;
            try {
                at = Paths.get(source.getLocation().toURI()).toAbsolutePath();
            } catch (URISyntaxException e) {
                throw new IllegalStateException("bad code source " + source.getLocation() + ": " + e.getMessage(), e);
            }
            for (; at != null; at = at.getParent()) {
                final Path name = at.getFileName();
                if (name != null && name.toString().equals("target") && at.getParent() != null) {
                    return at.getParent().resolve("results");
                }
            }
        }
        return Paths.get("results").toAbsolutePath();
    }

    /** @return the text file: machine facts, then the suite's text output. */
    public Path text() {
        return text;
    }

    /** @return the suite's own JSON results. */
    public Path json() {
        return json;
    }

    /** @return the machine facts alone, as JSON, for tools. */
    public Path facts() {
        return facts;
    }

    /**
     * @param suffix what follows the run's name, e.g. {@code -spool.hgrm} or {@code .png}.
     * @return another file of the run, beside the text file.
     */
    public Path sibling(final String suffix) {
        return directory.resolve(base + suffix);
    }

    /** @return a stream appending to the text file. */
    public PrintStream openText() {
        try {
            return new PrintStream(Files.newOutputStream(text), true, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + text + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes the facts file.
     *
     * @param factsJson the machine facts as JSON.
     */
    public void writeFacts(final String factsJson) {
        try {
            Files.writeString(facts, factsJson);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + facts + ": " + e.getMessage(), e);
        }
    }

    /** Deletes the run's files: nothing ran. */
    public void delete() {
        try {
            Files.deleteIfExists(text);
            Files.deleteIfExists(json);
            Files.deleteIfExists(facts);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the result files " + text + ": " + e.getMessage(), e);
        }
    }
}
