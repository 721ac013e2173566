package dev.spool.queue.engine;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.GroupCommit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/** The group commit of a store: see {@link GroupCommit}. */
final class StoreGroupCommit implements GroupCommit {
    private static final int WAITER_SLOTS = 64;
    private static final long IDLE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long WAITER_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final MetadataFile metadata;
    private final ExcerptAppender syncer;
    private final AtomicLong requested = new AtomicLong(-1);
    private final AtomicReferenceArray<Thread> waiters = new AtomicReferenceArray<>(WAITER_SLOTS);
    private final AtomicLong syncs = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    StoreGroupCommit(final Store store, final ExcerptAppender syncer, final boolean ownThread) {
        this.metadata = store.metadata();
        this.syncer = syncer;
        if (ownThread) {
            thread = new Thread(this::run, "spool-group-commit");
            thread.setDaemon(true);
            thread.start();
        } else {
            thread = null;
        }
    }

    @Override
    public boolean awaitDurable(final long index, final long timeout, final TimeUnit unit) throws InterruptedException {
        if (metadata.lastSyncedIndex() >= index) {
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
            while (metadata.lastSyncedIndex() < index) {
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

    @Override
    public int execute() {
        if (requested.get() <= metadata.lastSyncedIndex()) {
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

    @Override
    public long syncCount() {
        return syncs.get();
    }

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
