package dev.spool.queue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Group commit: writers in any thread ask for "my index on disk" and wait, parked, while one syncer covers all of
 * them with one msync of the queue's tail. Run it on its own daemon thread ({@link SpoolQueue#startGroupCommit()})
 * or call {@link #execute()} from a thread or event loop of your own ({@link SpoolQueue#createGroupCommit()}).
 * <pre>{@code
 * long index = appender.append(order);
 * if (!groupCommit.awaitDurable(index, 5, TimeUnit.MILLISECONDS)) { ... not on disk yet ... }
 * }</pre>
 * Waiting never spins: a waiter parks and the syncer unparks it after the msync that covers its index. Waiters in
 * other processes can use {@link SpoolQueue#awaitSynced}, which polls the last synced index in the metadata.
 */
public final class GroupCommit implements AutoCloseable {
    private static final int WAITER_SLOTS = 64;
    private static final long IDLE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long WAITER_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final SpoolQueue queue;
    private final ExcerptAppender syncer;
    private final AtomicLong requested = new AtomicLong(-1);
    private final AtomicReferenceArray<Thread> waiters = new AtomicReferenceArray<>(WAITER_SLOTS);
    private final AtomicLong syncs = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    GroupCommit(final SpoolQueue queue, final boolean ownThread) {
        this.queue = queue;
        this.syncer = queue.createAppender(SyncPolicy.NONE);
        if (ownThread) {
            thread = new Thread(this::run, "spool-group-commit");
            thread.setDaemon(true);
            thread.start();
        } else {
            thread = null;
        }
    }

    /**
     * Asks for {@code index} to be synced and waits until it is.
     *
     * @param index   an index this or another writer appended.
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true once {@code index} is on disk, false on timeout.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    public boolean awaitDurable(final long index, final long timeout, final TimeUnit unit) throws InterruptedException {
        if (queue.lastSyncedIndex() >= index) {
            return true;
        }
        long current;
        while ((current = requested.get()) < index && !requested.compareAndSet(current, index)) {
            Thread.onSpinWait();
        }
        if (thread != null) {
            LockSupport.unpark(thread);
        }
        final Thread self = Thread.currentThread();
        final int slot = register(self);
        try {
            final long deadline = System.nanoTime() + unit.toNanos(timeout);
            while (queue.lastSyncedIndex() < index) {
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, Math.min(left, WAITER_PARK_NS));
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while awaiting sync of index " + index);
                }
            }
            return true;
        } finally {
            if (slot >= 0) {
                waiters.set(slot, null);
            }
        }
    }

    /**
     * One round of the syncer: if a waiter asked for an index not yet on disk, msync the queue's tail once.
     *
     * @return 1 if it synced, 0 if there was nothing to do.
     */
    public int execute() {
        if (requested.get() <= queue.lastSyncedIndex()) {
            return 0;
        }
        syncer.sync();
        syncs.incrementAndGet();
        for (int slot = 0; slot < WAITER_SLOTS; slot++) {
            final Thread waiter = waiters.get(slot);
            if (waiter != null) {
                LockSupport.unpark(waiter);
            }
        }
        return 1;
    }

    /** @return how many msyncs this group commit has done: fewer than the writers it served when it groups. */
    public long syncCount() {
        return syncs.get();
    }

    /** Stops the syncer thread, if any, and releases the syncer's appender. */
    @Override
    public void close() {
        running = false;
        if (thread != null) {
            LockSupport.unpark(thread);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        syncer.close();
    }

    private void run() {
        while (running) {
            if (execute() == 0) {
                LockSupport.parkNanos(this, IDLE_PARK_NS);
            }
        }
    }

    /** @return the slot the waiter took, or -1 if all are taken (it then wakes by its park timeout). */
    private int register(final Thread waiter) {
        for (int slot = 0; slot < WAITER_SLOTS; slot++) {
            if (waiters.get(slot) == null && waiters.compareAndSet(slot, null, waiter)) {
                return slot;
            }
        }
        return -1;
    }
}
