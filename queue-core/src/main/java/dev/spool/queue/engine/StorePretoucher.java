package dev.spool.queue.engine;

import dev.spool.queue.Pretoucher;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.internal.AgentHost;
import dev.spool.queue.internal.CycleCalendar;

import net.openhft.chronicle.core.OS;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SleepingIdleStrategy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/** The pretoucher of a store: see {@link Pretoucher}. */
final class StorePretoucher implements Pretoucher {
    private final Store store;
    private final MetadataFile metadata;
    private final CycleFiles cycleFiles;
    private final CycleCalendar calendar;
    private final EpochClock epochClock;
    private final WriteLock lock;
    private final long pretouchLength;
    private final long leadMillis;
    private final long pageSize = OS.pageSize();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The highest cycle's file, whose pages ahead of the writer are touched; and the file created ahead of its roll. */
    private MappedCursor cursor = new MappedCursor("pretoucher", true);
    private MappedCursor nextCursor = new MappedCursor("pretoucher-next", true);
    private CycleFile file;
    private CycleFile nextFile;
    /** Every page of {@link #file} below this position has been touched. */
    private long touchedPosition;
    private long nextTouchedPosition;
    /** Set once by {@link #start}: the host of {@code SpoolQueue.startPretoucher(Duration)}. */
    private volatile AgentHost host;
    /** The host's thread, once started: the only thread that may then call {@link #doWork()}. */
    private volatile Thread thread;

    StorePretoucher(final Store store, final long pretouchLength, final Duration leadTime) {
        this.store = store;
        this.metadata = store.metadata();
        this.cycleFiles = store.cycleFiles();
        this.calendar = store.calendar();
        this.epochClock = store.epochClock();
        // claimed now, not at the first file it creates: a process slot is claimed under the queue's monitor, which
        // the queue's close holds while it waits for this pretoucher's thread to stop
        this.lock = store.writeLock();
        this.pretouchLength = pretouchLength;
        this.leadMillis = leadTime.toMillis();
    }

    @Override
    public String roleName() {
        return THREAD_NAME;
    }

    @Override
    public int doWork() {
        if (closed.get()) {
            throw new SpoolException("pretoucher of " + store.directory() + " is closed");
        }
        if (thread != null && Thread.currentThread() != thread) {
            throw new SpoolException("this pretoucher of " + store.directory() + " runs on its own thread, "
                    + thread.getName() + ": do not call doWork() as well");
        }
        final long highest = metadata.highestCycle();
        if (highest < 0) {
            // nothing started: the first append creates the first cycle
            return 0;
        }
        if (file == null || file.cycle() != highest) {
            follow(highest);
            if (file == null) {
                return 0;
            }
        }
        // a hint written under the write lock, read without it: stale at once, and only ever behind the writer
        final long writePosition = file.readVolatileWritePosition();
        final long to = pageCeiling(writePosition + pretouchLength);
        int work = touch(cursor, Math.max(touchedPosition, writePosition & -pageSize), to);
        touchedPosition = Math.max(touchedPosition, to);
        if (nextFile == null) {
            work += prepare(highest + 1);
        }
        return work;
    }

    /**
     * Releases the mapped files when the runner or invoker of the caller's choosing closes. The host of
     * {@link #start} leaves that to {@link #close()}: the queue's close holds the monitor that releasing
     * takes while it waits for that host's thread to stop.
     */
    @Override
    public void onClose() {
        if (host == null) {
            release();
        }
    }

    @Override
    public void close() {
        final AgentHost own = host;
        if (own != null) {
            // the files it touches are unmapped below and by the queue's close: its thread must be gone first
            own.close();
        }
        release();
    }

    private void release() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        releaseFile();
        releaseNextFile();
        store.closed(this);
    }

    /**
     * Runs {@link #doWork()} on its own thread of the queue's thread factory, sleeping {@code period} whenever there
     * was nothing to do.
     *
     * @param mbeanOwner the queue's MBean name key, to register the agent's MBean beside it; null for none.
     */
    void start(final Duration period, final String mbeanOwner) {
        final AgentHost started = AgentHost.builder("pretoucher of " + store.directory()
                        + " (until it succeeds, writers take their own page faults and create their own files)", this)
                .threadFactory(store.threadFactory())
                .errorHandler(store.errorHandler())
                .nanoClock(store.nanoClock())
                .mbeanBeside(mbeanOwner)
                .start(new SleepingIdleStrategy(period.toNanos()));
        host = started;
        thread = started.thread();
    }

    /** Moves to the new highest cycle: the file created ahead of this roll, its first pages already touched. */
    private void follow(final long highest) {
        releaseFile();
        if (nextFile != null && nextFile.cycle() == highest) {
            final MappedCursor spare = cursor;
            cursor = nextCursor;
            nextCursor = spare;
            file = nextFile;
            touchedPosition = nextTouchedPosition;
            nextFile = null;
            return;
        }
        // the writers skipped the cycle it was made for (no append in all of it): it stays empty
        releaseNextFile();
        file = cycleFiles.acquire(highest);
        if (file != null) {
            cursor.attach(file);
            touchedPosition = 0;
        }
    }

    /**
     * Creates the file of {@code cycle}, the one after the highest, if its roll is within the lead time, and
     * touches its first pages.
     *
     * @return the work done.
     */
    private int prepare(final long cycle) {
        final long startMillis = calendar.startMillis(cycle);
        final long now = epochClock.time();
        if (now < startMillis - leadMillis || now >= calendar.startMillis(cycle + 1)) {
            // too early; or the clock has left that cycle without an append, so the next append starts a later
            // one and a file made for this one would stay empty
            return 0;
        }
        int work = 0;
        CycleFile created = cycleFiles.acquire(cycle);
        if (created == null) {
            lock.lock();
            try {
                // only holders of the write lock create cycle files; and a writer may have rolled meanwhile
                if (metadata.highestCycle() < cycle) {
                    created = cycleFiles.acquire(cycle);
                    if (created == null) {
                        created = cycleFiles.create(cycle, metadata.indexSpacing(), metadata.indexBlockEntries(),
                                metadata.features());
                        work++;
                    }
                }
            } finally {
                lock.unlock();
            }
            if (created == null) {
                return 0;
            }
        }
        nextFile = created;
        nextCursor.attach(created);
        // the header page (the hints are rewritten on every append), the root index page of the first index
        // block, and the first pages of excerpts
        work += touch(nextCursor, 0, pageSize);
        work += touch(nextCursor, CycleDescriptor.ROOT_OFFSET, CycleDescriptor.ROOT_OFFSET + pageSize);
        nextTouchedPosition = pageCeiling(CycleDescriptor.DATA_OFFSET + pretouchLength);
        work += touch(nextCursor, CycleDescriptor.DATA_OFFSET & -pageSize, nextTouchedPosition);
        return work;
    }

    /** @return the number of pages in {@code [from, to)} touched, each with a CAS of an int with itself. */
    private int touch(final MappedCursor target, final long from, final long to) {
        int pages = 0;
        for (long position = from; position < to; position += pageSize) {
            final long address = target.address(position);
            // see the class comment: stores only the value already there, and only while it is still there
            final int value = MEMORY.readVolatileInt(address);
            MEMORY.compareAndSwapInt(address, value, value);
            pages++;
        }
        return pages;
    }

    private long pageCeiling(final long position) {
        return (position + pageSize - 1) & -pageSize;
    }

    private void releaseFile() {
        cursor.detach();
        if (file != null) {
            final CycleFile released = file;
            file = null;
            cycleFiles.release(released);
        }
    }

    private void releaseNextFile() {
        nextCursor.detach();
        if (nextFile != null) {
            final CycleFile released = nextFile;
            nextFile = null;
            cycleFiles.release(released);
        }
    }
}
