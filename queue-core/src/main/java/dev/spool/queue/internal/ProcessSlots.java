package dev.spool.queue.internal;

import dev.spool.queue.SpoolException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Byte-range locks on a lock file that prove a process is alive: a process owns slot {@code n} while it holds an
 * exclusive lock on byte {@code n}, and the kernel drops that lock when the process dies, whatever its PID and
 * whatever PID namespace it runs in. Nothing here uses PIDs, so PID reuse and containers where every process is
 * PID 1 cannot fool it; it needs the processes to share one kernel, which memory-mapped files need anyway. The
 * queue's write lock uses it (a waiter tells a dead holder from a slow one), and so does queue-ringbuffer for its
 * producers and its drainer.
 * <p>
 * POSIX drops all of a process's locks on a file when any of its descriptors of that file closes, so one JVM opens
 * a lock file exactly once: instances are shared per normalized path and reference counted. Every method is a
 * system call unless it is about a slot this process holds: call {@link #isAlive(int)} off the hot path.
 */
public final class ProcessSlots {
    private static final Map<Path, ProcessSlots> OPEN = new HashMap<>();

    private final Path path;
    private final FileChannel channel;
    private final FileLock[] held;
    /** The lock on every slot at once, while this process removes the lock file; null otherwise. */
    private FileLock all;
    private int references;

    private ProcessSlots(final Path path, final FileChannel channel, final int slotCount) {
        this.path = path;
        this.channel = channel;
        this.held = new FileLock[slotCount];
    }

    /**
     * Opens a lock file, or shares this JVM's open instance of it; {@link #release()} when done.
     *
     * @param lockFile  the lock file, created if absent.
     * @param slotCount how many slots (bytes) it has; every process must use the same.
     * @param lockMode  the permissions the lock file is created with ({@link FileModes#lockMode}): whoever can open
     *                  it can hold a slot's lock and pass for a live process, so only writers may.
     * @return the shared instance.
     * @throws SpoolException if it cannot be opened, or is open here with another slot count.
     */
    public static ProcessSlots acquire(final Path lockFile, final int slotCount, final Set<PosixFilePermission> lockMode) {
        synchronized (OPEN) {
            final Path key = lockFile.toAbsolutePath().normalize();
            ProcessSlots slots = OPEN.get(key);
            if (slots == null) {
                try {
                    slots = new ProcessSlots(key, openOrCreate(key, lockMode), slotCount);
                } catch (IOException e) {
                    throw new SpoolException("cannot open lock file " + key + ": " + e.getMessage(), e);
                }
                OPEN.put(key, slots);
            } else if (slots.held.length != slotCount) {
                throw new SpoolException("lock file " + key + " is open in this process with " + slots.held.length
                        + " slots, not " + slotCount);
            }
            slots.references++;
            return slots;
        }
    }

    private static FileChannel openOrCreate(final Path key, final Set<PosixFilePermission> lockMode) throws IOException {
        try {
            return FileModes.createNew(key, lockMode, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            return FileChannel.open(key, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
    }

    /** Releases this JVM's reference; the last one closes the file, which drops every slot still held. */
    public void release() {
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

    /**
     * @param firstSlot the lowest slot to take.
     * @return a slot at or above {@code firstSlot} that this process now owns until {@link #free(int)}.
     * @throws SpoolException if live processes hold every one.
     */
    public int claim(final int firstSlot) {
        synchronized (OPEN) {
            for (int slot = firstSlot; slot < held.length; slot++) {
                if (held[slot] == null && tryHold(slot)) {
                    return slot;
                }
            }
        }
        throw new SpoolException("all " + (held.length - firstSlot) + " process slots from " + firstSlot + " of " + path
                + " are held by live processes");
    }

    /**
     * @param slot a slot.
     * @return true if this process now owns it until {@link #free(int)}; false if a live process holds it, this one
     * included.
     */
    public boolean tryClaim(final int slot) {
        synchronized (OPEN) {
            return held[slot] == null && tryHold(slot);
        }
    }

    /** @param slot a slot this process owns, which it gives up. */
    public void free(final int slot) {
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
     * @param slot a slot.
     * @return false only when no live process holds the slot: its owner is gone.
     */
    public boolean isAlive(final int slot) {
        synchronized (OPEN) {
            if (held[slot] != null || all != null) {
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

    /**
     * Takes every slot at once, for removing the lock file and the file it guards: while this process holds them,
     * no process can claim a slot, so none can start using that file; {@link #freeAll()} gives them up.
     *
     * @return true if this process now holds every slot; false if a live process holds one, or another user of this
     * instance in this process may claim one ({@link #isShared()}).
     */
    public boolean tryClaimAll() {
        synchronized (OPEN) {
            if (references > 1 || all != null) {
                return false;
            }
            for (final FileLock lock : held) {
                if (lock != null) {
                    return false;
                }
            }
            try {
                all = channel.tryLock(0, held.length, false);
            } catch (IOException e) {
                throw new SpoolException("cannot lock the " + held.length + " slots of " + path + ": " + e.getMessage(), e);
            }
            return all != null;
        }
    }

    /** Gives up every slot taken by {@link #tryClaimAll()}, if it took them. */
    public void freeAll() {
        synchronized (OPEN) {
            final FileLock lock = all;
            all = null;
            if (lock != null) {
                try {
                    lock.release();
                } catch (IOException e) {
                    throw new SpoolException("cannot unlock the slots of " + path + ": " + e.getMessage(), e);
                }
            }
        }
    }

    /** @return true if another user in this process has this lock file open too, through its own {@link #acquire}. */
    public boolean isShared() {
        synchronized (OPEN) {
            return references > 1;
        }
    }

    /** @return the lock file. */
    public Path path() {
        return path;
    }

    private boolean tryHold(final int slot) {
        if (all != null) {
            // this process is removing the lock file: its own lock on every slot would overlap
            return false;
        }
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
