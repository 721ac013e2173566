package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * Byte-range locks on a ring's lock file ({@code <ring file>.lock}) that prove a process is alive, as queue-core
 * does for its write lock: byte {@value #DRAINER_SLOT} is held by the process whose drainer drains the ring, byte
 * {@code n >= 1} by the process that owns producer slot {@code n}. The kernel drops a process's locks when it
 * dies, whatever its PID or PID namespace.
 * <p>
 * POSIX drops all of a process's locks on a file when any of its descriptors of that file closes, so one JVM opens
 * a lock file exactly once: instances are shared per normalized path and reference counted.
 */
final class RingLocks {
    /** The byte a drainer locks: one drainer per ring at a time, across processes. */
    static final int DRAINER_SLOT = 0;
    /** Producer slots are 1 until this; the slot must fit the record header's 16 bits. */
    static final int SLOT_COUNT = 1024;

    private static final Map<Path, RingLocks> OPEN = new HashMap<>();

    private final Path path;
    private final FileChannel channel;
    private final FileLock[] held = new FileLock[SLOT_COUNT];
    private int references;

    private RingLocks(final Path path, final FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    static RingLocks acquire(final Path ringFile) {
        final Path key = ringFile.toAbsolutePath().normalize().resolveSibling(ringFile.getFileName() + ".lock");
        synchronized (OPEN) {
            RingLocks locks = OPEN.get(key);
            if (locks == null) {
                try {
                    locks = new RingLocks(key, FileChannel.open(key, StandardOpenOption.CREATE, StandardOpenOption.READ,
                            StandardOpenOption.WRITE));
                } catch (IOException e) {
                    throw new SpoolException("cannot open lock file " + key + ": " + e.getMessage(), e);
                }
                OPEN.put(key, locks);
            }
            locks.references++;
            return locks;
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

    /** @return a producer slot this process owns until {@link #free(int)}. */
    int claimProducerSlot() {
        synchronized (OPEN) {
            for (int slot = DRAINER_SLOT + 1; slot < SLOT_COUNT; slot++) {
                if (held[slot] == null && tryHold(slot)) {
                    return slot;
                }
            }
        }
        throw new SpoolException("all " + (SLOT_COUNT - 1) + " producer slots of " + path + " are held by live processes");
    }

    /** @return true if this process is now the ring's only drainer; false if a live one exists, here or elsewhere. */
    boolean tryHoldDrainer() {
        synchronized (OPEN) {
            return held[DRAINER_SLOT] == null && tryHold(DRAINER_SLOT);
        }
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
     * A system call when the slot is not this process's own: call it only for a claim that is already late.
     *
     * @param slot a slot.
     * @return false only when no live process holds the slot.
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

    Path path() {
        return path;
    }

    private boolean tryHold(final int slot) {
        final FileLock lock = tryLock(slot);
        if (lock == null) {
            return false;
        }
        held[slot] = lock;
        return true;
    }

    private FileLock tryLock(final int slot) {
        try {
            return channel.tryLock(slot, 1, false);
        } catch (IOException e) {
            throw new SpoolException("cannot lock slot " + slot + " of " + path + ": " + e.getMessage(), e);
        }
    }
}
