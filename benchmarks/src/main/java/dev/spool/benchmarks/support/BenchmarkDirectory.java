package dev.spool.benchmarks.support;

import net.openhft.chronicle.core.io.BackgroundResourceReleaser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A fresh directory for one benchmark's files, deleted with everything in it when the benchmark is done. It is
 * created under {@code -Dspool.bench.dir} (the launcher's {@code --dir}), else under {@code java.io.tmpdir}: the
 * file system decides what a page fault costs, so it is part of what a result means.
 */
public final class BenchmarkDirectory {
    /** System property naming the directory that benchmark directories are created in. */
    public static final String BASE_PROPERTY = "spool.bench.dir";

    private final Path path;

    private BenchmarkDirectory(final Path path) {
        this.path = path;
    }

    /**
     * @param prefix start of the directory's name, naming the benchmark that owns it.
     * @return a new, empty directory.
     */
    public static BenchmarkDirectory create(final String prefix) {
        final Path base = base();
        try {
            Files.createDirectories(base);
            return new BenchmarkDirectory(Files.createTempDirectory(base, prefix));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a benchmark directory in " + base + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param prefix start of the directory's name, naming the benchmark that owns it.
     * @return a new, empty directory on tmpfs ({@code /dev/shm}) where the machine has it, else as {@link #create}:
     * for controls that take the disk out of a result.
     */
    public static BenchmarkDirectory createOnTmpfs(final String prefix) {
        final Path shm = Paths.get("/dev/shm");
        if (!Files.isDirectory(shm)) {
            return create(prefix);
        }
        try {
            return new BenchmarkDirectory(Files.createTempDirectory(shm, prefix));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a benchmark directory in " + shm + ": " + e.getMessage(), e);
        }
    }

    /** @return where benchmark directories are created. */
    public static Path base() {
        return Paths.get(System.getProperty(BASE_PROPERTY, System.getProperty("java.io.tmpdir")));
    }

    /** @return the directory. */
    public Path path() {
        return path;
    }

    /**
     * Deletes the directory and its files. Close what maps them first: Chronicle unmaps on a background thread,
     * so this waits for it, or gigabytes of deleted files would stay mapped, and on disk, until then.
     */
    public void delete() {
        BackgroundResourceReleaser.releasePendingResources();
        try (Stream<Path> files = Files.walk(path)) {
            for (final Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete benchmark directory " + path + ": " + e.getMessage(), e);
        }
    }
}
