package dev.spool.ringbuffer;

import java.nio.ByteBuffer;

import static dev.spool.ringbuffer.RingBufferDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Flyweight over a ring's index journal (layout: {@link RingBufferDescriptor}), which maps a drained record's
 * position to its queue index. The drainer writes an entry, appenders waiting for their record's index read it;
 * an entry is valid while it holds the record's position. Thread-safe: it holds only addresses.
 */
final class IndexJournal {
    /** What {@link #readVolatileIndex(long)} returns when the entry does not hold the position yet. */
    static final long NOT_YET = -1;
    /** What {@link #readVolatileIndex(long)} returns when a later lap's record has taken the entry. */
    static final long OVERWRITTEN = -2;

    private final long address;
    private final int capacity;
    private final long mask;

    /**
     * @param address  where the mapped ring file starts.
     * @param capacity the ring's data capacity.
     */
    IndexJournal(final long address, final int capacity) {
        this.address = address;
        this.capacity = capacity;
        this.mask = capacity - 1;
    }

    /** Fills {@code entries}, a whole number of journal entries, with invalid entries: position -1 matches no record. */
    static void initialise(final ByteBuffer entries) {
        for (int entry = 0; entry < entries.capacity(); entry += JOURNAL_ENTRY_LENGTH) {
            entries.putLong(entry + JOURNAL_POSITION_OFFSET, -1);
        }
    }

    /**
     * Maps the drained record at {@code position} to {@code index}; the drainer's thread only. A volatile store of
     * -1 invalidates the entry, a plain store writes the index, and a release store of the position validates it.
     */
    void writeOrdered(final long position, final long index) {
        final long entry = entryAddress(position);
        // a reader that sees -1, or a different position after reading the index, retries or gives up
        MEMORY.writeVolatileLong(entry + JOURNAL_POSITION_OFFSET, -1);
        MEMORY.writeLong(entry + JOURNAL_INDEX_OFFSET, index);
        MEMORY.writeOrderedLong(entry + JOURNAL_POSITION_OFFSET, position);
    }

    /**
     * Reads the entry of {@code position} with volatile loads: position, index, position again.
     *
     * @return the queue index the journal holds for {@code position}, {@link #NOT_YET} if it holds none yet, or
     * {@link #OVERWRITTEN} if the entry was overwritten by a later lap.
     */
    long readVolatileIndex(final long position) {
        final long entry = entryAddress(position);
        final long before = MEMORY.readVolatileLong(entry + JOURNAL_POSITION_OFFSET);
        final long index = MEMORY.readVolatileLong(entry + JOURNAL_INDEX_OFFSET);
        final long after = MEMORY.readVolatileLong(entry + JOURNAL_POSITION_OFFSET);
        if (before == position && after == position) {
            return index;
        }
        return Math.max(before, after) > position ? OVERWRITTEN : NOT_YET;
    }

    private long entryAddress(final long position) {
        return address + journalEntryOffset(capacity, position & mask);
    }
}
