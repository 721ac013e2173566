package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.format.CycleDescriptor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static dev.spool.queue.format.ExcerptDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Finds the real tail of a cycle file when it is not where the write hints say: a writer died after publishing
 * excerpts but before moving the hints, or while holding a claim, or between its two hint stores; or a power loss
 * kept the header page and lost excerpts before the hint. Leaves the real tail in the file's hints, for the
 * appender to read back. An appender's; the caller holds the write lock.
 */
final class TailRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(TailRecovery.class);

    private final MappedCursor cursor;
    private final MappedCursor scan;
    private final SparseIndex index;
    private final int maxDataLength;
    private final StoreCounters counters;

    /**
     * @param cursor the appender's cursor, which walks the excerpts and allocates index blocks at the tail.
     * @param scan   a second cursor, for scanning ahead without moving the first one's mapping.
     */
    TailRecovery(final MappedCursor cursor, final MappedCursor scan, final SparseIndex index, final int maxDataLength,
                 final StoreCounters counters) {
        this.counters = counters;
        this.cursor = cursor;
        this.scan = scan;
        this.index = index;
        this.maxDataLength = maxDataLength;
    }

    /**
     * After a power loss the header page, with its hints and index, may have reached the disk while excerpts before
     * the hint did not: readers stop at the first empty header, and a writer trusting the hint would append behind
     * that gap where no reader ever looks. Walks from the last index entry whose excerpt is intact; if the excerpts
     * end before the hint, the tail is there: the hints move back and index entries past it are cleared.
     *
     * @param capacity the most excerpts the file can hold.
     */
    void recoverTornTail(final CycleFile file, final long capacity) {
        final long hintPosition = file.writePosition();
        final long hintSequence = file.writeSequence();
        if (hintSequence < 0 || hintSequence > capacity) {
            throw new CorruptQueueException(file.path(), CycleDescriptor.WRITE_SEQUENCE_OFFSET, "write sequence hint="
                    + hintSequence + " outside the cycle's capacity of " + capacity + " excerpts: the header is damaged");
        }
        long walk = CycleDescriptor.DATA_OFFSET;
        long walkSequence = 0;
        for (long entry = hintSequence == 0 ? -1 : index.entryOf(hintSequence - 1); entry >= 0; entry--) {
            final long blockPosition = index.blockPositionOf(entry);
            if (blockPosition == 0 || blockPosition >= hintPosition) {
                continue;
            }
            final long excerpt = index.read(index.entryPosition(blockPosition, entry));
            if (excerpt >= CycleDescriptor.DATA_OFFSET && excerpt < hintPosition && isData(MEMORY.readVolatileInt(cursor.address(excerpt)))) {
                walk = excerpt;
                walkSequence = index.sequenceOf(entry);
                break;
            }
        }
        while (walk < hintPosition) {
            final int header = MEMORY.readVolatileInt(cursor.address(walk));
            if (header == 0 || isInProgress(header) || isEndOfCycle(header)) {
                break;
            }
            checkHeader(file, header, walk);
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
            counters.tornHintRepairs.incrementAndGet();
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
        final long nonZero = scan.firstNonZero(walk + HEADER_LENGTH, hintPosition);
        if (nonZero >= 0) {
            final int header = MEMORY.readVolatileInt(cursor.address(walk));
            throw new CorruptQueueException(file.path(), walk, String.format("header 0x%08x (%s) ends the excerpts at"
                    + " sequence=%d, but the byte at position=%d is not zero and the write position hint is %d: damage,"
                    + " not a torn tail; nothing was written", header, describe(header), walkSequence, nonZero, hintPosition));
        }
        LOG.warn("torn tail in {}: the header says excerpts end at position={} sequence={}, they end at position={} sequence={};"
                + " the {} after it never reached the disk", file.path(), hintPosition, hintSequence, walk, walkSequence,
                hintSequence - walkSequence);
        counters.tornTailRecoveries.incrementAndGet();
        MEMORY.writeOrderedInt(cursor.address(walk), 0);
        clearEntriesFrom(walk, walkSequence, hintSequence);
        file.writeHints(walk, walkSequence);
    }

    /** Clears the index entries of the sequences from {@code fromSequence} to the hint, lost with a torn tail. */
    private void clearEntriesFrom(final long tail, final long fromSequence, final long hintSequence) {
        for (long entry = index.entryOf(fromSequence + index.sequenceOf(1) - 1);
             hintSequence > 0 && entry <= index.entryOf(hintSequence - 1); entry++) {
            final long blockPosition = index.blockPositionOf(entry);
            if (blockPosition >= tail) {
                index.clearBlock(index.blockOf(entry));
            } else if (blockPosition != 0) {
                index.clear(blockPosition, entry);
            }
        }
        index.forgetLastBlock();
    }

    /**
     * Walks from the hints to the real tail: another writer died after publishing excerpts but before updating the
     * hints, or while holding a claim. The caller holds the write lock, so an in-progress header is a dead writer's.
     *
     * @return true if the cycle has ended; the hints hold the tail either way.
     */
    boolean recoverTail(final CycleFile file) {
        final long hintPosition = file.writePosition();
        final long hintSequence = file.writeSequence();
        long position = hintPosition;
        long sequence = hintSequence;
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
            checkHeader(file, header, position);
            if (isData(header)) {
                sequence++;
                published = true;
            }
            position += alignedLength(length(header));
        }
        if (published && !ended) {
            position = indexRecovered(hintPosition, hintSequence, position);
        }
        file.writeHints(position, sequence);
        return ended;
    }

    /** Writes any index entries a dead writer published excerpts without; @return the tail, past any new block. */
    private long indexRecovered(final long fromPosition, final long fromSequence, final long end) {
        long tail = end;
        long walk = fromPosition;
        long walkSequence = fromSequence;
        while (walk < end) {
            final int header = MEMORY.readVolatileInt(cursor.address(walk));
            if (isData(header)) {
                if (index.isIndexed(walkSequence)) {
                    tail = index.write(walkSequence, walk, tail, cursor);
                }
                walkSequence++;
            }
            walk += alignedLength(length(header));
        }
        return tail;
    }

    private void checkHeader(final CycleFile file, final int header, final long at) {
        final int length = length(header);
        final int limit = isMetadata(header) ? Math.max(maxDataLength,
                CycleDescriptor.blockPayloadLength(file.indexBlockEntries(), file.features())) : maxDataLength;
        if (!isWellFormed(header) || length > limit) {
            throw new CorruptQueueException(file.path(), at, String.format("bad header 0x%08x (%s)", header, describe(header)));
        }
    }
}
