package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import net.openhft.chronicle.bytes.MappedBytesStore;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import static dev.spool.queue.format.ExcerptDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * An appender's hold on the queue's tail, under the write lock: finds the tail (in the clock's cycle, or exactly at
 * a given index), rolls to a later cycle (end-of-cycle marker, new file, the highest cycle recorded), publishes an
 * excerpt with its index entry and moves the write hints, and flushes what it wrote. Holds the state of the cycle
 * file the appender writes: the fields of the append path live here, in the class that does that work.
 * <p>
 * One append: take the lock; find the cycle to write; check that the cycle file's write-position hint is where
 * this writer left it and that the header there is still empty (else another writer appended, or a dead one left
 * something, and the tail is walked again); the caller copies the payload; zero the header after it; publish the
 * header with a release store; write the index entry if the sequence is indexed; update the hints; release the lock.
 */
final class TailWriter {
    /** The index argument of {@link #begin(long)} that means "the next one, by the clock". */
    static final long NEXT = -1;
    /** What {@link #syncTail()} returns for a queue with no cycle yet: nothing was flushed. */
    static final long EMPTY = Long.MIN_VALUE;

    private final Store store;
    private final WriteLock lock;
    private final MetadataFile metadata;
    private final CycleFiles cycleFiles;
    private final RollCycle rollCycle;
    private final CycleSource clock;
    /** Stamps sync markers. */
    private final EpochClock epochClock;
    /** Times the syncs. */
    private final NanoClock nanoClock;
    private final MappedCursor cursor = new MappedCursor("appender", true);
    private final MappedCursor syncCursor = new MappedCursor("appender-sync");
    private final SparseIndex index;
    private final TailRecovery recovery;
    /** Whether the queue deletes old cycles when a new one starts. */
    private final boolean retains;
    /** Whether the appender's sync policy flushes: what it has not flushed of a cycle is flushed when leaving it. */
    private final boolean flushesOnRoll;
    private final AppenderCounters counters;
    /** The queue's term when this writer was made; read only when a write fence is up. */
    private final long term;
    /** This writer started a new cycle while holding the lock: retention runs once it is released. */
    private boolean rolled;
    /** Where the next flush of the current file starts: everything before it is flushed. */
    private long flushedPosition;

    private CycleFile file;
    private long cycle = -1;
    private long cycleBase;
    private long capacity;
    private int indexSpacing;
    private long position;
    private long sequence;

    /**
     * @param term the queue's term when the writer was made: a write fence of a later term (the queue was fenced or
     *             demoted after that) refuses its writes.
     */
    TailWriter(final Store store, final boolean flushesOnRoll, final AppenderCounters counters, final long term) {
        this.store = store;
        this.term = term;
        this.counters = counters;
        this.lock = store.writeLock();
        this.metadata = store.metadata();
        this.cycleFiles = store.cycleFiles();
        this.rollCycle = store.rollCycle();
        this.clock = store.cycleSource();
        this.retains = store.retains();
        this.flushesOnRoll = flushesOnRoll;
        this.epochClock = store.epochClock();
        this.nanoClock = store.nanoClock();
        this.index = new SparseIndex("appender-index", store.maxDataLength(), epochClock);
        this.recovery = new TailRecovery(cursor, syncCursor, index, store.maxDataLength(), store.counters());
    }

    /** @return the position of the tail's header: the excerpt being written, while the lock is held. */
    long position() {
        return position;
    }

    /** @return the address of the tail's header, while the lock is held. */
    long address() {
        return cursor.address(position);
    }

    /** @return the mapped chunk that holds the tail; its offsets are file positions. */
    MappedBytesStore bytes() {
        return cursor.store();
    }

    /** @return the cycle of the current file, or -1. */
    long cycle() {
        return cycle;
    }

    /** @return true once if a roll happened since the last call: retention is due. */
    boolean takeRolled() {
        final boolean wasRolled = rolled;
        rolled = false;
        return wasRolled;
    }

    /**
     * Takes the lock and finds the tail; on return the lock is held and {@link #position} is the tail. With
     * {@code at} of {@link #NEXT} the cycle is the clock's, or a later one another writer already started. Otherwise
     * the cycle is {@code at}'s and the tail must be exactly at {@code at}: a replica holds the same excerpts at the
     * same indices as its primary, and the ring's drainer gives each excerpt the index the ring assigned, so an
     * earlier index (written already) or a later one (a gap) is refused.
     */
    long begin(final long at) {
        lock.lock();
        try {
            final long fence = metadata.writeFence();
            if (fence != 0 && fence > term) {
                throw fenced(fence);
            }
            final long target = at == NEXT ? Math.max(clock.currentCycle(), metadata.highestCycle()) : cycleOf(at);
            if (target != cycle) {
                moveToCycle(target);
            } else {
                if (lock.tookOverFromDeadHolder()) {
                    // the dead holder may have died between its two hint stores
                    recovery.recoverTornTail(file, capacity);
                    position = -1;
                }
                final long hint = file.writePosition();
                if (hint != position) {
                    position = hint;
                    sequence = file.writeSequence();
                }
                if (MEMORY.readVolatileInt(cursor.address(position)) != 0 && recoverTail()) {
                    if (at != NEXT) {
                        throw new SpoolException(writer() + " cannot write index " + IndexFormat.format(at, rollCycle) + ": cycle " + cycle + " has ended");
                    }
                    moveToCycle(nextCycleAfterEnd());
                }
            }
            if (at != NEXT && (cycleBase | sequence) != at) {
                throw unexpectedIndex(at, cycleBase | sequence);
            }
            if (sequence >= capacity) {
                throw new SpoolException("cycle " + cycle + " (" + file.path() + ") is full: " + sequence
                        + " excerpts, the capacity of roll cycle " + rollCycle + " with index spacing " + indexSpacing
                        + "; use a shorter roll cycle or a larger index spacing");
            }
            return cursor.address(position);
        } catch (RuntimeException | Error e) {
            // the next append finds its tail again from the file, and refuses again what was refused now
            releaseFile();
            lock.unlock();
            throw e;
        }
    }

    /**
     * @return the cycle of {@code index}: the highest cycle, or sequence 0 of a later one; a later cycle is refused
     * before anything is rolled otherwise.
     */
    private long cycleOf(final long index) {
        final long target = rollCycle.toCycle(index);
        final long highest = metadata.highestCycle();
        if (target < highest) {
            throw new SpoolException(writer() + " cannot write index " + IndexFormat.format(index, rollCycle)
                    + ": its highest cycle is already " + highest);
        }
        if (target > highest && rollCycle.toSequence(index) != 0) {
            throw unexpectedIndex(index, rollCycle.toIndex(target, 0));
        }
        return target;
    }

    /**
     * Publishes the excerpt whose payload the caller wrote at {@code address}, indexes it, moves the hints and
     * releases the lock.
     *
     * @return its index.
     */
    long publish(final long address, final int length) {
        final int alignedLength = alignedLength(length);
        // a dead writer may have left bytes here: they must not read as the next header
        MEMORY.writeInt(address + alignedLength, 0);
        // release: the payload and the empty next header are visible before the header that publishes them
        MEMORY.writeOrderedInt(address, length);
        final long written = sequence;
        final long writtenPosition = position;
        position = writtenPosition + alignedLength;
        sequence = written + 1;
        if (index.isIndexed(written)) {
            position = index.write(written, writtenPosition, position, cursor);
        }
        file.writeHints(position, sequence);
        lock.unlock();
        return cycleBase | written;
    }

    /** Marks the tail's header in progress: readers wait there, and a writer that finds it knows its owner died. */
    void claim(final int maxLength) {
        MEMORY.writeOrderedInt(cursor.address(position), IN_PROGRESS_FLAG | maxLength);
    }

    /** Gives up the claimed tail and releases the lock. */
    void abandon() {
        try {
            // the space stays free for the next writer; what the claim wrote is never reachable past an empty header
            MEMORY.writeOrderedInt(cursor.address(position), 0);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Finds the tail of the highest cycle, under the lock, and flushes the file up to it with msync.
     *
     * @return the last index now on disk, -1 if the highest cycle is empty, or {@link #EMPTY} if there is none.
     */
    long syncTail() {
        final long tailPosition;
        final long tailIndex;
        lock.lock();
        try {
            final long highest = metadata.highestCycle();
            if (highest < 0) {
                return EMPTY;
            }
            // consumed here whatever the branch: moveToCycle checks the hints of the file it attaches anyway
            final boolean tookOver = lock.tookOverFromDeadHolder();
            if (cycle != highest) {
                moveToCycle(highest);
            } else if (tookOver) {
                // the dead holder may have died between its two hint stores: the tail reported must be the real one
                recovery.recoverTornTail(file, capacity);
                position = -1;
            }
            tailPosition = file.writePosition();
            final long tailSequence = file.writeSequence();
            tailIndex = tailSequence == 0 ? -1 : cycleBase | (tailSequence - 1);
        } finally {
            lock.unlock();
        }
        flush(true, tailPosition);
        return tailIndex;
    }

    /** Flushes the current file from where the last flush ended up to {@code toPosition}, outside the write lock. */
    void flush(final boolean sync, final long toPosition) {
        if (!sync) {
            Msync.flush(syncCursor, flushedPosition, toPosition, false);
            return;
        }
        final long start = nanoClock.nanoTime();
        Msync.flush(syncCursor, flushedPosition, toPosition, true);
        counters.synced(nanoClock.nanoTime() - start);
        flushedPosition = toPosition;
    }

    /** Appends a sync marker: downstream readers learn that {@code syncedIndex} is on disk. */
    void appendSyncMarker(final long syncedIndex) {
        begin(NEXT);
        final long address = cursor.address(position);
        final int alignedLength = alignedLength(SYNC_MARKER_LENGTH);
        MEMORY.writeInt(address + HEADER_LENGTH + METADATA_TYPE_OFFSET, TYPE_SYNC_MARKER);
        MEMORY.writeLong(address + SYNC_MARKER_INDEX_OFFSET, syncedIndex);
        MEMORY.writeLong(address + SYNC_MARKER_TIME_OFFSET, epochClock.time());
        MEMORY.writeInt(address + alignedLength, 0);
        // release: the marker's fields are visible before its header
        MEMORY.writeOrderedInt(address, METADATA_FLAG | SYNC_MARKER_LENGTH);
        position += alignedLength;
        file.writeHints(position, sequence);
        lock.unlock();
    }

    /**
     * @return the exception for a write fence later than this writer's term: the queue was fenced, or demoted to a
     * replica, after the writer was made; unless the fence word is damaged.
     */
    private RuntimeException fenced(final long byTerm) {
        final int role = metadata.role();
        if (metadata.fencedByTerm() != byTerm || role == MetadataDescriptor.ROLE_PRIMARY && metadata.term() < byTerm) {
            return new CorruptQueueException(metadata.path(), MetadataDescriptor.WRITE_FENCE_OFFSET, "write fence="
                    + byTerm + " but role=" + role + ", term=" + metadata.term() + " and fenced-by-term="
                    + metadata.fencedByTerm() + ", which fence() and demote() write with it: the metadata is damaged;"
                    + " nothing was written");
        }
        if (role == MetadataDescriptor.ROLE_FENCED) {
            return new SpoolException("queue " + store.directory() + " was fenced by term " + byTerm
                    + ": another queue is the primary now; this appender's excerpt was not written");
        }
        return new SpoolException("queue " + store.directory() + " was demoted to a replica by term " + byTerm
                + " after this appender was made (at term " + term + "): another queue is the primary now; this"
                + " appender's excerpt was not written");
    }

    private SpoolException unexpectedIndex(final long index, final long expected) {
        return new SpoolException(writer() + " expected index " + IndexFormat.format(expected, rollCycle)
                + " next, was given index " + IndexFormat.format(index, rollCycle) + ": " + (index < expected ? "it is written already (another writer appended it)"
                : "a gap of " + (index - expected) + " excerpts"));
    }

    /** @return how errors name this appender's queue: a replica, or a primary written at given indices. */
    private String writer() {
        return (metadata.role() == MetadataDescriptor.ROLE_REPLICA ? "replica " : "queue ") + store.directory();
    }

    /** Opens (creating if needed) {@code target} and finds its tail, ending the previous highest cycle first. */
    private void moveToCycle(final long target) {
        long next = target;
        while (true) {
            final long highest = metadata.highestCycle();
            if (next > highest && highest >= 0) {
                if (cycle != highest) {
                    final CycleFile highestFile = cycleFiles.acquire(highest);
                    if (highestFile != null) {
                        attach(highestFile);
                    }
                }
                if (cycle == highest) {
                    endCurrentCycle();
                }
            }
            CycleFile nextFile = cycleFiles.acquire(next);
            if (nextFile == null) {
                nextFile = cycleFiles.create(next, metadata.indexSpacing(), metadata.indexBlockEntries(),
                        metadata.features());
            }
            attach(nextFile);
            // also when the file existed: its creator may have died before recording it, or a pretoucher made it
            // ahead of its roll, and tailers stop at the highest recorded cycle, so an excerpt written here would
            // never reach them
            if (metadata.cycleCreated(next) && retains) {
                rolled = true;
            }
            recovery.recoverTornTail(file, capacity);
            position = file.writePosition();
            sequence = file.writeSequence();
            if (MEMORY.readVolatileInt(cursor.address(position)) == 0 || !recoverTail()) {
                return;
            }
            next = nextCycleAfterEnd();
        }
    }

    /** The current cycle has ended: a writer died between ending it and starting the next. */
    private long nextCycleAfterEnd() {
        final long existing = cycleFiles.next(cycle);
        return existing >= 0 ? existing : Math.max(clock.currentCycle(), cycle + 1);
    }

    /** Writes the end-of-cycle marker at the tail of the current cycle, unless it is there already. */
    private void endCurrentCycle() {
        position = file.writePosition();
        sequence = file.writeSequence();
        if (MEMORY.readVolatileInt(cursor.address(position)) != 0 && recoverTail()) {
            return;
        }
        // release: readers see the marker before they can see the next cycle as the highest
        MEMORY.writeOrderedInt(cursor.address(position), END_OF_CYCLE);
    }

    /** Walks from the hints to the real tail; @return true if the cycle has ended. */
    private boolean recoverTail() {
        final boolean ended = recovery.recoverTail(file);
        position = file.writePosition();
        sequence = file.writeSequence();
        return ended;
    }

    private void attach(final CycleFile next) {
        if (flushesOnRoll && file != null && file.writePosition() > flushedPosition) {
            // what the policy has not flushed yet in the cycle being left must not later count as synced with the next
            Msync.flush(syncCursor, flushedPosition, file.writePosition(), true);
        }
        releaseFile();
        file = next;
        cycle = next.cycle();
        cycleBase = rollCycle.toIndex(cycle, 0);
        capacity = Math.min(rollCycle.maxSequences(), next.indexCapacity());
        indexSpacing = next.indexSpacing();
        cursor.attach(next);
        index.attach(next);
        syncCursor.attach(next);
        flushedPosition = CycleDescriptor.DATA_OFFSET;
    }

    /** Lets go of the current file; the next write finds its tail again from the file. */
    void releaseFile() {
        cursor.detach();
        index.detach();
        syncCursor.detach();
        if (file != null) {
            final CycleFile released = file;
            file = null;
            cycle = -1;
            cycleFiles.release(released);
        }
    }
}
