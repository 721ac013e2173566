package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.format.CycleDescriptor;

import static dev.spool.queue.format.ExcerptDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

import org.agrona.concurrent.EpochClock;

/**
 * The sparse index of the cycle file an appender or tailer works on (layout: {@link CycleDescriptor}). Sequence
 * {@code s} with {@code s % spacing == 0} has entry {@code e = s / spacing}, in block {@code e / blockEntries} at slot
 * {@code e % blockEntries}; the block's root entry, in the file's header, gives the block's position. This class owns
 * that arithmetic, reading and writing entries, allocating a block at the tail, and the checks that a root entry
 * points at an index block. Thread-confined, like its owner; attached to one file at a time.
 * <p>
 * In a file with index times, each entry also has a time, {@code blockEntries} longs after its position: the writer's
 * clock when it indexed the excerpt, never less than the entry before's, so times never decrease in a file.
 */
final class SparseIndex {
    private final MappedCursor entries;
    private final int maxDataLength;
    /** The writer's clock for index times; null for a reader. */
    private final EpochClock clock;
    private CycleFile file;
    /** From an entry's position to its time, or 0 if the file's entries hold no times. */
    private long timeOffset;
    private long spacingMask;
    private int spacingShift;
    private int blockShift;
    private int blockMask;
    private int blockHeader;
    /** The block of the last entry written, so that entries of one block need one root lookup. */
    private int lastBlock = -1;
    private long lastBlockPosition;

    /**
     * @param name          the cursor's name, for reference tracing.
     * @param maxDataLength the longest body of a data excerpt (payload, and its CRC32C if any): how far past the
     *                      write position a new block may lie.
     * @param clock         the writer's clock, read once per index entry of a file with index times; null for a
     *                      reader.
     */
    SparseIndex(final String name, final int maxDataLength, final EpochClock clock) {
        this.entries = new MappedCursor(name);
        this.maxDataLength = maxDataLength;
        this.clock = clock;
    }

    /** Works on {@code next} from now on; its owner holds the file's reference. */
    void attach(final CycleFile next) {
        file = next;
        spacingMask = next.indexSpacing() - 1;
        spacingShift = Integer.numberOfTrailingZeros(next.indexSpacing());
        blockShift = Integer.numberOfTrailingZeros(next.indexBlockEntries());
        blockMask = next.indexBlockEntries() - 1;
        blockHeader = METADATA_FLAG | CycleDescriptor.blockPayloadLength(next.indexBlockEntries(), next.features());
        timeOffset = CycleDescriptor.hasIndexTimes(next.features()) ? (long) next.indexBlockEntries() * Long.BYTES : 0;
        lastBlock = -1;
        entries.attach(next);
    }

    /** Releases the mapped chunk and forgets the file. */
    void detach() {
        entries.detach();
        file = null;
        lastBlock = -1;
    }

    /** Forgets the last block written: recovery may have cleared its root entry. */
    void forgetLastBlock() {
        lastBlock = -1;
    }

    /** @return true if {@code sequence} has an index entry. */
    boolean isIndexed(final long sequence) {
        return (sequence & spacingMask) == 0;
    }

    /** @return the entry of {@code sequence}, or of the last indexed sequence before it. */
    long entryOf(final long sequence) {
        return sequence >>> spacingShift;
    }

    /** @return the sequence whose excerpt {@code entry} points at. */
    long sequenceOf(final long entry) {
        return entry << spacingShift;
    }

    /** @return the block that holds {@code entry}. */
    int blockOf(final long entry) {
        return (int) (entry >>> blockShift);
    }

    /** @return the first entry of {@code block}. */
    long firstEntryOf(final int block) {
        return (long) block << blockShift;
    }

    /** @return the position of {@code entry} in the block at {@code blockPosition}. */
    long entryPosition(final long blockPosition, final long entry) {
        return CycleDescriptor.indexEntryPosition(blockPosition, (int) (entry & blockMask));
    }

    /** @return the position of the block that holds {@code entry}, or 0 if it has not been allocated. */
    long blockPositionOf(final long entry) {
        return file.rootEntry(blockOf(entry));
    }

    /** @return the excerpt position an entry holds, or 0 if it has not been written; acquire, pairs with write. */
    long read(final long entryPosition) {
        return MEMORY.readVolatileLong(entries.address(entryPosition));
    }

    /** @return the entries cursor, whose mapping follows the last entry or block read. */
    MappedCursor cursor() {
        return entries;
    }

    /**
     * Writes the entry of {@code indexedSequence}, first allocating its block at {@code tail} through the writer's
     * cursor if the block has no root entry yet. Caller holds the write lock.
     *
     * @return the tail: past the new block if one was allocated.
     */
    long write(final long indexedSequence, final long excerptPosition, final long tail, final MappedCursor tailCursor) {
        final long entry = indexedSequence >>> spacingShift;
        final int block = (int) (entry >>> blockShift);
        long newTail = tail;
        if (block != lastBlock) {
            long blockPosition = file.rootEntry(block);
            if (blockPosition == 0) {
                blockPosition = tail;
                newTail = tail + allocate(block, tail, tailCursor);
            } else {
                checkBlockForWrite(block, blockPosition, tail);
            }
            lastBlock = block;
            lastBlockPosition = blockPosition;
        }
        final long entryPosition = entryPosition(lastBlockPosition, entry);
        if (timeOffset != 0) {
            final long time = Math.max(clock.time(), previousTime(entry, entryPosition));
            MEMORY.writeLong(entries.address(entryPosition + timeOffset), time);
        }
        // release: a reader that finds the entry finds the excerpt it points at, and the entry's time
        MEMORY.writeOrderedLong(entries.address(entryPosition), excerptPosition);
        return newTail;
    }

    /** @return the time of the entry before {@code entry}, or {@link Long#MIN_VALUE} if it has none. */
    private long previousTime(final long entry, final long entryPosition) {
        if (entry == 0) {
            return Long.MIN_VALUE;
        }
        final long previousPosition = (entry & blockMask) != 0 ? entryPosition - Long.BYTES
                : entryPosition(blockPositionOf(entry - 1), entry - 1);
        return MEMORY.readLong(entries.address(previousPosition + timeOffset));
    }

    /** @return true if this file's entries hold times. */
    boolean hasTimes() {
        return timeOffset != 0;
    }

    /**
     * Binary search of the entries written, whose times never decrease.
     *
     * @param timeMillis a time, ms since 1970.
     * @return the last entry whose time is before {@code timeMillis}, or -1 if none is. Needs index times.
     */
    long lastEntryBefore(final long timeMillis) {
        long low = 0;
        long high = lastEntry();
        long found = -1;
        while (low <= high) {
            final long mid = (low + high) >>> 1;
            if (time(mid) < timeMillis) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    /** @return the time of {@code entry}, which has been written; acquire through its position. */
    long time(final long entry) {
        final int block = blockOf(entry);
        final long blockPosition = file.rootEntry(block);
        checkBlockForRead(block, blockPosition);
        final long entryPosition = entryPosition(blockPosition, entry);
        if (read(entryPosition) == 0) {
            throw new CorruptQueueException(file.path(), entryPosition, "index entry " + entry
                    + " is empty, but a later one is written");
        }
        return MEMORY.readLong(entries.address(entryPosition + timeOffset));
    }

    /** Clears the root entry of a block that lies past a torn tail. Caller holds the write lock. */
    void clearBlock(final int block) {
        file.rootEntry(block, 0);
    }

    /** Clears an entry past a torn tail. Caller holds the write lock. */
    void clear(final long blockPosition, final long entry) {
        MEMORY.writeOrderedLong(entries.address(entryPosition(blockPosition, entry)), 0);
    }

    /** @return the aligned length of the new, empty block written at {@code blockPosition}. */
    private int allocate(final int block, final long blockPosition, final MappedCursor tailCursor) {
        final int payloadLength = length(blockHeader);
        final int alignedLength = alignedLength(payloadLength);
        final long address = tailCursor.address(blockPosition);
        MEMORY.setMemory(address + HEADER_LENGTH, payloadLength, (byte) 0);
        MEMORY.writeInt(address + CycleDescriptor.BLOCK_TYPE_OFFSET, TYPE_INDEX_BLOCK);
        MEMORY.writeInt(address + alignedLength, 0);
        // release: the zeroed block is complete before its header and its root entry
        MEMORY.writeOrderedInt(address, blockHeader);
        file.rootEntry(block, blockPosition);
        return alignedLength;
    }

    /** The entry about to be written goes into the block a root entry points at: it must be one before the tail. */
    private void checkBlockForWrite(final int block, final long blockPosition, final long tail) {
        final int header = blockPosition < CycleDescriptor.DATA_OFFSET || blockPosition >= tail
                || (blockPosition & (ALIGNMENT - 1)) != 0 ? 0 : MEMORY.readVolatileInt(entries.address(blockPosition));
        if (header != blockHeader
                || MEMORY.readInt(entries.address(blockPosition) + CycleDescriptor.BLOCK_TYPE_OFFSET) != TYPE_INDEX_BLOCK) {
            throw new CorruptQueueException(file.path(), CycleDescriptor.rootEntryPosition(block), String.format(
                    "bad root index entry %d: position=%d holds no index block (header 0x%08x); nothing was indexed",
                    block, blockPosition, header));
        }
    }

    /**
     * A root entry a reader follows must point at an index block: an aligned position in the data, with a block's
     * header there. A writer allocates a block just after the excerpt it indexes, before it moves the hint past that
     * excerpt, so the block lies at most one excerpt past the write position.
     */
    void checkBlockForRead(final int block, final long blockPosition) {
        final long rootEntryPosition = CycleDescriptor.rootEntryPosition(block);
        if (blockPosition < CycleDescriptor.DATA_OFFSET || (blockPosition & (ALIGNMENT - 1)) != 0
                || blockPosition > file.readVolatileWritePosition() + alignedLength(maxDataLength)) {
            throw new CorruptQueueException(file.path(), rootEntryPosition, "bad root index entry " + block
                    + ": position=" + blockPosition);
        }
        final long address = entries.address(blockPosition);
        final int header = MEMORY.readVolatileInt(address);
        final int type = MEMORY.readInt(address + CycleDescriptor.BLOCK_TYPE_OFFSET);
        if (header != blockHeader || type != TYPE_INDEX_BLOCK) {
            throw new CorruptQueueException(file.path(), rootEntryPosition, String.format("bad root index entry %d:"
                    + " position=%d holds header 0x%08x (%s) and type %d, not an index block", block, blockPosition,
                    header, describe(header), type));
        }
    }

    /** Entries of one block increase: a damaged one that still points at a header mostly breaks that order. */
    void checkNeighbours(final long entry, final long entryPosition, final long excerptPosition) {
        final long slot = entry & blockMask;
        final long before = slot == 0 ? 0 : read(entryPosition - Long.BYTES);
        final long after = slot == blockMask ? 0 : read(entryPosition + Long.BYTES);
        if (before != 0 && before >= excerptPosition || after != 0 && after <= excerptPosition) {
            throw new CorruptQueueException(file.path(), entryPosition, "index entry " + entry + ": position="
                    + excerptPosition + " is out of order with its neighbours " + before + " and " + after);
        }
    }

    /**
     * Root entries fill in order, and so do the entries of a block: binary search for the last one written.
     *
     * @return the last entry written in the file, or -1.
     */
    long lastEntry() {
        final int block = lastBlock();
        long entry = -1;
        if (block >= 0) {
            final long blockPosition = file.rootEntry(block);
            checkBlockForRead(block, blockPosition);
            int low = 0;
            int high = blockMask;
            while (low <= high) {
                final int mid = (low + high) >>> 1;
                if (read(CycleDescriptor.indexEntryPosition(blockPosition, mid)) != 0) {
                    entry = firstEntryOf(block) + mid;
                    low = mid + 1;
                } else {
                    high = mid - 1;
                }
            }
        }
        return entry;
    }

    /** @return the last block with a root entry, or -1 if none; the allocated ones are a prefix. */
    private int lastBlock() {
        int low = 0;
        int high = CycleDescriptor.ROOT_ENTRIES - 1;
        int last = -1;
        while (low <= high) {
            final int mid = (low + high) >>> 1;
            if (file.rootEntry(mid) != 0) {
                last = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return last;
    }
}
