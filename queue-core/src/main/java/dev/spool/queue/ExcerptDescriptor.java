package dev.spool.queue;

/**
 * Layout of one excerpt in a cycle file: a 4-byte header followed by the payload, padded to an 8-byte boundary.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------+-+-+-+
 *  |                    Length (29 bits)                     |E|M|W|
 *  +---------------------------------------------------------+-+-+-+
 *  |                         Payload                             ...
 * ...                                                              |
 *  +---------------------------------------------------------------+
 *  |              Padding to the next 8-byte boundary              |
 *  +---------------------------------------------------------------+
 * </pre>
 * The header is a little-endian int; bit 31 (W) means a write is in progress, bit 30 (M) marks metadata that
 * Spool writes for itself (index blocks, padding), bit 29 (E) marks the end of the cycle. A header of 0 means
 * nothing has been written there yet. A writer fills the payload, zeroes the header that follows, and only then
 * publishes the header with a release store, so a reader that sees a complete header sees the whole payload.
 * <p>
 * The payload of a metadata excerpt starts with a 4-byte type ({@link #TYPE_INDEX_BLOCK}, {@link #TYPE_PADDING});
 * a metadata excerpt shorter than that is padding.
 */
final class ExcerptDescriptor {
    /** Bytes of the header word. */
    static final int HEADER_LENGTH = Integer.BYTES;
    /** Every excerpt starts on this boundary. */
    static final int ALIGNMENT = 8;
    /** A writer holds the excerpt: not yet visible to readers. */
    static final int IN_PROGRESS_FLAG = 0x8000_0000;
    /** The payload is Spool's own metadata, skipped by tailers. */
    static final int METADATA_FLAG = 0x4000_0000;
    /** No excerpt follows in this cycle: readers move to the next cycle. */
    static final int END_OF_CYCLE_FLAG = 0x2000_0000;
    /** Mask of the length bits. */
    static final int LENGTH_MASK = 0x1FFF_FFFF;
    /** Largest payload a header can describe. */
    static final int MAX_LENGTH = LENGTH_MASK;
    /** Header value of the end-of-cycle marker. */
    static final int END_OF_CYCLE = METADATA_FLAG | END_OF_CYCLE_FLAG;

    /** Offset of the metadata type within a metadata payload. */
    static final int METADATA_TYPE_OFFSET = 0;
    /** Bytes of the metadata type. */
    static final int METADATA_TYPE_LENGTH = Integer.BYTES;
    /** Metadata payload: a block of the sparse index, see {@link CycleDescriptor}. */
    static final int TYPE_INDEX_BLOCK = 1;
    /** Metadata payload: padding, skipped by readers; reserved, this version writes none (rollback frees the space). */
    static final int TYPE_PADDING = 2;
    /**
     * Metadata payload: a sync marker, written after an msync when the queue asks for markers.
     * <pre>
     *  +---------------------------------------------------------------+
     *  |            Excerpt header: metadata, length = 20              |  0
     *  +---------------------------------------------------------------+
     *  |                   Type = TYPE_SYNC_MARKER                     |  4
     *  +---------------------------------------------------------------+
     *  |      Synced index: every excerpt up to it is on disk (long)   |  8
     *  +---------------------------------------------------------------+
     *  |          Time of the sync, ms since 1970 (long)               | 16
     *  +---------------------------------------------------------------+
     * </pre>
     */
    static final int TYPE_SYNC_MARKER = 3;
    /** Offset of the synced index in a sync marker, from its excerpt header. */
    static final int SYNC_MARKER_INDEX_OFFSET = HEADER_LENGTH + METADATA_TYPE_LENGTH;
    /** Offset of the sync time in a sync marker, from its excerpt header. */
    static final int SYNC_MARKER_TIME_OFFSET = SYNC_MARKER_INDEX_OFFSET + Long.BYTES;
    /** Payload length of a sync marker. */
    static final int SYNC_MARKER_LENGTH = SYNC_MARKER_TIME_OFFSET + Long.BYTES - HEADER_LENGTH;

    private ExcerptDescriptor() {
    }

    /** @return the payload length of a header. */
    static int length(final int header) {
        return header & LENGTH_MASK;
    }

    /** @return bytes from this excerpt's header to the next header. */
    static int alignedLength(final int length) {
        return (HEADER_LENGTH + length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    static boolean isReady(final int header) {
        return header != 0 && (header & IN_PROGRESS_FLAG) == 0;
    }

    static boolean isData(final int header) {
        return (header & (IN_PROGRESS_FLAG | METADATA_FLAG | END_OF_CYCLE_FLAG)) == 0 && header != 0;
    }

    static boolean isMetadata(final int header) {
        return (header & (IN_PROGRESS_FLAG | METADATA_FLAG | END_OF_CYCLE_FLAG)) == METADATA_FLAG;
    }

    static boolean isEndOfCycle(final int header) {
        return header == END_OF_CYCLE;
    }

    static boolean isInProgress(final int header) {
        return (header & IN_PROGRESS_FLAG) != 0;
    }

    /**
     * @return true when the header is one a writer could have produced: any other value is damage.
     */
    static boolean isWellFormed(final int header) {
        if (header == 0 || header == END_OF_CYCLE) {
            return true;
        }
        return (header & END_OF_CYCLE_FLAG) == 0;
    }

    /** @return a human-readable description of a header, for errors and the dump tool. */
    static String describe(final int header) {
        if (header == 0) {
            return "empty";
        }
        if (header == END_OF_CYCLE) {
            return "end-of-cycle";
        }
        final StringBuilder sb = new StringBuilder();
        sb.append(isMetadata(header & ~IN_PROGRESS_FLAG) ? "metadata" : "data");
        if (isInProgress(header)) {
            sb.append(",in-progress");
        }
        if ((header & END_OF_CYCLE_FLAG) != 0) {
            sb.append(",bad-flags");
        }
        return sb.append(" length=").append(length(header)).toString();
    }
}
