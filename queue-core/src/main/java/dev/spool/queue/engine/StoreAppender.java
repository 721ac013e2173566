package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.engine.QueueEngine.SyncTrigger;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.Objects;

import static dev.spool.queue.format.ExcerptDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Appends to a queue's cycle files under the queue's write lock.
 * <p>
 * One append: take the lock; find the cycle to write (the clock's, or a later one another writer already
 * started); check that the cycle file's write-position hint is where this appender left it and that the header
 * there is still empty (else another writer appended, or a dead one left something, and the tail is walked
 * again); copy the payload; zero the header after it; publish the header with a release store; write the index
 * entry if the sequence is a multiple of the index spacing; update the hints; release the lock.
 */
final class StoreAppender implements ExcerptAppender {
    private static final Logger LOG = LoggerFactory.getLogger(StoreAppender.class);
    private static final int NO_CLAIM = -1;

    private final Store store;
    private final WriteLock lock;
    private final MetadataFile metadata;
    private final CycleFiles cycleFiles;
    private final RollCycle rollCycle;
    private final int maxMessageLength;
    private final CycleSource clock;
    private final MappedCursor cursor = new MappedCursor("appender", true);
    private final MappedCursor indexCursor = new MappedCursor("appender-index");
    private final MappedCursor syncCursor = new MappedCursor("appender-sync");
    private final SyncTrigger trigger;
    /** Whether the queue deletes old cycles when a new one starts. */
    private final boolean retains;
    /** This appender started a new cycle while holding the lock: retention runs once it is released. */
    private boolean rolled;
    /** Where the next flush of the current file starts: everything before it is flushed. */
    private long flushedPosition;
    private int pendingFlush;

    private CycleFile file;
    private long cycle = -1;
    private long cycleBase;
    private long capacity;
    private int indexSpacing;
    private int indexBlockEntries;
    private int spacingShift;
    private int blockShift;
    private long position;
    private long sequence;
    private int lastBlock = -1;
    private long lastBlockPosition;
    private long lastIndex = -1;
    private int claimLength = NO_CLAIM;
    private boolean closed;

    StoreAppender(final Store store, final SyncTrigger trigger) {
        this.store = store;
        this.lock = store.writeLock();
        this.metadata = store.metadata();
        this.cycleFiles = store.cycleFiles();
        this.rollCycle = store.rollCycle();
        this.maxMessageLength = store.maxMessageLength();
        this.clock = store.cycleSource();
        this.trigger = trigger;
        this.retains = store.retains();
    }

    @Override
    public long append(final byte[] src, final int offset, final int length) {
        Objects.checkFromIndexSize(offset, length, src.length);
        checkAppend(length);
        final long address = beginWrite();
        MEMORY.copyMemory(src, offset, address + HEADER_LENGTH, length);
        return endWrite(address, length);
    }

    @Override
    public long append(final ByteBuffer src) {
        final int length = src.remaining();
        checkAppend(length);
        final long address = beginWrite();
        cursor.store().write(position + HEADER_LENGTH, src, src.position(), length);
        return endWrite(address, length);
    }

    @Override
    public long append(final BytesStore<?, ?> src, final long offset, final int length) {
        checkAppend(length);
        if (offset < src.start() || offset + length > src.capacity()) {
            throw new IllegalArgumentException("offset=" + offset + " length=" + length + " outside the source's ["
                    + src.start() + ", " + src.capacity() + ")");
        }
        final long address = beginWrite();
        if (src.isDirectMemory()) {
            MEMORY.copyMemory(src.addressForRead(offset), address + HEADER_LENGTH, (long) length);
        } else {
            cursor.store().write(position + HEADER_LENGTH, src, offset, length);
        }
        return endWrite(address, length);
    }

    /** Appends at {@code index}, which must be the next index of its cycle; see {@link dev.spool.queue.internal.IndexedAppender}. */
    long appendAt(final long index, final BytesStore<?, ?> src, final long offset, final int length) {
        checkAppend(length);
        if (offset < src.start() || offset + length > src.capacity()) {
            throw new IllegalArgumentException("offset=" + offset + " length=" + length + " outside the source's ["
                    + src.start() + ", " + src.capacity() + ")");
        }
        final long address = beginWriteAt(index);
        if (src.isDirectMemory()) {
            MEMORY.copyMemory(src.addressForRead(offset), address + HEADER_LENGTH, (long) length);
        } else {
            cursor.store().write(position + HEADER_LENGTH, src, offset, length);
        }
        return endWrite(address, length);
    }

    /** Appends at {@code index}, which must be the next index of its cycle; see {@link dev.spool.queue.internal.IndexedAppender}. */
    long appendAt(final long index, final byte[] src, final int offset, final int length) {
        Objects.checkFromIndexSize(offset, length, src.length);
        checkAppend(length);
        final long address = beginWriteAt(index);
        MEMORY.copyMemory(src, offset, address + HEADER_LENGTH, length);
        return endWrite(address, length);
    }

    /**
     * Like {@link #beginWrite()}, but the cycle comes from {@code index}, not the clock, and the tail must be exactly
     * at {@code index}: a replica holds the same excerpts at the same indices as its primary, and the ring's drainer
     * gives each excerpt the index the ring assigned, so an earlier index (written already) or a later one (a gap)
     * is an error. A later cycle starts at its sequence 0, and is refused before anything is rolled otherwise.
     */
    private long beginWriteAt(final long index) {
        lock.lock();
        try {
            final long fence = metadata.writeFence();
            if (fence != 0) {
                throw fenced(fence);
            }
            final long target = rollCycle.toCycle(index);
            final long highest = metadata.highestCycle();
            if (target < highest) {
                throw new SpoolException(writer() + " cannot write index " + index + " (cycle " + target
                        + ", sequence " + rollCycle.toSequence(index) + "): its highest cycle is already " + highest);
            }
            if (target > highest && rollCycle.toSequence(index) != 0) {
                throw unexpectedIndex(index, rollCycle.toIndex(target, 0), target, 0);
            }
            if (target != cycle) {
                moveToCycle(target);
            } else {
                if (lock.tookOverFromDeadHolder()) {
                    // the dead holder may have died between its two hint stores
                    recoverTornTail();
                    position = -1;
                }
                final long hint = file.writePosition();
                if (hint != position) {
                    position = hint;
                    sequence = file.writeSequence();
                }
                if (MEMORY.readVolatileInt(cursor.address(position)) != 0 && recoverTail()) {
                    throw new SpoolException(writer() + " cannot write index " + index
                            + ": cycle " + cycle + " has ended");
                }
            }
            final long expected = cycleBase | sequence;
            if (expected != index) {
                throw unexpectedIndex(index, expected, cycle, sequence);
            }
            if (sequence >= capacity) {
                throw new SpoolException("cycle " + cycle + " (" + file.path() + ") is full: " + sequence
                        + " excerpts, the capacity of roll cycle " + rollCycle + " with index spacing " + indexSpacing);
            }
            return cursor.address(position);
        } catch (RuntimeException | Error e) {
            lock.unlock();
            throw e;
        }
    }

    private SpoolException unexpectedIndex(final long index, final long expected, final long expectedCycle,
                                           final long expectedSequence) {
        return new SpoolException(writer() + " expected index " + expected + " (cycle " + expectedCycle + ", sequence "
                + expectedSequence + ") next, was given index " + index + " (sequence " + rollCycle.toSequence(index)
                + "): " + (index < expected ? "it is written already (another writer appended it)"
                : "a gap of " + (index - expected) + " excerpts"));
    }

    /** @return how errors name this appender's queue: a replica, or a primary written at given indices. */
    private String writer() {
        return (metadata.role() == MetadataDescriptor.ROLE_REPLICA ? "replica " : "queue ") + store.directory();
    }

    @Override
    public long claim(final int maxLength) {
        if (claimLength != NO_CLAIM) {
            throw new IllegalStateException("a claim of " + claimLength + " bytes is already open on this appender of "
                    + store.directory() + ": commit or roll it back first");
        }
        checkAppend(maxLength);
        final long address = beginWrite();
        // readers wait at an in-progress header; a writer that finds one after taking the lock knows its owner died
        MEMORY.writeOrderedInt(address, IN_PROGRESS_FLAG | maxLength);
        claimLength = maxLength;
        return position + HEADER_LENGTH;
    }

    @Override
    public BytesStore<?, ?> claimedBytes() {
        if (claimLength == NO_CLAIM) {
            throw new IllegalStateException("no open claim on this appender of " + store.directory());
        }
        return cursor.store();
    }

    @Override
    public long commit(final int length) {
        if (claimLength == NO_CLAIM) {
            throw new IllegalStateException("no open claim to commit on this appender of " + store.directory());
        }
        if (length < 1 || length > claimLength) {
            throw new IllegalArgumentException("commit length=" + length + " outside the claimed [1, " + claimLength
                    + "] in " + store.directory() + (length == 0 ? ": roll back an empty claim instead" : ""));
        }
        claimLength = NO_CLAIM;
        return endWrite(cursor.address(position), length);
    }

    @Override
    public void rollback() {
        if (claimLength == NO_CLAIM) {
            throw new IllegalStateException("no open claim to roll back on this appender of " + store.directory());
        }
        claimLength = NO_CLAIM;
        try {
            // the space stays free for the next writer; what the claim wrote is never reachable past an empty header
            MEMORY.writeOrderedInt(cursor.address(position), 0);
        } finally {
            lock.unlock();
        }
        if (rolled) {
            applyRetention();
        }
    }

    @Override
    public long lastIndexAppended() {
        return lastIndex;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (claimLength != NO_CLAIM) {
            rollback();
        }
        closed = true;
        releaseFile();
        store.closed(this);
    }

    boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("appender of " + store.directory() + " is closed");
        }
    }

    private void checkAppend(final int length) {
        checkOpen();
        if (length < 1 || length > maxMessageLength) {
            throw new IllegalArgumentException("message length=" + length + (length < 1
                    ? " is empty: an excerpt needs at least 1 byte (a header of 0 means nothing written)"
                    : " exceeds maxMessageLength=" + maxMessageLength) + " of " + store.directory());
        }
        if (claimLength != NO_CLAIM) {
            throw new IllegalStateException("a claim is open on this appender of " + store.directory()
                    + ": commit or roll it back before appending");
        }
    }

    /** @return the exception for a non-zero write fence: the queue was fenced, unless the fence word is damaged. */
    private RuntimeException fenced(final long byTerm) {
        if (metadata.role() != MetadataDescriptor.ROLE_FENCED || metadata.fencedByTerm() != byTerm) {
            return new CorruptQueueException(metadata.path(), MetadataDescriptor.WRITE_FENCE_OFFSET, "write fence="
                    + byTerm + " but role=" + metadata.role() + " and fenced-by-term=" + metadata.fencedByTerm()
                    + ", which fence() writes with it: the metadata is damaged; nothing was written");
        }
        return new IllegalStateException("queue " + store.directory() + " was fenced by term " + byTerm
                + ": another queue is the primary now; this appender's excerpt was not written");
    }

    /** Takes the lock and finds the tail; on return the lock is held and {@link #position} is the tail. */
    private long beginWrite() {
        lock.lock();
        try {
            final long fence = metadata.writeFence();
            if (fence != 0) {
                throw fenced(fence);
            }
            final long target = Math.max(clock.currentCycle(), metadata.highestCycle());
            if (target != cycle) {
                moveToCycle(target);
            } else {
                if (lock.tookOverFromDeadHolder()) {
                    // the dead holder may have died between its two hint stores
                    recoverTornTail();
                    position = -1;
                }
                final long hint = file.writePosition();
                if (hint != position) {
                    position = hint;
                    sequence = file.writeSequence();
                }
                if (MEMORY.readVolatileInt(cursor.address(position)) != 0 && recoverTail()) {
                    moveToCycle(nextCycleAfterEnd());
                }
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

    private long endWrite(final long address, final int length) {
        final int alignedLength = alignedLength(length);
        // a dead writer may have left bytes here: they must not read as the next header
        MEMORY.writeInt(address + alignedLength, 0);
        // release: the payload and the empty next header are visible before the header that publishes them
        MEMORY.writeOrderedInt(address, length);
        if (trigger != null) {
            pendingFlush = trigger.onAppend(cursor.store(), position + HEADER_LENGTH, length);
        }
        final long written = sequence;
        final long writtenPosition = position;
        position = writtenPosition + alignedLength;
        sequence = written + 1;
        if ((written & (indexSpacing - 1)) == 0) {
            index(written, writtenPosition);
        }
        file.writeHints(position, sequence);
        lock.unlock();
        store.appended();
        lastIndex = cycleBase | written;
        if (pendingFlush != SyncTrigger.DO_NOTHING) {
            flush(pendingFlush, position, lastIndex);
        }
        if (rolled) {
            applyRetention();
        }
        return lastIndex;
    }

    /** Deletes old cycles after a roll, outside the write lock: the roll's append does not hold up other writers. */
    private void applyRetention() {
        rolled = false;
        store.applyRetentionAfterRoll(cycle);
    }

    @Override
    public long sync() {
        checkOpen();
        if (claimLength != NO_CLAIM) {
            throw new IllegalStateException("a claim is open on this appender of " + store.directory()
                    + ": commit or roll it back before syncing");
        }
        final long tailPosition;
        final long tailIndex;
        lock.lock();
        try {
            final long highest = metadata.highestCycle();
            if (highest < 0) {
                return -1;
            }
            // consumed here whatever the branch: moveToCycle checks the hints of the file it attaches anyway
            final boolean tookOver = lock.tookOverFromDeadHolder();
            if (cycle != highest) {
                moveToCycle(highest);
            } else if (tookOver) {
                // the dead holder may have died between its two hint stores: the tail reported must be the real one
                recoverTornTail();
                position = -1;
            }
            tailPosition = file.writePosition();
            final long tailSequence = file.writeSequence();
            tailIndex = tailSequence == 0 ? -1 : cycleBase | (tailSequence - 1);
        } finally {
            lock.unlock();
        }
        flush(SyncTrigger.DO_SYNC, tailPosition, tailIndex);
        if (rolled) {
            applyRetention();
        }
        return tailIndex;
    }

    /** Flushes the current file up to {@code toPosition}, outside the write lock, and records what is durable. */
    private void flush(final int action, final long toPosition, final long throughIndex) {
        pendingFlush = SyncTrigger.DO_NOTHING;
        Msync.flush(syncCursor, flushedPosition, toPosition, action == SyncTrigger.DO_SYNC);
        if (action == SyncTrigger.DO_SYNC) {
            flushedPosition = toPosition;
            if (throughIndex >= 0) {
                metadata.advanceLastSyncedIndex(throughIndex);
                if (store.syncMarkers()) {
                    appendSyncMarker(throughIndex);
                }
            }
        }
        if (trigger != null) {
            trigger.flushed(action);
        }
    }

    /** Appends a sync marker: downstream readers learn that {@code syncedIndex} is on disk. */
    private void appendSyncMarker(final long syncedIndex) {
        beginWrite();
        final long address = cursor.address(position);
        final int alignedLength = alignedLength(SYNC_MARKER_LENGTH);
        MEMORY.writeInt(address + HEADER_LENGTH + METADATA_TYPE_OFFSET, TYPE_SYNC_MARKER);
        MEMORY.writeLong(address + SYNC_MARKER_INDEX_OFFSET, syncedIndex);
        MEMORY.writeLong(address + SYNC_MARKER_TIME_OFFSET, System.currentTimeMillis());
        MEMORY.writeInt(address + alignedLength, 0);
        // release: the marker's fields are visible before its header
        MEMORY.writeOrderedInt(address, METADATA_FLAG | SYNC_MARKER_LENGTH);
        position += alignedLength;
        file.writeHints(position, sequence);
        lock.unlock();
    }

    /** Writes the index entry of {@code indexedSequence}, allocating its block at the tail if needed. */
    private void index(final long indexedSequence, final long excerptPosition) {
        final long entry = indexedSequence >>> spacingShift;
        final int block = (int) (entry >>> blockShift);
        final int slot = (int) (entry & (indexBlockEntries - 1));
        if (block != lastBlock) {
            long blockPosition = file.rootEntry(block);
            if (blockPosition == 0) {
                blockPosition = allocateIndexBlock(block);
            } else {
                checkBlock(block, blockPosition);
            }
            lastBlock = block;
            lastBlockPosition = blockPosition;
        }
        final long entryPosition = lastBlockPosition + CycleDescriptor.BLOCK_ENTRIES_OFFSET + (long) slot * Long.BYTES;
        // release: a reader that finds the entry finds the excerpt it points at
        MEMORY.writeOrderedLong(indexCursor.address(entryPosition), excerptPosition);
    }

    /** The entry about to be written goes into the block a root entry points at: it must be one. */
    private void checkBlock(final int block, final long blockPosition) {
        final int header = blockPosition < CycleDescriptor.DATA_OFFSET || blockPosition >= position
                || (blockPosition & (ALIGNMENT - 1)) != 0 ? 0 : MEMORY.readVolatileInt(indexCursor.address(blockPosition));
        if (header != (METADATA_FLAG | CycleDescriptor.blockPayloadLength(indexBlockEntries))
                || MEMORY.readInt(indexCursor.address(blockPosition) + CycleDescriptor.BLOCK_TYPE_OFFSET) != TYPE_INDEX_BLOCK) {
            throw new CorruptQueueException(file.path(), CycleDescriptor.rootEntryPosition(block), String.format(
                    "bad root index entry %d: position=%d holds no index block (header 0x%08x); nothing was indexed",
                    block, blockPosition, header));
        }
    }

    private long allocateIndexBlock(final int block) {
        final int payloadLength = CycleDescriptor.blockPayloadLength(indexBlockEntries);
        final int alignedLength = alignedLength(payloadLength);
        final long blockPosition = position;
        final long address = cursor.address(blockPosition);
        MEMORY.setMemory(address + HEADER_LENGTH, payloadLength, (byte) 0);
        MEMORY.writeInt(address + CycleDescriptor.BLOCK_TYPE_OFFSET, TYPE_INDEX_BLOCK);
        MEMORY.writeInt(address + alignedLength, 0);
        // release: the zeroed block is complete before its header and its root entry
        MEMORY.writeOrderedInt(address, METADATA_FLAG | payloadLength);
        file.rootEntry(block, blockPosition);
        position = blockPosition + alignedLength;
        return blockPosition;
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
                nextFile = cycleFiles.create(next, metadata.indexSpacing(), metadata.indexBlockEntries());
            }
            attach(nextFile);
            // also when the file existed: its creator may have died before recording it, or a pretoucher made it
            // ahead of its roll, and tailers stop at the highest recorded cycle, so an excerpt written here would
            // never reach them
            if (metadata.cycleCreated(next) && retains) {
                rolled = true;
            }
            recoverTornTail();
            position = file.writePosition();
            sequence = file.writeSequence();
            if (MEMORY.readVolatileInt(cursor.address(position)) == 0 || !recoverTail()) {
                return;
            }
            next = nextCycleAfterEnd();
        }
    }

    /**
     * After a power loss the header page, with its hints and index, may have reached the disk while excerpts before
     * the hint did not: readers stop at the first empty header, and a writer trusting the hint would append behind
     * that gap where no reader ever looks. Walks from the last index entry whose excerpt is intact; if the excerpts
     * end before the hint, the tail is there: the hints move back and index entries past it are cleared.
     * Caller holds the write lock.
     */
    private void recoverTornTail() {
        final long hintPosition = file.writePosition();
        final long hintSequence = file.writeSequence();
        if (hintSequence < 0 || hintSequence > capacity) {
            throw new CorruptQueueException(file.path(), CycleDescriptor.WRITE_SEQUENCE_OFFSET, "write sequence hint="
                    + hintSequence + " outside the cycle's capacity of " + capacity + " excerpts: the header is damaged");
        }
        long walk = CycleDescriptor.DATA_OFFSET;
        long walkSequence = 0;
        for (long entry = hintSequence == 0 ? -1 : (hintSequence - 1) >>> spacingShift; entry >= 0; entry--) {
            final long blockPosition = file.rootEntry((int) (entry >>> blockShift));
            if (blockPosition == 0 || blockPosition >= hintPosition) {
                continue;
            }
            final long excerpt = MEMORY.readVolatileLong(indexCursor.address(blockPosition + CycleDescriptor.BLOCK_ENTRIES_OFFSET
                    + (entry & (indexBlockEntries - 1)) * Long.BYTES));
            if (excerpt >= CycleDescriptor.DATA_OFFSET && excerpt < hintPosition && isData(MEMORY.readVolatileInt(cursor.address(excerpt)))) {
                walk = excerpt;
                walkSequence = entry << spacingShift;
                break;
            }
        }
        while (walk < hintPosition) {
            final int header = MEMORY.readVolatileInt(cursor.address(walk));
            if (header == 0 || isInProgress(header) || isEndOfCycle(header)) {
                break;
            }
            checkHeader(header, walk);
            if (isData(header)) {
                walkSequence++;
            }
            walk += alignedLength(length(header));
        }
        if (walk == hintPosition && walkSequence == hintSequence + 1) {
            // a writer killed between the two hint stores (position first, then sequence) left the new position with
            // the old sequence: trusting it would give the next excerpt the index of the last one
            LOG.warn("torn write hints in {}: sequence={} at position={}, but {} excerpts precede that position; fixed",
                    file.path(), hintSequence, hintPosition, walkSequence);
            file.writeHints(walk, walkSequence);
            return;
        }
        if (walk > hintPosition || walk == hintPosition && walkSequence != hintSequence) {
            throw new CorruptQueueException(file.path(), CycleDescriptor.WRITE_POSITION_OFFSET, "write position hint="
                    + hintPosition + " and sequence hint=" + hintSequence + " disagree with the excerpts, which the index"
                    + " and the headers put at position=" + walk + " sequence=" + walkSequence
                    + ": the header or the index is damaged");
        }
        if (walk == hintPosition) {
            return;
        }
        // a power loss leaves only zeros after the last excerpt that reached the disk; anything else is damage in the
        // middle of the cycle, and writing over it would drop the excerpts after it
        final long nonZero = syncCursor.firstNonZero(walk + HEADER_LENGTH, hintPosition);
        if (nonZero >= 0) {
            final int header = MEMORY.readVolatileInt(cursor.address(walk));
            throw new CorruptQueueException(file.path(), walk, String.format("header 0x%08x (%s) ends the excerpts at"
                    + " sequence=%d, but the byte at position=%d is not zero and the write position hint is %d: damage,"
                    + " not a torn tail; nothing was written", header, describe(header), walkSequence, nonZero, hintPosition));
        }
        LOG.warn("torn tail in {}: the header says excerpts end at position={} sequence={}, they end at position={} sequence={};"
                + " the {} after it never reached the disk", file.path(), hintPosition, hintSequence, walk, walkSequence,
                hintSequence - walkSequence);
        MEMORY.writeOrderedInt(cursor.address(walk), 0);
        for (long entry = (walkSequence + (1L << spacingShift) - 1) >>> spacingShift;
             entry <= (hintSequence - 1) >>> spacingShift && hintSequence > 0; entry++) {
            final int block = (int) (entry >>> blockShift);
            final long blockPosition = file.rootEntry(block);
            if (blockPosition >= walk) {
                file.rootEntry(block, 0);
            } else if (blockPosition != 0) {
                MEMORY.writeOrderedLong(indexCursor.address(blockPosition + CycleDescriptor.BLOCK_ENTRIES_OFFSET
                        + (entry & (indexBlockEntries - 1)) * Long.BYTES), 0);
            }
        }
        lastBlock = -1;
        file.writeHints(walk, walkSequence);
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

    /**
     * Walks from the hint to the real tail: another writer died after publishing excerpts but before updating the
     * hints, or while holding a claim. Caller holds the write lock, so an in-progress header is a dead writer's.
     *
     * @return true if the cycle has ended.
     */
    private boolean recoverTail() {
        final long hintPosition = position;
        final long hintSequence = sequence;
        boolean ended = false;
        boolean published = false;
        while (true) {
            final long address = cursor.address(position);
            final int header = MEMORY.readVolatileInt(address);
            if (header == 0) {
                break;
            }
            if (isInProgress(header)) {
                // we hold the lock, so whoever claimed this is gone: free the space
                MEMORY.writeOrderedInt(address, 0);
                break;
            }
            if (isEndOfCycle(header)) {
                ended = true;
                break;
            }
            checkHeader(header, position);
            if (isData(header)) {
                sequence++;
                published = true;
            }
            position += alignedLength(length(header));
        }
        if (published && !ended) {
            indexRecovered(hintPosition, hintSequence);
        }
        file.writeHints(position, sequence);
        return ended;
    }

    /** Writes any index entries a dead writer published excerpts without. */
    private void indexRecovered(final long fromPosition, final long fromSequence) {
        long walk = fromPosition;
        long walkSequence = fromSequence;
        final long end = position;
        while (walk < end) {
            final int header = MEMORY.readVolatileInt(cursor.address(walk));
            if (isData(header)) {
                if ((walkSequence & (indexSpacing - 1)) == 0) {
                    index(walkSequence, walk);
                }
                walkSequence++;
            }
            walk += alignedLength(length(header));
        }
    }

    private void checkHeader(final int header, final long at) {
        final int length = length(header);
        final int limit = isMetadata(header) ? Math.max(maxMessageLength, CycleDescriptor.blockPayloadLength(indexBlockEntries))
                : maxMessageLength;
        if (!isWellFormed(header) || length > limit) {
            throw new CorruptQueueException(file.path(), at, String.format("bad header 0x%08x (%s)", header, describe(header)));
        }
    }

    private void attach(final CycleFile next) {
        if (trigger != null && file != null && file.writePosition() > flushedPosition) {
            // what the policy has not flushed yet in the cycle being left must not later count as synced with the next
            Msync.flush(syncCursor, flushedPosition, file.writePosition(), true);
        }
        releaseFile();
        file = next;
        cycle = next.cycle();
        cycleBase = rollCycle.toIndex(cycle, 0);
        capacity = Math.min(rollCycle.maxSequences(), next.indexCapacity());
        indexSpacing = next.indexSpacing();
        indexBlockEntries = next.indexBlockEntries();
        spacingShift = Integer.numberOfTrailingZeros(indexSpacing);
        blockShift = Integer.numberOfTrailingZeros(indexBlockEntries);
        lastBlock = -1;
        cursor.attach(next);
        indexCursor.attach(next);
        syncCursor.attach(next);
        flushedPosition = CycleDescriptor.DATA_OFFSET;
    }

    private void releaseFile() {
        cursor.detach();
        indexCursor.detach();
        syncCursor.detach();
        if (file != null) {
            final CycleFile released = file;
            file = null;
            cycle = -1;
            cycleFiles.release(released);
        }
    }
}
