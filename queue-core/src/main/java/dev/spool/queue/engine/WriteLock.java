package dev.spool.queue.engine;

import dev.spool.queue.SpoolException;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.ProcessSlots;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The queue's cross-process write lock: one long in the metadata file, 0 when free, else the owner's lock word
 * ({@code session << 8 | processSlot}). Taking it is one CAS; releasing it is one release store.
 * <p>
 * A waiter that has not got the lock after {@value #FIRST_CHECK_NS} ns asks whether the owner is alive, then
 * again every {@value #CHECK_INTERVAL_NS} ns: the owner is dead when its process slot now carries another
 * session, or when no process holds the slot's byte-range lock. Only then is the lock taken over, with a CAS from
 * the dead word, so a live holder, however slow, is never robbed, and a dead one costs its waiters about a
 * millisecond. The new holder repairs whatever the dead one left half-written (see {@code StoreAppender}).
 */
final class WriteLock {
    private static final Logger LOG = LoggerFactory.getLogger(WriteLock.class);
    static final long FIRST_CHECK_NS = 50_000;
    static final long CHECK_INTERVAL_NS = 1_000_000;

    private final MetadataFile metadata;
    private final long lockAddress;
    private final long lockWord;
    private final ProcessSlots slots;
    private final StoreCounters counters;
    /** Times a contended wait: when to ask whether the holder is alive. */
    private final NanoClock nanoClock;
    /** Written only by the holder: lets a thread that already holds the lock fail instead of waiting for itself. */
    private Thread holder;
    /** Set by a takeover, cleared by {@link #tookOverFromDeadHolder()}; the holder's thread only. */
    private boolean tookOver;

    WriteLock(final MetadataFile metadata, final ProcessSlots slots, final long lockWord, final StoreCounters counters,
              final NanoClock nanoClock) {
        this.counters = counters;
        this.nanoClock = nanoClock;
        this.metadata = metadata;
        this.lockAddress = metadata.address(MetadataDescriptor.WRITE_LOCK_OFFSET);
        this.lockWord = lockWord;
        this.slots = slots;
    }

    void lock() {
        if (!MEMORY.compareAndSwapLong(lockAddress, 0L, lockWord)) {
            lockContended();
        }
        holder = Thread.currentThread();
    }

    void unlock() {
        holder = null;
        // release: everything written under the lock is visible to the next holder's CAS
        MEMORY.writeOrderedLong(lockAddress, 0L);
    }

    /** @return true, once, if the last {@link #lock()} took the lock over from a dead process: check its writes. */
    boolean tookOverFromDeadHolder() {
        final boolean result = tookOver;
        tookOver = false;
        return result;
    }

    private void lockContended() {
        if (holder == Thread.currentThread()) {
            throw new SpoolException("this thread already holds the write lock of " + metadata.path()
                    + ": commit or roll back the open claim before appending again");
        }
        final IdleStrategy idle = new BackoffIdleStrategy(1_000, 100, 1_000, 100_000);
        final long start = nanoClock.nanoTime();
        long nextCheck = start + FIRST_CHECK_NS;
        while (true) {
            final long owner = MEMORY.readVolatileLong(lockAddress);
            if (owner == 0L) {
                if (MEMORY.compareAndSwapLong(lockAddress, 0L, lockWord)) {
                    return;
                }
                continue;
            }
            final long now = nanoClock.nanoTime();
            if (now - nextCheck >= 0) {
                if (owner != lockWord && !isOwnerAlive(owner)) {
                    if (MEMORY.compareAndSwapLong(lockAddress, owner, lockWord)) {
                        tookOver = true;
                        counters.writeLockTakeovers.incrementAndGet();
                        LOG.warn("took over the write lock of {} from a dead process (slot {}, session {}) after {} us",
                                metadata.path(), MetadataDescriptor.lockSlot(owner),
                                Long.toHexString(MetadataDescriptor.lockSession(owner)), (now - start) / 1_000);
                        return;
                    }
                    continue;
                }
                nextCheck = now + CHECK_INTERVAL_NS;
            }
            idle.idle();
        }
    }

    private boolean isOwnerAlive(final long owner) {
        final int slot = MetadataDescriptor.lockSlot(owner);
        if (metadata.processSlotSession(slot) != MetadataDescriptor.lockSession(owner)) {
            // the slot was claimed again since the owner took the lock, which means the owner had died
            return false;
        }
        return slots.isAlive(slot);
    }
}
