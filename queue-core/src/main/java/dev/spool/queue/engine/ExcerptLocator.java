package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import static dev.spool.queue.format.ExcerptDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Finds and checks positions in the cycle file a tailer reads: the position of a sequence through the sparse index
 * (a root lookup, a block lookup, then a walk of fewer than {@code indexSpacing} excerpts, more only past index entries
 * a writer has not written yet), the end of the excerpts, and whether what lies where the excerpts seem to end is
 * the end, a writer's excerpt published meanwhile, a torn tail or damage. Walks with its own position, so the
 * tailer's stays where it reads. A tailer's, attached to the tailer's file.
 * <p>
 * In a checksummed queue an index entry is not trusted on its own: an entry flipped to the position of another
 * excerpt would send {@code moveToIndex} to an excerpt whose checksum is fine, under the wrong index. The walk starts
 * from the entry before instead (or from the first excerpt), and the entry must be exactly where that walk finds its
 * sequence: at most {@code indexSpacing} more headers per lookup.
 */
final class ExcerptLocator {
    private final MetadataFile metadata;
    private final MappedCursor cursor;
    private final SparseIndex index;
    private final int maxDataLength;
    /** Whether each index entry a lookup uses is checked by a walk from the entry before it. */
    private final boolean verifyEntries;
    /** The sequence whose position a lookup's walk checks against {@link #verifyPosition}, or -1. */
    private long verifyAt = -1;
    private long verifyPosition;
    private long verifyEntryPosition;
    private CycleFile file;
    private long cycle;
    private int metadataLimit;
    /** The walk: the header it is at, and the sequence of the next data excerpt. */
    private long position;
    private long sequence;
    /** Backward: positions of a run of consecutive sequences, filled from one index entry. */
    private long[] window = new long[0];
    private long windowFirst = -1;
    private int windowCount;

    /**
     * @param cursor        the tailer's cursor, which the walk maps as the tailer's reads would.
     * @param verifyEntries whether each index entry used is checked by a walk from the one before it.
     */
    ExcerptLocator(final MetadataFile metadata, final MappedCursor cursor, final int maxDataLength,
                   final boolean verifyEntries) {
        this.metadata = metadata;
        this.verifyEntries = verifyEntries;
        this.cursor = cursor;
        this.index = new SparseIndex("tailer-index", maxDataLength, null);
        this.maxDataLength = maxDataLength;
    }

    void attach(final CycleFile next) {
        file = next;
        cycle = next.cycle();
        metadataLimit = Math.max(maxDataLength, CycleDescriptor.blockPayloadLength(next.indexBlockEntries(),
                next.features()));
        if (window.length != next.indexSpacing()) {
            window = new long[next.indexSpacing()];
        }
        windowFirst = -1;
        windowCount = 0;
        index.attach(next);
    }

    void detach() {
        index.detach();
        file = null;
    }

    /** @return the longest metadata payload the file holds: an index block, or a message's length. */
    int metadataLimit() {
        return metadataLimit;
    }

    /** @return true if the file's index entries hold times. */
    boolean hasTimes() {
        return index.hasTimes();
    }

    /**
     * @param timeMillis a time, ms since 1970.
     * @return the sequence of the last indexed excerpt whose index entry's time is before {@code timeMillis}, or -1 if
     * none is; every excerpt before it was appended before that time. Needs index times.
     */
    long indexedSequenceBefore(final long timeMillis) {
        final long entry = index.lastEntryBefore(timeMillis);
        return entry < 0 ? -1 : index.sequenceOf(entry);
    }

    /** @return the header position {@link #toEnd()} found. */
    long position() {
        return position;
    }

    /** @return the sequence {@link #toEnd()} found: the count of excerpts in the file. */
    long sequence() {
        return sequence;
    }

    /** @return the position of {@code target} in the file, or -1 if it has not been written. */
    long positionOf(final long target) {
        if (target >= windowFirst && target < windowFirst + windowCount) {
            return window[(int) (target - windowFirst)];
        }
        seekIndex(target);
        final long first = index.sequenceOf(index.entryOf(target));
        windowFirst = first;
        windowCount = 0;
        while (true) {
            final int header = MEMORY.readVolatileInt(cursor.address(position));
            if (isData(header)) {
                if (length(header) > maxDataLength) {
                    throw corrupt(header, position);
                }
                if (sequence == verifyAt) {
                    checkVerified();
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
                    if (endsExcerpts(position, sequence)) {
                        return -1;
                    }
                    continue;
                }
                if (isEndOfCycle(header)) {
                    checkEnd(position, sequence);
                    return -1;
                }
                throw corrupt(header, position);
            }
            position += alignedLength(length(header));
        }
    }

    /** Walks to the tail of the file: {@link #position()} and {@link #sequence()} tell where it is. */
    void toEnd() {
        final long entry = index.lastEntry();
        if (entry >= 0) {
            seekIndex(index.sequenceOf(entry));
        } else {
            position = CycleDescriptor.DATA_OFFSET;
            sequence = 0;
        }
        while (true) {
            final int header = MEMORY.readVolatileInt(cursor.address(position));
            if (isEndOfCycle(header)) {
                checkEnd(position, sequence);
                return;
            }
            if ((header == 0 || isInProgress(header)) && endsExcerpts(position, sequence)) {
                return;
            }
            if (header == 0 || isInProgress(header)) {
                // published meanwhile: read it again
                continue;
            }
            if (isData(header) ? length(header) > maxDataLength : !isMetadata(header) || length(header) > metadataLimit) {
                throw corrupt(header, position);
            }
            if (isData(header)) {
                if (sequence == verifyAt) {
                    checkVerified();
                }
                sequence++;
            }
            position += alignedLength(length(header));
        }
    }

    /** The lookup's walk reached the sequence of the entry it checks: the entry must point where the walk is. */
    private void checkVerified() {
        if (position != verifyPosition) {
            throw new CorruptQueueException(file.path(), verifyEntryPosition, "bad index entry: it puts sequence "
                    + verifyAt + " at position=" + verifyPosition + ", but the headers from the entry before it put it at"
                    + " position=" + position + "; an index entry or a header between them is damaged");
        }
        verifyAt = -1;
    }

    /**
     * Starts the walk of a lookup that found {@code entry} pointing at {@code excerptPosition} (from
     * {@code entryPosition}) at the entry before it, or at the first excerpt, so that the walk checks the entry.
     */
    private void startBefore(final long entry, final long entryPosition, final long excerptPosition) {
        verifyAt = index.sequenceOf(entry);
        verifyPosition = excerptPosition;
        verifyEntryPosition = entryPosition;
        position = CycleDescriptor.DATA_OFFSET;
        sequence = 0;
        if (entry == 0) {
            return;
        }
        final long previous = entry - 1;
        final long blockPosition = index.blockPositionOf(previous);
        if (blockPosition != 0) {
            index.checkBlockForRead(index.blockOf(previous), blockPosition);
        }
        final long previousEntryPosition = index.entryPosition(blockPosition, previous);
        final long previousExcerpt = blockPosition == 0 ? 0 : index.read(previousEntryPosition);
        // entries fill in order: the one before a written entry is written, before it, on a data header
        if (previousExcerpt < CycleDescriptor.DATA_OFFSET || previousExcerpt >= excerptPosition
                || (previousExcerpt & (ALIGNMENT - 1)) != 0 || !isData(MEMORY.readVolatileInt(cursor.address(previousExcerpt)))) {
            throw new CorruptQueueException(file.path(), blockPosition == 0 ? CycleDescriptor.rootEntryPosition(
                    index.blockOf(previous)) : previousEntryPosition, "bad index entry " + previous + ": position="
                    + previousExcerpt + " is not a data excerpt before position=" + excerptPosition + " of entry " + entry);
        }
        position = previousExcerpt;
        sequence = index.sequenceOf(previous);
    }

    /** Positions the walk at the nearest indexed excerpt at or before {@code target}. */
    private void seekIndex(final long target) {
        verifyAt = -1;
        long entry = index.entryOf(target);
        while (entry >= 0) {
            final long blockPosition = index.blockPositionOf(entry);
            if (blockPosition == 0) {
                entry = index.firstEntryOf(index.blockOf(entry)) - 1;
                continue;
            }
            index.checkBlockForRead(index.blockOf(entry), blockPosition);
            final long entryPosition = index.entryPosition(blockPosition, entry);
            final long excerptPosition = index.read(entryPosition);
            if (excerptPosition != 0) {
                // a writer writes the entry of an excerpt before it moves the hint past it
                if (excerptPosition < CycleDescriptor.DATA_OFFSET || (excerptPosition & (ALIGNMENT - 1)) != 0
                        || excerptPosition > file.readVolatileWritePosition()) {
                    throw new CorruptQueueException(file.path(), entryPosition, "bad index entry " + entry + ": position="
                            + excerptPosition);
                }
                index.checkNeighbours(entry, entryPosition, excerptPosition);
                // a writer publishes an excerpt before its entry, so the entry points at a data header
                final int header = MEMORY.readVolatileInt(cursor.address(excerptPosition));
                if (header == 0 || isInProgress(header)) {
                    // not on disk (a torn tail) or damaged: a walk from an earlier entry tells which
                    entry--;
                    continue;
                }
                if (!isData(header) || length(header) > maxDataLength) {
                    throw new CorruptQueueException(file.path(), entryPosition, String.format("bad index entry %d:"
                            + " position=%d holds header 0x%08x (%s), not a data excerpt", entry, excerptPosition, header,
                            describe(header)));
                }
                if (verifyEntries) {
                    startBefore(entry, entryPosition, excerptPosition);
                    return;
                }
                position = excerptPosition;
                sequence = index.sequenceOf(entry);
                return;
            }
            entry--;
        }
        position = CycleDescriptor.DATA_OFFSET;
        sequence = 0;
    }

    /**
     * The writer that ended the cycle left its sequence hint at the count of its excerpts: a walk that reaches the
     * end-of-cycle marker at {@code at} with another count was sent there by a damaged header.
     */
    void checkEnd(final long at, final long walkSequence) {
        final long count = file.writeSequence();
        if (walkSequence != count) {
            throw new CorruptQueueException(file.path(), at, "end of cycle after " + walkSequence + " excerpts, but its"
                    + " writer counted " + count + ": a header before it is damaged");
        }
    }

    /**
     * A header of 0 or in progress ends the excerpts, unless the writer's position hint lies beyond it. Then either
     * a writer published it meanwhile (it moves the hint past a header only after publishing it), or the excerpts
     * were torn by a power loss and only zeros lie up to the hint (the next writer recovers that), or the file is
     * damaged: the excerpts after it are not silently skipped.
     *
     * @param walkSequence the sequence the walk expects at {@code at}.
     * @return true if the excerpts end at {@code at}; false if a writer published the header meanwhile.
     * @throws CorruptQueueException if bytes other than zeros lie between {@code at} and the hint.
     */
    boolean endsExcerpts(final long at, final long walkSequence) {
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
        final MappedCursor scan = index.cursor();
        final long nonZero = scan.firstNonZero(at + HEADER_LENGTH, hint);
        // a finished cycle with a torn tail still has its end-of-cycle marker at the hint, written by the writer that
        // moved on; without it, the walk came here past that marker
        if (nonZero < 0 && (cycle >= metadata.highestCycle() || MEMORY.readVolatileInt(scan.address(hint)) == END_OF_CYCLE)) {
            checkIndexedBefore(at, walkSequence);
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
     * A torn tail loses the last excerpts: index entries may point into the lost range, never before it. An entry at
     * or past the walk's sequence that points before where the walk stopped means the walk skipped excerpts.
     */
    private void checkIndexedBefore(final long at, final long walkSequence) {
        final long entry = index.lastEntry();
        if (entry < 0 || index.sequenceOf(entry) < walkSequence) {
            return;
        }
        final long indexed = index.read(index.entryPosition(index.blockPositionOf(entry), entry));
        if (indexed < at) {
            throw new CorruptQueueException(file.path(), at, "the excerpts seem to end here after " + walkSequence
                    + " excerpts, but the index puts sequence " + index.sequenceOf(entry) + " at position=" + indexed
                    + ": a header before it is damaged");
        }
    }

    /**
     * Checks the data header at {@code at} that a forward read is about to deliver: its length, the index entry of
     * its sequence, and that it ends before the end of a finished cycle (whose hint is final: its end-of-cycle
     * marker is there).
     */
    void checkData(final int header, final long at, final long readSequence) {
        if (length(header) > maxDataLength) {
            throw corrupt(header, at);
        }
        if (index.isIndexed(readSequence)) {
            checkIndexed(readSequence, at);
        }
        if (cycle < metadata.highestCycle() && at + alignedLength(length(header)) > file.readVolatileWritePosition()) {
            throw runsPastEnd(header, at);
        }
    }

    private CorruptQueueException runsPastEnd(final int header, final long at) {
        return new CorruptQueueException(file.path(), at, String.format("header 0x%08x (%s) runs past the end of its"
                + " finished cycle at position=%d: it or a header before it is damaged", header, describe(header),
                file.readVolatileWritePosition()));
    }

    /**
     * Every {@code indexSpacing} excerpts, the index says where the excerpt of the sequence about to be read is: a
     * damaged header before it would have sent the walk elsewhere. The read stops there rather than read on.
     */
    private void checkIndexed(final long readSequence, final long readPosition) {
        final long entry = index.entryOf(readSequence);
        final long blockPosition = index.blockPositionOf(entry);
        if (blockPosition == 0) {
            // not written yet: a writer publishes the excerpt before its entry
            return;
        }
        index.checkBlockForRead(index.blockOf(entry), blockPosition);
        final long indexed = index.read(index.entryPosition(blockPosition, entry));
        if (indexed != 0 && indexed != readPosition) {
            throw new CorruptQueueException(file.path(), readPosition, "the excerpt of sequence " + readSequence + " is at"
                    + " position=" + readPosition + " by the headers but at position=" + indexed + " by the index: a header"
                    + " or the index entry is damaged");
        }
    }

    /** @return the exception for a header no writer could have left at {@code at}. */
    CorruptQueueException corrupt(final int header, final long at) {
        return new CorruptQueueException(file.path(), at, String.format("bad header 0x%08x (%s)", header, describe(header)));
    }
}
