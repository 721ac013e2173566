package dev.spool.queue.engine;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.GroupCommit;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.internal.AgentHost;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SleepingIdleStrategy;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/** The group commit of a store: see {@link GroupCommit}. */
final class StoreGroupCommit implements GroupCommit {
    /** The name of the thread of {@link dev.spool.queue.SpoolQueue#startGroupCommit()}. */
    static final String THREAD_NAME = "spool-group-commit";
    private static final int WAITER_SLOTS = 64;
    private static final long IDLE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long WAITER_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private final MetadataFile metadata;
    private final ExcerptAppender syncer;
    private final AtomicLong requested = new AtomicLong(-1);
    private final AtomicReferenceArray<Thread> waiters = new AtomicReferenceArray<>(WAITER_SLOTS);
    private final AtomicLong syncs = new AtomicLong();
    private final String directory;
    private final NanoClock nanoClock;
    private final ErrorHandler errorHandler;
    private final ThreadFactory threadFactory;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The host of {@link #start}, if this group commit has its own thread. */
    private volatile AgentHost host;
    /** The thread that runs the syncer, as {@link #onStart()} or {@link #start()} learnt it: a new waiter wakes it. */
    private volatile Thread thread;

    StoreGroupCommit(final Store store, final ExcerptAppender syncer) {
        this.metadata = store.metadata();
        this.syncer = syncer;
        this.directory = store.directory().toString();
        this.nanoClock = store.nanoClock();
        this.errorHandler = store.errorHandler();
        this.threadFactory = store.threadFactory();
    }

    /**
     * Runs the syncer on its own thread of the queue's thread factory, parked 1 ms at a time while no writer waits.
     *
     * @param mbeanOwner the queue's MBean name key, to register the agent's MBean beside it; null for none.
     */
    void start(final String mbeanOwner) {
        final AgentHost started = AgentHost.builder("group commit of " + directory
                        + " (a failed sync: its waiters time out)", this)
                .threadFactory(threadFactory)
                .errorHandler(errorHandler)
                .nanoClock(nanoClock)
                .mbeanBeside(mbeanOwner)
                .start(new SleepingIdleStrategy(IDLE_PARK_NS));
        host = started;
        thread = started.thread();
    }

    @Override
    public String roleName() {
        return THREAD_NAME;
    }

    @Override
    public void onStart() {
        thread = Thread.currentThread();
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
        final Thread syncerThread = thread;
        if (syncerThread != null) {
            LockSupport.unpark(syncerThread);
        }
        final Thread self = Thread.currentThread();
        final int slot = register(self);
        try {
            final long deadline = nanoClock.nanoTime() + unit.toNanos(timeout);
            while (metadata.lastSyncedIndex() < index) {
                final long left = deadline - nanoClock.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, Math.min(left, WAITER_PARK_NS));
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while awaiting sync of index "
                            + IndexFormat.format(index, metadata.rollCycle()) + " in " + directory);
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
    public int doWork() {
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
    public void onClose() {
        if (closed.compareAndSet(false, true)) {
            syncer.close();
        }
    }

    @Override
    public void close() {
        final AgentHost own = host;
        if (own != null) {
            // closes this group commit on its thread, after the round in hand
            own.close();
        }
        onClose();
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
