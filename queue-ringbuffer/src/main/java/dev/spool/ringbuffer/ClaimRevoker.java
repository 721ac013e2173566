package dev.spool.ringbuffer;

import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

import static dev.spool.ringbuffer.RecordDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The consumer's way past a claim that stops it: revokes a claim whose producer died or that outlived the claim
 * timeout, and unblocks a claim whose header was never written. Keeps the consumer's watch (the position it last
 * found blocked, and since when), so one instance belongs to the ring's one consumer thread.
 */
final class ClaimRevoker {
    /** A claim younger than this is never checked for a dead owner: the check is a system call. */
    private static final long OWNER_PROBE_AGE_NS = 1_000_000;
    /** Logs under the ring's name, where operators look for what the ring does. */
    private static final Logger LOG = LoggerFactory.getLogger(RingBuffer.class);

    private final Path path;
    private final RingHeader header;
    private final RingLocks locks;
    private final long dataAddress;
    private final long mask;
    private final int capacityShift;
    /** The padding word this instance unblocks with: its own owner, as the claims it takes carry. */
    private final long padding;
    private final long claimTimeoutNs;
    private final long blockedClaimTimeoutNs;
    private final NanoClock nanoClock;
    private long blockedPosition = -1;
    private long blockedSinceNs;

    ClaimRevoker(final Path path, final RingHeader header, final RingLocks locks, final long dataAddress, final int capacity,
                 final int owner, final long claimTimeoutNs, final long blockedClaimTimeoutNs, final NanoClock nanoClock) {
        this.path = path;
        this.header = header;
        this.locks = locks;
        this.dataAddress = dataAddress;
        this.mask = capacity - 1;
        this.capacityShift = Integer.numberOfTrailingZeros(capacity);
        this.padding = headerWord(ALIGNMENT, TYPE_PADDING, owner);
        this.claimTimeoutNs = claimTimeoutNs;
        this.blockedClaimTimeoutNs = blockedClaimTimeoutNs;
        this.nanoClock = nanoClock;
    }

    /**
     * Deals with the claim at {@code position}, below {@code tail}, that stops the consumer: its header is "in
     * progress" or still the lap's unclaimed word.
     * <p>
     * The consumer watches the position it is stopped at: the age of a blockage is how long it has found that
     * position blocked, not the claim time (which the producer writes only after its header). An in-progress claim
     * is revoked (its header swapped to padding of its length) once its owner process is dead or the age passes the
     * claim timeout; the swap races the producer's commit and exactly one wins. A claim whose header is still
     * unclaimed once the age passes the blocked-claim timeout is unblocked, see {@link #unblock(long, long)}.
     *
     * @return true if the header at {@code position} is now a committed record: revoked or unblocked here, or
     * committed or aborted meanwhile.
     */
    boolean resolve(final long position, final long tail) {
        final long recordAddress = dataAddress + (position & mask);
        final long word = MEMORY.readVolatileLong(recordAddress);
        if (length(word) > 0) {
            return true;
        }
        final long now = nanoClock.nanoTime();
        if (position != blockedPosition) {
            blockedPosition = position;
            blockedSinceNs = now;
        }
        final long age = now - blockedSinceNs;
        if (length(word) == 0) {
            if (age < blockedClaimTimeoutNs) {
                return false;
            }
            unblock(position, tail);
        } else {
            if (age < claimTimeoutNs && (age < OWNER_PROBE_AGE_NS || isOwnerAlive(owner(word)))) {
                return false;
            }
            if (MEMORY.compareAndSwapLong(recordAddress, word, headerWord(-length(word), TYPE_PADDING, owner(word)))) {
                header.addVolatileRevokedClaim();
            }
        }
        return length(MEMORY.readVolatileLong(recordAddress)) > 0;
    }

    /**
     * Unblocks the claim at {@code position} whose header nobody wrote: swaps each aligned word from
     * {@code position} up, still the lap's unclaimed word, to a committed padding record of
     * {@value RecordDescriptor#ALIGNMENT} bytes, until a swap fails or the tail is reached.
     * <p>
     * Why this is safe. The records below the tail tile the positions without gaps, and a producer writes nothing
     * of its record (claim time, payload) before its header swap succeeds. So a record whose header is still
     * unclaimed is unclaimed words throughout (the consumer released the space as such, see
     * {@link RecordDescriptor}). The words are swapped in rising order: when the swap of word {@code w} fails,
     * every word in {@code [position, w)} is padding now, so every producer whose header lies there fails its own
     * header swap and writes nothing; hence the word at {@code w} was not written by a producer of an earlier
     * record: it is a header, of the next record, published (in progress or committed) by its producer, and the
     * consumer carries on from there. A live producer that merely stalled between its tail and header swaps, and
     * any producer whose claim follows in the gap with its header not yet written, loses the header swap and
     * claims again ({@link RingBuffer#tryClaim(int)}); nothing it wrote is lost, because it wrote nothing. A single
     * padding record over the whole gap would not do: a producer inside the gap could publish its header between the
     * consumer's scan and its swap, and its committed record would be skipped. Because the unclaimed word names
     * the lap, a producer that stalls until the padding is drained and released still fails its swap: the space
     * then holds the next lap's unclaimed word.
     */
    private void unblock(final long position, final long tail) {
        long end = position;
        while (end < tail && MEMORY.compareAndSwapLong(dataAddress + (end & mask), unclaimedWord(end >>> capacityShift), padding)) {
            end += ALIGNMENT;
        }
        if (end != position) {
            header.addVolatileUnblockedClaim();
            LOG.warn("unblocked a claim of ring {} whose header was never written for {} ms: its producer died or stalled"
                    + " between claiming and writing the header; position={}, padding length={}", path,
                    blockedClaimTimeoutNs / 1_000_000, position, end - position);
        }
    }

    /** @return false if the claim's process is dead, or has given up the slot that another process now holds. */
    private boolean isOwnerAlive(final int claimOwner) {
        final int claimSlot = slotOf(claimOwner);
        if (claimSlot == RingLocks.DRAINER_SLOT || claimSlot >= RingLocks.SLOT_COUNT) {
            return false;
        }
        return header.readVolatileGeneration(claimSlot) == generationOf(claimOwner) && locks.isAlive(claimSlot);
    }
}
