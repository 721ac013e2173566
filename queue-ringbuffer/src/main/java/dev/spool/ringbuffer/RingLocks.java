package dev.spool.ringbuffer;

import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.ProcessSlots;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Byte-range locks on a ring's lock file ({@code <ring file>.lock}) that prove a process is alive, as queue-core
 * does for its write lock: byte {@value #DRAINER_SLOT} is held by the process whose drainer drains the ring, byte
 * {@code n >= 1} by the process that owns producer slot {@code n}. The kernel drops a process's locks when it
 * dies, whatever its PID or PID namespace. The locks themselves are queue-core's {@link ProcessSlots}.
 */
final class RingLocks {
    /** The byte a drainer locks: one drainer per ring at a time, across processes. */
    static final int DRAINER_SLOT = 0;
    /** Producer slots are 1 until this; the slot must fit the record header's 16 bits. */
    static final int SLOT_COUNT = 1024;

    private final ProcessSlots slots;

    private RingLocks(final ProcessSlots slots) {
        this.slots = slots;
    }

    static RingLocks acquire(final Path ringFile, final Set<PosixFilePermission> fileMode) {
        return new RingLocks(ProcessSlots.acquire(lockFile(ringFile), SLOT_COUNT, FileModes.lockMode(fileMode)));
    }

    /** @return the lock file of {@code ringFile}: its name with {@code .lock} appended. */
    static Path lockFile(final Path ringFile) {
        final Path file = ringFile.toAbsolutePath().normalize();
        return file.resolveSibling(file.getFileName() + ".lock");
    }

    /**
     * @return true if this process now holds every slot, until {@link #freeAll()}: no process uses the ring, and
     * none can start to.
     */
    boolean tryHoldAll() {
        return slots.tryClaimAll();
    }

    /** Gives up the slots {@link #tryHoldAll()} took, if it took them. */
    void freeAll() {
        slots.freeAll();
    }

    /** @return true if another ring of this process has the lock file open. */
    boolean isOpenElsewhereInProcess() {
        return slots.isShared();
    }

    /** @return the lowest slot a live process holds, or -1 if none does; a system call per slot probed. */
    int firstLiveSlot() {
        for (int slot = DRAINER_SLOT; slot < SLOT_COUNT; slot++) {
            if (slots.isAlive(slot)) {
                return slot;
            }
        }
        return -1;
    }

    void release() {
        slots.release();
    }

    /** @return a producer slot this process owns until {@link #free(int)}. */
    int claimProducerSlot() {
        return slots.claim(DRAINER_SLOT + 1);
    }

    /** @return true if this process is now the ring's only drainer; false if a live one exists, here or elsewhere. */
    boolean tryHoldDrainer() {
        return slots.tryClaim(DRAINER_SLOT);
    }

    void free(final int slot) {
        slots.free(slot);
    }

    /**
     * A system call when the slot is not this process's own: call it only for a claim that is already late.
     *
     * @param slot a slot.
     * @return false only when no live process holds the slot.
     */
    boolean isAlive(final int slot) {
        return slots.isAlive(slot);
    }

    Path path() {
        return slots.path();
    }
}
