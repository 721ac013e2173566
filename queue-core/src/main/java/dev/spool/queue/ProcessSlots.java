package dev.spool.queue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * Byte-range locks on a queue's lock file that prove a process is alive: a process owns slot {@code n} while it
 * holds an exclusive lock on byte {@code n}, and the kernel drops that lock when the process dies, whatever its PID
 * and whatever PID namespace it runs in. Nothing here uses PIDs, so PID reuse and containers where every process
 * is PID 1 cannot fool it; it needs the processes to share one kernel, which memory-mapped files need anyway.
 * <p>
 * POSIX drops all of a process's locks on a file when any of its descriptors of that file closes, so one JVM opens
 * a lock file exactly once: instances are shared per canonical path and reference counted.
 */
final class ProcessSlots {
    private static final Map<Path, ProcessSlots> OPEN = new HashMap<>();

    private final Path path;
    private final FileChannel channel;
    private final FileLock[] held = new FileLock[MetadataDescriptor.PROCESS_SLOT_COUNT];
    private int references;

    private ProcessSlots(final Path path, final FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    static ProcessSlots acquire(final Path lockFile) {
        synchronized (OPEN) {
            final Path key = lockFile.toAbsolutePath().normalize();
            ProcessSlots slots = OPEN.get(key);
            if (slots == null) {
                try {
                    slots = new ProcessSlots(key, FileChannel.open(key, StandardOpenOption.CREATE, StandardOpenOption.READ,
                            StandardOpenOption.WRITE));
                } catch (IOException e) {
                    throw new SpoolException("cannot open lock file " + key + ": " + e.getMessage(), e);
                }
                OPEN.put(key, slots);
            }
            slots.references++;
            return slots;
        }
    }

    void release() {
        synchronized (OPEN) {
            if (--references > 0) {
                return;
            }
            OPEN.remove(path);
            try {
                channel.close();
            } catch (IOException e) {
                throw new SpoolException("cannot close lock file " + path + ": " + e.getMessage(), e);
            }
        }
    }

    /** @return a slot this process now owns until {@link #free(int)}. */
    int claim() {
        synchronized (OPEN) {
            for (int slot = 0; slot < held.length; slot++) {
                if (held[slot] == null) {
                    final FileLock lock = tryLock(slot);
                    if (lock != null) {
                        held[slot] = lock;
                        return slot;
                    }
                }
            }
        }
        throw new SpoolException("all " + held.length + " process slots of " + path + " are held by live processes");
    }

    void free(final int slot) {
        synchronized (OPEN) {
            final FileLock lock = held[slot];
            held[slot] = null;
            try {
                lock.release();
            } catch (IOException e) {
                throw new SpoolException("cannot unlock slot " + slot + " of " + path + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * @param slot a process slot.
     * @return false only when no live process holds the slot: its owner is gone.
     */
    boolean isAlive(final int slot) {
        synchronized (OPEN) {
            if (held[slot] != null) {
                return true;
            }
            final FileLock probe = tryLock(slot);
            if (probe == null) {
                return true;
            }
            try {
                probe.release();
            } catch (IOException e) {
                throw new SpoolException("cannot unlock slot " + slot + " of " + path + ": " + e.getMessage(), e);
            }
            return false;
        }
    }

    private FileLock tryLock(final int slot) {
        try {
            return channel.tryLock(slot, 1, false);
        } catch (IOException e) {
            throw new SpoolException("cannot lock slot " + slot + " of " + path + ": " + e.getMessage(), e);
        }
    }
}
