package dev.spool.benchmarks.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/** Where the benchmarks put a ring: tmpfs ({@code /dev/shm}) when the machine has it, as in production. */
public final class RingPaths {
    private RingPaths() {
    }

    /**
     * @param fallback the directory to use where there is no {@code /dev/shm}.
     * @return a new ring file path, not yet created.
     */
    public static Path create(final Path fallback) {
        final Path shm = Path.of("/dev/shm");
        return (Files.isDirectory(shm) ? shm : fallback).resolve("spool-bench-" + UUID.randomUUID() + ".ring");
    }

    /**
     * Deletes a ring file and its lock file; close every ring on it first.
     *
     * @param ring the ring file.
     */
    public static void delete(final Path ring) {
        try {
            Files.deleteIfExists(ring);
            Files.deleteIfExists(ring.resolveSibling(ring.getFileName() + ".lock"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete ring " + ring + ": " + e.getMessage(), e);
        }
    }
}
