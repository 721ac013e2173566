package dev.spool.ringbuffer;

/**
 * Layout of one record in the ring's data region: an 8-byte header word, a claim timestamp, then the payload,
 * the whole record aligned to {@value #ALIGNMENT} bytes. Unclaimed space holds the lap's unclaimed word:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |R|                 Record length (int)                         |  0  \
 *  +-------------------------------+-------------------------------+      header word (long),
 *  |          Type (short)         |  Owner: generation | slot     |  4  /  one CAS changes all three
 *  +-------------------------------+-------------------------------+
 *  |             Claim time (ms since 1970, long)                  |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                          Payload                            ...| 16
 * ...                                                              |
 *  +---------------------------------------------------------------+
 *  |             Unused bytes up to the next multiple of 8          |
 *  +---------------------------------------------------------------+
 *
 *  unclaimed word (long), in every 8-byte word of unclaimed space:
 *  +---------------------------------------------------------------+
 *  |                  Record length: 0 (int)                       |  0
 *  +---------------------------------------------------------------+
 *  |       Lap of the records that will use the space (int)        |  4
 *  +---------------------------------------------------------------+
 * </pre>
 * The record length counts the header and the payload, not the alignment. It is negative (R set) while the
 * producer writes: a reader stops there. A producer publishes its claim with a compare-and-swap of the header
 * word from the lap's unclaimed word (below) to {@code (-length, DATA, slot)}, and writes the claim time and the
 * payload only after that swap succeeded. Commit is one compare-and-swap of the whole header word from
 * {@code (-length, DATA, slot)} to {@code (length, DATA, slot)}; abort and revocation swap it to
 * {@code (length, PADDING, slot)}. Because all three race on one word, exactly one of commit, abort and
 * revocation wins, and a producer whose claim was revoked learns it from its failed commit.
 * <p>
 * Unclaimed space holds the unclaimed word of its lap in every 8-byte word: length 0, and in the high 32 bits
 * the lap, {@code position / capacity}, of the records that will use it ({@link #unclaimedWord(long)}). A new
 * ring is lap 0, all zeros; the drainer fills every word it has drained with the next lap's unclaimed word before
 * it gives the space back. Below the tail, a header word of length 0 therefore means "claimed, header not written
 * yet". A capacity or more past the free position the bytes may still be the unreleased record of the lap before,
 * so readers never look there; below that bound a header word is of its own lap, unclaimed, in progress or
 * committed. Because the unclaimed word names the lap, a producer that stalled across the drainer's release of
 * its space cannot publish into the next lap: its swap expects the old lap's word.
 * <p>
 * A padding record fills the end of the data region when a record does not fit before the wrap; it may be only
 * {@value #ALIGNMENT} bytes long, so only its header word is meaningful. The drainer also unblocks a claim whose
 * header stayed unclaimed for the blocked-claim timeout by turning each of its words into an
 * {@value #ALIGNMENT}-byte padding record (see {@code ClaimRevoker}). The claim time decides the record's
 * queue cycle; it is meaningful only once the record is committed, and the trailing alignment bytes after the
 * payload hold whatever the space held before, not zeros. The owner names the producer's
 * process: its low {@value #SLOT_BITS} bits are the slot, the byte of the ring's lock file that process holds while
 * alive (see {@link RingLocks}); the high bits are the slot's generation, bumped by each process that takes the
 * slot, so that a claim of a dead process is not mistaken for one of the live process that reuses its slot.
 */
final class RecordDescriptor {
    /** Records start at multiples of this. */
    static final int ALIGNMENT = Long.BYTES;

    static final int LENGTH_OFFSET = 0;
    static final int TYPE_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    static final int SLOT_OFFSET = TYPE_OFFSET + Short.BYTES;
    static final int TIMESTAMP_OFFSET = SLOT_OFFSET + Short.BYTES;
    /** Bytes before the payload. */
    static final int HEADER_LENGTH = TIMESTAMP_OFFSET + Long.BYTES;

    /** A record that carries a payload for the queue. */
    static final int TYPE_DATA = 1;
    /** A record the drainer skips: the end of the data region at a wrap, an aborted or a revoked claim. */
    static final int TYPE_PADDING = 2;

    /** Bits of the owner that hold the producer slot. */
    static final int SLOT_BITS = 10;
    /** Generations of a slot wrap at this. */
    static final int GENERATIONS = 1 << (Short.SIZE - SLOT_BITS);

    private RecordDescriptor() {
    }

    /**
     * @param length record length, negative while in progress.
     * @param type   {@link #TYPE_DATA} or {@link #TYPE_PADDING}.
     * @param owner  the producer's slot and its generation, see {@link #owner(int, int)}.
     * @return the header word as stored, little-endian, at {@link #LENGTH_OFFSET}.
     */
    static long headerWord(final int length, final int type, final int owner) {
        return (length & 0xFFFF_FFFFL) | ((long) (type & 0xFFFF) << 32) | ((long) (owner & 0xFFFF) << 48);
    }

    /** @return the signed record length of a header word. */
    static int length(final long headerWord) {
        return (int) headerWord;
    }

    /** @return the type of a header word. */
    static int type(final long headerWord) {
        return (int) (headerWord >>> 32) & 0xFFFF;
    }

    /** @return the owner (slot and generation) of a header word. */
    static int owner(final long headerWord) {
        return (int) (headerWord >>> 48);
    }

    /** @return the owner field of a producer with {@code slot} in its {@code generation}. */
    static int owner(final int slot, final int generation) {
        return slot | (generation & (GENERATIONS - 1)) << SLOT_BITS;
    }

    /** @return the producer slot of an owner field. */
    static int slotOf(final int owner) {
        return owner & ((1 << SLOT_BITS) - 1);
    }

    /** @return the slot generation of an owner field. */
    static int generationOf(final int owner) {
        return owner >>> SLOT_BITS;
    }

    /**
     * @param lap how many times the producers have wrapped the data region before the word's position.
     * @return the word an unclaimed 8-byte word of the data region holds in {@code lap}: zero length, the lap's
     * low 32 bits above. Lap 0 is all zeros, as a new ring file is.
     */
    static long unclaimedWord(final long lap) {
        return lap << 32;
    }

    /** @return {@code length} rounded up to {@link #ALIGNMENT}. */
    static int align(final int length) {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }
}
