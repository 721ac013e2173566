package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.Direction;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.PauseStrategy;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SyncMarkerHandler;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import net.openhft.chronicle.bytes.Bytes;

import java.util.concurrent.TimeUnit;

import static dev.spool.queue.format.ExcerptDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Reads a queue's cycle files. Forward reads follow the headers; backward reads and {@link #moveToIndex(long)}
 * find positions through the sparse index: a root lookup, a block lookup, then a walk of fewer than
 * {@code indexSpacing} excerpts (more only past index entries a writer has not written yet).
 */
final class StoreTailer implements ExcerptTailer {
    private final Store store;
    private final MetadataFile metadata;
    private final CycleFiles cycleFiles;
    private final RollCycle rollCycle;
    private final String name;
    private final long namedIndexOffset;
    private final int maxMessageLength;
    private final PauseStrategy pause;
    private final MappedCursor cursor = new MappedCursor("tailer");
    private final MappedCursor indexCursor = new MappedCursor("tailer-index");

    private Direction direction = Direction.FORWARD;
    private SyncMarkerHandler syncMarkerHandler;
    private CycleFile file;
    private long cycle = -1;
    private long cycleBase;
    private int spacingShift;
    private long spacingMask;
    private int blockShift;
    private int blockMask;
    private int metadataLimit;
    /** Forward: the header of the next excerpt to look at. */
    private long position;
    /** The sequence of the next excerpt to read, in either direction. */
    private long sequence;
    /** Backward: positions of a run of consecutive sequences, filled from one index entry. */
    private long[] window = new long[0];
    private long windowFirst = -1;
    private int windowCount;
    private boolean closed;

    StoreTailer(final Store store, final String name, final long namedIndexOffset, final PauseStrategy pause) {
        this.store = store;
        this.metadata = store.metadata();
        this.cycleFiles = store.cycleFiles();
        this.rollCycle = store.rollCycle();
        this.name = name;
        this.namedIndexOffset = namedIndexOffset;
        this.maxMessageLength = store.maxMessageLength();
        this.pause = pause;
    }

    @Override
    public boolean read(final ExcerptHandler handler) {
        if (direction == Direction.BACKWARD) {
            final long at = peekBackward();
            if (at < 0) {
                return false;
            }
            final long index = cycleBase | sequence;
            // map the excerpt's chunk before taking the store
            final int length = length(MEMORY.readVolatileInt(cursor.address(at)));
            handler.onExcerpt(cursor.store(), at + HEADER_LENGTH, length, index);
            retreat(index);
            return true;
        }
        final int header = peek();
        if (header == 0) {
            return false;
        }
        final int length = length(header);
        final long index = cycleBase | sequence;
        handler.onExcerpt(cursor.store(), position + HEADER_LENGTH, length, index);
        advance(length, index);
        return true;
    }

    @Override
    public long read(final Bytes<?> into) {
        if (direction == Direction.BACKWARD) {
            final long at = peekBackward();
            if (at < 0) {
                return -1;
            }
            final long index = cycleBase | sequence;
            final int length = length(MEMORY.readVolatileInt(cursor.address(at)));
            into.write(cursor.store(), at + HEADER_LENGTH, length);
            retreat(index);
            return index;
        }
        final int header = peek();
        if (header == 0) {
            return -1;
        }
        final int length = length(header);
        final long index = cycleBase | sequence;
        into.write(cursor.store(), position + HEADER_LENGTH, length);
        advance(length, index);
        return index;
    }

    private void advance(final int length, final long index) {
        position += alignedLength(length);
        sequence++;
        if (namedIndexOffset >= 0) {
            metadata.writeOrderedLong(namedIndexOffset, index);
        }
    }

    /**
     * Moves forward over metadata, ends of cycle and missing cycles to the next data excerpt.
     *
     * @return its header, with {@link #position} at it, or 0 if there is none yet.
     */
    private int peek() {
        checkOpen();
        while (true) {
            if (file == null) {
                if (!nextCycle()) {
                    return 0;
                }
                continue;
            }
            int header = MEMORY.readVolatileInt(cursor.address(position));
            if (isData(header)) {
                if (length(header) > maxMessageLength) {
                    throw corrupt(header);
                }
                if ((sequence & spacingMask) == 0) {
                    checkIndexed();
                }
                // a finished cycle's hint is final: its end-of-cycle marker is there
                if (cycle < metadata.highestCycle()
                        && position + alignedLength(length(header)) > file.readVolatileWritePosition()) {
                    throw new CorruptQueueException(file.path(), position, String.format("header 0x%08x (%s) runs past"
                            + " the end of its finished cycle at position=%d: it or a header before it is damaged", header,
                            describe(header), file.readVolatileWritePosition()));
                }
                return header;
            }
            if (header == 0 || isInProgress(header)) {
                if (!endsExcerpts(position)) {
                    continue;
                }
                // a writer only starts a later cycle after ending this one, so a later cycle means no more data here
                if (cycle >= metadata.highestCycle()) {
                    return 0;
                }
                header = MEMORY.readVolatileInt(cursor.address(position));
                if (header == 0 || isInProgress(header)) {
                    if (!nextCycle()) {
                        return 0;
                    }
                    continue;
                }
            }
            if (isEndOfCycle(header)) {
                checkEnd();
                if (cycle >= metadata.highestCycle() || !nextCycle()) {
                    return 0;
                }
            } else if (isMetadata(header) && length(header) <= metadataLimit) {
                if (syncMarkerHandler != null && length(header) == SYNC_MARKER_LENGTH) {
                    deliverSyncMarker();
                }
                position += alignedLength(length(header));
            } else if (!isData(header)) {
                throw corrupt(header);
            }
        }
    }

    /** Moves to the first excerpt of the next cycle that has a file. */
    private boolean nextCycle() {
        if (metadata.highestCycle() < 0 || (file != null && cycle >= metadata.highestCycle())) {
            return false;
        }
        long next = file == null && cycle < 0 ? cycleFiles.first() : cycleFiles.next(cycle);
        while (next >= 0) {
            final CycleFile nextFile = cycleFiles.acquire(next);
            if (nextFile != null) {
                attach(nextFile);
                position = CycleDescriptor.DATA_OFFSET;
                sequence = 0;
                return true;
            }
            // deleted since it was listed, by retention in another process: the cycle after it is next
            next = cycleFiles.next(next);
        }
        return false;
    }

    private void retreat(final long index) {
        sequence--;
        if (namedIndexOffset >= 0) {
            metadata.writeOrderedLong(namedIndexOffset, index);
        }
    }

    /** @return the position of the excerpt a backward read returns next, moving to earlier cycles; or -1. */
    private long peekBackward() {
        checkOpen();
        if (file == null) {
            return -1;
        }
        while (sequence < 0) {
            final long previous = cycleFiles.previous(cycle);
            final CycleFile previousFile = previous < 0 ? null : cycleFiles.acquire(previous);
            if (previousFile == null) {
                return -1;
            }
            attach(previousFile);
            toEndOfFile();
            sequence--;
        }
        return positionOf(sequence);
    }

    /** @return the position of {@code target} in the current file, or -1 if it has not been written. */
    private long positionOf(final long target) {
        if (target >= windowFirst && target < windowFirst + windowCount) {
            return window[(int) (target - windowFirst)];
        }
        final long savedPosition = position;
        final long savedSequence = sequence;
        try {
            seekIndex(target);
            final long first = (target >>> spacingShift) << spacingShift;
            windowFirst = first;
            windowCount = 0;
            while (true) {
                final int header = MEMORY.readVolatileInt(cursor.address(position));
                if (isData(header)) {
                    if (length(header) > maxMessageLength) {
                        throw corrupt(header);
                    }
                    if (sequence >= first) {
                        window[windowCount++] = position;
                    }
                    if (sequence == target) {
                        return position;
                    }
                    sequence++;
                } else if (!isMetadata(header) || length(header) > metadataLimit) {
                    if (header == 0 || isInProgress(header)) {
                        if (endsExcerpts(position)) {
                            return -1;
                        }
                        continue;
                    }
                    if (isEndOfCycle(header)) {
                        checkEnd();
                        return -1;
                    }
                    throw corrupt(header);
                }
                position += alignedLength(length(header));
            }
        } finally {
            position = savedPosition;
            sequence = savedSequence;
        }
    }

    /** Positions {@link #position} and {@link #sequence} at the nearest indexed excerpt at or before {@code target}. */
    private void seekIndex(final long target) {
        long entry = target >>> spacingShift;
        while (entry >= 0) {
            final int block = (int) (entry >>> blockShift);
            final long blockPosition = file.rootEntry(block);
            if (blockPosition == 0) {
                entry = ((long) block << blockShift) - 1;
                continue;
            }
            checkBlockPosition(block, blockPosition);
            final long entryPosition = blockPosition + CycleDescriptor.BLOCK_ENTRIES_OFFSET + (entry & blockMask) * Long.BYTES;
            final long excerptPosition = MEMORY.readVolatileLong(indexCursor.address(entryPosition));
            if (excerptPosition != 0) {
                // a writer writes the entry of an excerpt before it moves the hint past it
                if (excerptPosition < CycleDescriptor.DATA_OFFSET || (excerptPosition & (ALIGNMENT - 1)) != 0
                        || excerptPosition > file.readVolatileWritePosition()) {
                    throw new CorruptQueueException(file.path(), entryPosition, "bad index entry " + entry + ": position="
                            + excerptPosition);
                }
                checkNeighbours(entry, entryPosition, excerptPosition);
                // a writer publishes an excerpt before its entry, so the entry points at a data header
                final int header = MEMORY.readVolatileInt(cursor.address(excerptPosition));
                if (header == 0 || isInProgress(header)) {
                    // not on disk (a torn tail) or damaged: a walk from an earlier entry tells which
                    entry--;
                    continue;
                }
                if (!isData(header) || length(header) > maxMessageLength) {
                    throw new CorruptQueueException(file.path(), entryPosition, String.format("bad index entry %d:"
                            + " position=%d holds header 0x%08x (%s), not a data excerpt", entry, excerptPosition, header,
                            describe(header)));
                }
                position = excerptPosition;
                sequence = entry << spacingShift;
                return;
            }
            entry--;
        }
        position = CycleDescriptor.DATA_OFFSET;
        sequence = 0;
    }

    /**
     * The writer that ended the cycle left its sequence hint at the count of its excerpts: a walk that reaches the
     * end-of-cycle marker with another count was sent there by a damaged header.
     */
    private void checkEnd() {
        final long count = file.writeSequence();
        if (sequence != count) {
            throw new CorruptQueueException(file.path(), position, "end of cycle after " + sequence + " excerpts, but its"
                    + " writer counted " + count + ": a header before it is damaged");
        }
    }

    /**
     * A torn tail loses the last excerpts: index entries may point into the lost range, never before it. An entry at
     * or past the walk's sequence that points before where the walk stopped means the walk skipped excerpts.
     */
    private void checkIndexedBefore(final long at) {
        final long entry = lastEntry();
        if (entry < 0 || entry << spacingShift < sequence) {
            return;
        }
        final long indexed = MEMORY.readVolatileLong(indexCursor.address(entryPosition(
                file.rootEntry((int) (entry >>> blockShift)), entry & blockMask)));
        if (indexed < at) {
            throw new CorruptQueueException(file.path(), at, "the excerpts seem to end here after " + sequence
                    + " excerpts, but the index puts sequence " + (entry << spacingShift) + " at position=" + indexed
                    + ": a header before it is damaged");
        }
    }

    /** Entries of one block increase: a damaged one that still points at a header mostly breaks that order. */
    private void checkNeighbours(final long entry, final long entryPosition, final long excerptPosition) {
        final long slot = entry & blockMask;
        final long before = slot == 0 ? 0 : MEMORY.readVolatileLong(indexCursor.address(entryPosition - Long.BYTES));
        final long after = slot == blockMask ? 0 : MEMORY.readVolatileLong(indexCursor.address(entryPosition + Long.BYTES));
        if (before != 0 && before >= excerptPosition || after != 0 && after <= excerptPosition) {
            throw new CorruptQueueException(file.path(), entryPosition, "index entry " + entry + ": position="
                    + excerptPosition + " is out of order with its neighbours " + before + " and " + after);
        }
    }

    /** A root entry must point at an index block: an aligned position in the data, with a block's header there. */
    private void checkBlockPosition(final int block, final long blockPosition) {
        final long rootEntryPosition = CycleDescriptor.rootEntryPosition(block);
        // a writer allocates a block just after the excerpt it indexes, before it moves the hint past that excerpt
        if (blockPosition < CycleDescriptor.DATA_OFFSET || (blockPosition & (ALIGNMENT - 1)) != 0
                || blockPosition > file.readVolatileWritePosition() + alignedLength(maxMessageLength)) {
            throw new CorruptQueueException(file.path(), rootEntryPosition, "bad root index entry " + block
                    + ": position=" + blockPosition);
        }
        final long address = indexCursor.address(blockPosition);
        final int header = MEMORY.readVolatileInt(address);
        final int type = MEMORY.readInt(address + CycleDescriptor.BLOCK_TYPE_OFFSET);
        if (header != (METADATA_FLAG | CycleDescriptor.blockPayloadLength(blockMask + 1)) || type != TYPE_INDEX_BLOCK) {
            throw new CorruptQueueException(file.path(), rootEntryPosition, String.format("bad root index entry %d:"
                    + " position=%d holds header 0x%08x (%s) and type %d, not an index block", block, blockPosition,
                    header, describe(header), type));
        }
    }

    /** @return the last index entry written in the current file, or -1; entries fill in order, so binary search. */
    private long lastEntry() {
        final int block = file.lastBlock();
        long entry = -1;
        if (block >= 0) {
            final long blockPosition = file.rootEntry(block);
            checkBlockPosition(block, blockPosition);
            int low = 0;
            int high = blockMask;
            while (low <= high) {
                final int mid = (low + high) >>> 1;
                if (MEMORY.readVolatileLong(indexCursor.address(entryPosition(blockPosition, mid))) != 0) {
                    entry = ((long) block << blockShift) + mid;
                    low = mid + 1;
                } else {
                    high = mid - 1;
                }
            }
        }
        return entry;
    }

    private static long entryPosition(final long blockPosition, final long slot) {
        return blockPosition + CycleDescriptor.BLOCK_ENTRIES_OFFSET + slot * Long.BYTES;
    }

    /** Walks to the tail of the current file: {@link #sequence} becomes the count of excerpts in it. */
    private void toEndOfFile() {
        final long entry = lastEntry();
        if (entry >= 0) {
            seekIndex(entry << spacingShift);
        } else {
            position = CycleDescriptor.DATA_OFFSET;
            sequence = 0;
        }
        while (true) {
            final int header = MEMORY.readVolatileInt(cursor.address(position));
            if (isEndOfCycle(header)) {
                checkEnd();
                return;
            }
            if ((header == 0 || isInProgress(header)) && endsExcerpts(position)) {
                return;
            }
            if (header == 0 || isInProgress(header)) {
                // published meanwhile: read it again
                continue;
            }
            if (isData(header) ? length(header) > maxMessageLength : !isMetadata(header) || length(header) > metadataLimit) {
                throw corrupt(header);
            }
            if (isData(header)) {
                sequence++;
            }
            position += alignedLength(length(header));
        }
    }

    @Override
    public boolean await(final long timeout, final TimeUnit unit) throws InterruptedException {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        pause.reset();
        while (!hasNext()) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while awaiting an excerpt of " + store.directory());
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            pause.pause();
        }
        return true;
    }

    private boolean hasNext() {
        if (direction == Direction.FORWARD) {
            return peek() != 0;
        }
        return peekBackward() >= 0;
    }

    @Override
    public long index() {
        return file == null ? -1 : cycleBase | sequence;
    }

    @Override
    public boolean moveToIndex(final long index) {
        checkOpen();
        if (index < 0) {
            return false;
        }
        final long targetCycle = rollCycle.toCycle(index);
        final long target = rollCycle.toSequence(index);
        final CycleFile previousFile = file;
        final long previousCycle = cycle;
        final long previousPosition = position;
        final long previousSequence = sequence;
        if (targetCycle != cycle || file == null) {
            final CycleFile targetFile = cycleFiles.acquire(targetCycle);
            if (targetFile == null) {
                return false;
            }
            if (previousFile != null) {
                cycleFiles.acquire(previousFile.cycle());
            }
            attach(targetFile);
        }
        final long at = positionOf(target);
        if (at >= 0) {
            position = at;
            sequence = target;
            if (previousFile != null && previousFile != file) {
                cycleFiles.release(previousFile);
            }
            return true;
        }
        if (previousFile != file) {
            if (previousFile == null) {
                detach();
            } else {
                // the extra reference taken above becomes the tailer's again
                attach(previousFile);
            }
        }
        cycle = previousCycle;
        position = previousPosition;
        sequence = previousSequence;
        return false;
    }

    @Override
    public ExcerptTailer toStart() {
        checkOpen();
        detach();
        cycle = -1;
        // the first file that exists: retention may delete the first one listed before it is opened
        for (long first = cycleFiles.first(); first >= 0; first = cycleFiles.next(first)) {
            final CycleFile firstFile = cycleFiles.acquire(first);
            if (firstFile != null) {
                attach(firstFile);
                position = CycleDescriptor.DATA_OFFSET;
                sequence = direction == Direction.BACKWARD ? -1 : 0;
                break;
            }
        }
        return this;
    }

    @Override
    public ExcerptTailer toEnd() {
        checkOpen();
        detach();
        cycle = -1;
        // not the last file: one past the highest cycle was created ahead of its roll (or by a writer that died
        // before recording it) and nothing is written there until a writer starts it; the end is in the highest cycle
        final long highest = metadata.highestCycle();
        final long last = highest < 0 ? -1 : cycleFiles.previous(highest + 1);
        final CycleFile lastFile = last < 0 ? null : cycleFiles.acquire(last);
        if (lastFile != null) {
            attach(lastFile);
            toEndOfFile();
            if (direction == Direction.BACKWARD) {
                sequence--;
            }
        }
        return this;
    }

    @Override
    public ExcerptTailer direction(final Direction direction) {
        if (this.direction != direction && file != null) {
            // the tailer sits between two excerpts: forward reads the one after, backward the one before
            if (direction == Direction.BACKWARD) {
                sequence--;
            } else {
                final long next = sequence + 1;
                final long at = positionOf(next);
                if (at >= 0) {
                    position = at;
                    sequence = next;
                } else {
                    toEndOfFile();
                }
            }
        }
        this.direction = direction;
        return this;
    }

    @Override
    public Direction direction() {
        return direction;
    }

    @Override
    public ExcerptTailer syncMarkers(final SyncMarkerHandler handler) {
        this.syncMarkerHandler = handler;
        return this;
    }

    private void deliverSyncMarker() {
        final long address = cursor.address(position);
        if (MEMORY.readInt(address + HEADER_LENGTH + METADATA_TYPE_OFFSET) == TYPE_SYNC_MARKER) {
            syncMarkerHandler.onSyncMarker(MEMORY.readLong(address + SYNC_MARKER_INDEX_OFFSET),
                    MEMORY.readLong(address + SYNC_MARKER_TIME_OFFSET));
        }
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * A header of 0 or in progress ends the excerpts, unless the writer's position hint lies beyond it. Then either
     * a writer published it meanwhile (it moves the hint past a header only after publishing it), or the excerpts
     * were torn by a power loss and only zeros lie up to the hint (the next writer recovers that), or the file is
     * damaged: the excerpts after it are not silently skipped.
     *
     * @return true if the excerpts end at {@code at}; false if a writer published the header meanwhile.
     * @throws CorruptQueueException if bytes other than zeros lie between {@code at} and the hint.
     */
    private boolean endsExcerpts(final long at) {
        // acquire: pairs with the writer's release store of the hint, which follows the header's
        final long hint = file.readVolatileWritePosition();
        if (at > hint && overshoots(at)) {
            throw new CorruptQueueException(file.path(), at, "the excerpts run on to position=" + at + ", past the"
                    + " write position=" + hint + " that their writer left: a header before it is damaged");
        }
        if (at >= hint) {
            return true;
        }
        final int again = MEMORY.readVolatileInt(cursor.address(at));
        if (isReady(again)) {
            return false;
        }
        final long nonZero = indexCursor.firstNonZero(at + HEADER_LENGTH, hint);
        // a finished cycle with a torn tail still has its end-of-cycle marker at the hint, written by the writer that
        // moved on; without it, the walk came here past that marker
        if (nonZero < 0 && (cycle >= metadata.highestCycle()
                || MEMORY.readVolatileInt(indexCursor.address(hint)) == END_OF_CYCLE)) {
            checkIndexedBefore(at);
            return true;
        }
        if (nonZero < 0) {
            throw new CorruptQueueException(file.path(), at, "only zeros from here to the write position=" + hint
                    + ", and no end-of-cycle marker there, in a finished cycle: a header before it is damaged");
        }
        throw new CorruptQueueException(file.path(), at, String.format("header 0x%08x (%s) where the excerpts go on:"
                + " byte at position=%d is not zero and the write position is %d; damage, not the end", again,
                describe(again), nonZero, hint));
    }

    /**
     * A writer moves the hint past what it published before it releases the write lock or starts a later cycle, so
     * excerpts that run past the hint are damage unless a writer holds the lock now (or died holding it).
     */
    private boolean overshoots(final long at) {
        if (cycle < metadata.highestCycle()) {
            return true;
        }
        // acquire: if the lock is free, the hint its last holder wrote is visible
        if (metadata.readVolatileLong(MetadataDescriptor.WRITE_LOCK_OFFSET) != 0) {
            return false;
        }
        return at > file.readVolatileWritePosition();
    }

    /**
     * Every {@code indexSpacing} excerpts, the index says where the excerpt of the sequence about to be read is: a
     * damaged header before it would have sent the walk elsewhere. The walk stops there rather than read on.
     */
    private void checkIndexed() {
        final long entry = sequence >>> spacingShift;
        final int block = (int) (entry >>> blockShift);
        final long blockPosition = file.rootEntry(block);
        if (blockPosition == 0) {
            // not written yet: a writer publishes the excerpt before its entry
            return;
        }
        checkBlockPosition(block, blockPosition);
        final long indexed = MEMORY.readVolatileLong(indexCursor.address(blockPosition + CycleDescriptor.BLOCK_ENTRIES_OFFSET
                + (entry & blockMask) * Long.BYTES));
        if (indexed != 0 && indexed != position) {
            throw new CorruptQueueException(file.path(), position, "the excerpt of sequence " + sequence + " is at"
                    + " position=" + position + " by the headers but at position=" + indexed + " by the index: a header"
                    + " or the index entry is damaged");
        }
    }

    /** Resumes after the last index a named tailer read. */
    void resume(final long lastRead) {
        if (lastRead < 0 || !moveToIndex(lastRead)) {
            toStart();
            return;
        }
        final int header = MEMORY.readVolatileInt(cursor.address(position));
        position += alignedLength(length(header));
        sequence++;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        detach();
        store.closed(this);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("tailer of " + store.directory() + " is closed");
        }
    }

    private CorruptQueueException corrupt(final int header) {
        return new CorruptQueueException(file.path(), position, String.format("bad header 0x%08x (%s)", header, describe(header)));
    }

    private void attach(final CycleFile next) {
        if (file != null) {
            final CycleFile released = file;
            file = null;
            cursor.detach();
            indexCursor.detach();
            cycleFiles.release(released);
        }
        file = next;
        cycle = next.cycle();
        cycleBase = rollCycle.toIndex(cycle, 0);
        spacingShift = Integer.numberOfTrailingZeros(next.indexSpacing());
        spacingMask = next.indexSpacing() - 1;
        blockShift = Integer.numberOfTrailingZeros(next.indexBlockEntries());
        blockMask = next.indexBlockEntries() - 1;
        metadataLimit = Math.max(maxMessageLength, CycleDescriptor.blockPayloadLength(next.indexBlockEntries()));
        if (window.length != next.indexSpacing()) {
            window = new long[next.indexSpacing()];
        }
        windowFirst = -1;
        windowCount = 0;
        cursor.attach(next);
        indexCursor.attach(next);
    }

    private void detach() {
        cursor.detach();
        indexCursor.detach();
        if (file != null) {
            final CycleFile released = file;
            file = null;
            cycleFiles.release(released);
        }
    }
}
