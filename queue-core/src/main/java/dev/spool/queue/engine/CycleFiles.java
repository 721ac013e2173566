package dev.spool.queue.engine;

import dev.spool.queue.CycleListener;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.CycleCalendar;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The cycle files of one queue instance: names, listing, creation, deletion, and a cache of open files shared by
 * its appenders, tailers and pretouchers, each file closed when its last user releases it. A file open here is
 * never deleted here: the cache's reference counts are what protects a file a tailer of this process is reading.
 */
final class CycleFiles {
    /** {@link #delete(long)}: the file was deleted. */
    static final int DELETED = 1;
    /** {@link #delete(long)}: there was no file, or another process deleted it first. */
    static final int ABSENT = 0;
    /** {@link #delete(long)}: the file is open in this instance and stays. */
    static final int IN_USE = -1;
    private static final long[] NO_CYCLES = new long[0];

    private final Path directory;
    private final RollCycle rollCycle;
    private final CycleCalendar calendar;
    private final long chunkLength;
    private final CycleListener listener;
    private final boolean readOnly;
    private final Set<PosixFilePermission> fileMode;
    private final Map<Long, CycleFile> open = new HashMap<>();

    CycleFiles(final Path directory, final CycleCalendar calendar, final long chunkLength, final CycleListener listener,
               final boolean readOnly, final Set<PosixFilePermission> fileMode) {
        this.directory = directory;
        this.rollCycle = calendar.rollCycle();
        this.calendar = calendar;
        this.chunkLength = chunkLength;
        this.listener = listener;
        this.readOnly = readOnly;
        this.fileMode = fileMode;
    }

    Path path(final long cycle) {
        return directory.resolve(calendar.fileName(cycle));
    }

    /** @return the open file of {@code cycle}, or null if it has no file. Release it when done. */
    synchronized CycleFile acquire(final long cycle) {
        CycleFile file = open.get(cycle);
        if (file == null) {
            final Path path = path(cycle);
            if (!Files.exists(path)) {
                return null;
            }
            file = CycleFile.open(path, cycle, rollCycle, chunkLength, readOnly);
            if (file == null) {
                return null;
            }
            open.put(cycle, file);
            listener.onAcquired(cycle, path);
        }
        file.references++;
        return file;
    }

    /** Creates the file of {@code cycle} and acquires it. Caller holds the write lock. */
    synchronized CycleFile create(final long cycle, final int indexSpacing, final int indexBlockEntries,
                                  final int features) {
        CycleFile.create(path(cycle), cycle, rollCycle, indexSpacing, indexBlockEntries, features, fileMode);
        return acquire(cycle);
    }

    synchronized void release(final CycleFile file) {
        if (--file.references == 0) {
            open.remove(file.cycle());
            file.close();
            listener.onReleased(file.cycle(), file.path());
        }
    }

    /** @return true if this instance has the file of {@code cycle} open. */
    synchronized boolean isOpen(final long cycle) {
        return open.containsKey(cycle);
    }

    /**
     * Deletes the file of {@code cycle} unless this instance has it open; atomic with {@link #acquire(long)}, so
     * no user of this instance can open it meanwhile. Another process may have it open: its mapping stays valid.
     *
     * @return {@link #DELETED}, {@link #ABSENT} or {@link #IN_USE}.
     */
    synchronized int delete(final long cycle) {
        if (open.containsKey(cycle)) {
            return IN_USE;
        }
        final Path path = path(cycle);
        try {
            return Files.deleteIfExists(path) ? DELETED : ABSENT;
        } catch (IOException e) {
            throw new SpoolException("cannot delete cycle file " + path + ": " + e.getMessage(), e);
        }
    }

    /** @return every cycle that has a file, ascending. */
    long[] cycles() {
        if (!Files.isDirectory(directory)) {
            return NO_CYCLES;
        }
        long[] cycles = new long[16];
        int count = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + RollCycle.FILE_SUFFIX)) {
            for (final Path file : files) {
                final long cycle = calendar.parseCycle(file.getFileName().toString());
                if (cycle >= 0) {
                    if (count == cycles.length) {
                        cycles = Arrays.copyOf(cycles, count * 2);
                    }
                    cycles[count++] = cycle;
                }
            }
        } catch (IOException e) {
            throw new SpoolException("cannot list " + directory + ": " + e.getMessage(), e);
        }
        final long[] sorted = Arrays.copyOf(cycles, count);
        Arrays.sort(sorted);
        return sorted;
    }

    /** @return the first cycle after {@code cycle} that has a file, or -1. */
    long next(final long cycle) {
        for (final long candidate : cycles()) {
            if (candidate > cycle) {
                return candidate;
            }
        }
        return -1;
    }

    /** @return the last cycle before {@code cycle} that has a file, or -1. */
    long previous(final long cycle) {
        long previous = -1;
        for (final long candidate : cycles()) {
            if (candidate >= cycle) {
                break;
            }
            previous = candidate;
        }
        return previous;
    }

    long first() {
        final long[] cycles = cycles();
        return cycles.length == 0 ? -1 : cycles[0];
    }

    /** @return the file of the last cycle before {@code cycle} that has one, acquired; or null. */
    CycleFile acquirePrevious(final long cycle) {
        final long previous = previous(cycle);
        return previous < 0 ? null : acquire(previous);
    }

    /**
     * Not the last file: one past the highest cycle was created ahead of its roll (or by a writer that died before
     * recording it) and nothing is written there until a writer starts it; the end is in the highest cycle.
     *
     * @param highest the highest cycle recorded, or -1.
     * @return the file of the highest cycle, or of the last before it that has one, acquired; or null.
     */
    CycleFile acquireLast(final long highest) {
        return highest < 0 ? null : acquirePrevious(highest + 1);
    }

    /**
     * @param listed a listed cycle, or -1.
     * @return the file of {@code listed}, or of the first cycle after it that still has one, acquired; or null.
     * Retention in another process may delete a listed file before it is opened: the cycle after it is next then.
     */
    CycleFile acquireFrom(final long listed) {
        for (long next = listed; next >= 0; next = next(next)) {
            final CycleFile file = acquire(next);
            if (file != null) {
                return file;
            }
        }
        return null;
    }

    long last() {
        final long[] cycles = cycles();
        return cycles.length == 0 ? -1 : cycles[cycles.length - 1];
    }

    synchronized int openCount() {
        return open.size();
    }

    /** Closes every file still open, whoever holds it. */
    synchronized void close() {
        for (final CycleFile file : open.values()) {
            file.close();
            listener.onReleased(file.cycle(), file.path());
        }
        open.clear();
    }
}
