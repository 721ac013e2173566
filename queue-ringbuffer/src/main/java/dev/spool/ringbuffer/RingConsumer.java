package dev.spool.ringbuffer;

import static dev.spool.ringbuffer.RecordDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The read side of a ring's record protocol, for its one consumer across every process: reads committed records
 * from the head, gets past claims that stop it ({@link ClaimRevoker}), moves the head past what it has consumed and
 * releases it to the producers, at once ({@link #read}) or lazily ({@link #releaseBelow}), see
 * {@link RingBufferDescriptor}. The consumer's thread only: the revoker keeps the consumer's watch.
 */
final class RingConsumer {
    private final RingBuffer ring;
    private final RingHeader header;
    private final ClaimRevoker revoker;
    private final long dataAddress;
    private final long mask;
    /** log2 of the capacity: a position's lap is {@code position >>> capacityShift}. */
    private final int capacityShift;

    RingConsumer(final RingBuffer ring, final RingHeader header, final ClaimRevoker revoker, final long dataAddress,
                 final int capacity) {
        this.ring = ring;
        this.header = header;
        this.revoker = revoker;
        this.dataAddress = dataAddress;
        this.mask = capacity - 1;
        this.capacityShift = Integer.numberOfTrailingZeros(capacity);
    }

    /** See {@link RingBuffer#read(RingHandler, int)}. */
    int read(final RingHandler handler, final int limit) {
        final long head = header.readVolatileHead();
        if (header.readVolatileFreePosition() != head) {
            // a consumer died between moving the head and freeing the space
            finishRelease();
            releaseBelow(head);
        }
        final long tail = header.readVolatileTail();
        long position = head;
        int count = 0;
        while (position < tail && count < limit) {
            long word = ring.headerWordAt(position);
            if (length(word) <= 0) {
                if (!revoker.resolve(position, tail)) {
                    break;
                }
                word = ring.headerWordAt(position);
            }
            final int length = length(word);
            ring.checkRecord(word, position);
            if (type(word) == TYPE_DATA) {
                handler.onRecord(ring.store(), ring.payloadOffset(position), length - RecordDescriptor.HEADER_LENGTH, position);
                count++;
            }
            position += align(length);
        }
        if (position != head) {
            header.writeOrderedHead(position);
            release(head, position);
        }
        return count;
    }

    /** Moves the head to {@code position}: the records before it are consumed. */
    void consume(final long position) {
        header.writeOrderedHead(position);
    }

    /**
     * Releases the consumed records from the free position that end at or below {@code limit}, whole records only;
     * {@code limit} must not pass the head.
     */
    void releaseBelow(final long limit) {
        final long free = header.readVolatileFreePosition();
        long position = free;
        while (position < limit) {
            final long next = position + align(length(ring.headerWordAt(position)));
            if (next > limit) {
                break;
            }
            position = next;
        }
        if (position != free) {
            release(free, position);
        }
    }

    /** Finishes a release that a dead consumer began: it raised the release limit and died before the free position. */
    void finishRelease() {
        final long free = header.readVolatileFreePosition();
        final long limit = header.readVolatileReleaseLimit();
        if (limit > free) {
            release(free, limit);
        }
    }

    /**
     * Deals with the claim at {@code position}, below {@code tail}, that stops the consumer, see
     * {@link ClaimRevoker#resolve(long, long)}.
     *
     * @return true if the header at {@code position} is now a committed record.
     */
    boolean resolveBlocked(final long position, final long tail) {
        return revoker.resolve(position, tail);
    }

    /**
     * Releases {@code [from, to)}, which the consumer has finished with: raises the release limit, fills each word
     * with the unclaimed word of the lap that will use it next, then gives the space back to the producers.
     */
    private void release(final long from, final long to) {
        header.writeVolatileReleaseLimit(to);
        final long lap = from >>> capacityShift;
        final long firstEnd = Math.min(to, (lap + 1) << capacityShift);
        fill(dataAddress + (from & mask), firstEnd - from, unclaimedWord(lap + 1));
        if (to > firstEnd) {
            fill(dataAddress, to - firstEnd, unclaimedWord(lap + 2));
        }
        // release store: the unclaimed words are visible to a producer that sees the new position and claims the space
        header.writeOrderedFreePosition(to);
    }

    private static void fill(final long fromAddress, final long length, final long word) {
        for (long offset = 0; offset < length; offset += ALIGNMENT) {
            MEMORY.writeLong(fromAddress + offset, word);
        }
    }
}
