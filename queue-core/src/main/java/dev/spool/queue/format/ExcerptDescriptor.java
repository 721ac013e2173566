package dev.spool.queue.format;

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
 * In a queue created with {@link MetadataDescriptor#FEATURE_CRC32C}, a data excerpt carries a checksum between its
 * header and its payload, and the header's length counts it:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------+-+-+-+
 *  |          Length = 4 + payload length (29 bits)          |0|0|W|  0
 *  +---------------------------------------------------------+-+-+-+
 *  |                 CRC32C of the payload (int)                   |  4
 *  +---------------------------------------------------------------+
 *  |                    Payload, 8-byte aligned                  ...  8
 * ...                                                              |
 *  +---------------------------------------------------------------+
 *  |              Padding to the next 8-byte boundary              |
 *  +---------------------------------------------------------------+
 * </pre>
 * The writer stores the checksum with the payload, before the release store of the header, so a reader that sees
 * the header sees both. The walk over headers is the same in both kinds of queue: only what the body holds differs.
 * Metadata excerpts (index blocks, padding, sync markers, the end of a cycle) carry no checksum: the engine checks
 * their structure instead.
 * <p>
 * In a queue created with {@link MetadataDescriptor#FEATURE_PUBLISHER_IDS}, a data excerpt carries, ahead of its
 * payload, the id of the client that published it and that client's sequence number for it, which a publish
 * gateway reads back to recognise a publish sent again; an excerpt appended otherwise holds 0 and 0 ("no
 * publisher"). The checksum field keeps its place, and holds 0 in a queue without checksums; with checksums it
 * covers the publisher's id and sequence too, everything after it:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------+-+-+-+
 *  |         Length = 20 + payload length (29 bits)          |0|0|W|  0
 *  +---------------------------------------------------------+-+-+-+
 *  |   CRC32C of what follows, to the payload's end (int), or 0    |  4
 *  +---------------------------------------------------------------+
 *  |               Publisher id (long), 0 = none                   |  8
 *  +---------------------------------------------------------------+
 *  | Publisher's epoch (16 bits) and sequence (48 bits), 0 = none  | 16
 *  +---------------------------------------------------------------+
 *  |                    Payload, 8-byte aligned                  ... 24
 * ...                                                              |
 *  +---------------------------------------------------------------+
 *  |              Padding to the next 8-byte boundary              |
 *  +---------------------------------------------------------------+
 * </pre>
 * The publisher's field packs the writer epoch of the client instance that published the excerpt, in its top 16 bits
 * ({@link #PUBLISHER_EPOCH_SHIFT}), with that instance's sequence for it, in its low 48 bits
 * ({@link #PUBLISHER_SEQUENCE_MASK}): a publish gateway grants each new instance of a client id the next epoch, and
 * its sequences start at 1 again. Stored with every excerpt, the epoch reaches a replica with the excerpt's bytes, so
 * a gateway started on the queue or on a replica promoted in its place learns each id's epoch as it learns its last
 * sequences. An excerpt written before epochs existed reads as epoch 0.
 * <p>
 * What a data excerpt's body holds before its payload, {@link #bodyPrefixLength(int)} bytes, is the queue's own:
 * tailers, typed readers and the tools deliver and show the payload alone, and a replication source ships the body
 * whole, so a replica holds the same bytes.
 * <p>
 * The payload of a metadata excerpt starts with a 4-byte type ({@link #TYPE_INDEX_BLOCK}, {@link #TYPE_PADDING});
 * a metadata excerpt shorter than that is padding.
 */
public final class ExcerptDescriptor {
    /** Bytes of the header word. */
    public static final int HEADER_LENGTH = Integer.BYTES;
    /** Every excerpt starts on this boundary. */
    public static final int ALIGNMENT = 8;
    /** A writer holds the excerpt: not yet visible to readers. */
    public static final int IN_PROGRESS_FLAG = 0x8000_0000;
    /** The payload is Spool's own metadata, skipped by tailers. */
    public static final int METADATA_FLAG = 0x4000_0000;
    /** No excerpt follows in this cycle: readers move to the next cycle. */
    public static final int END_OF_CYCLE_FLAG = 0x2000_0000;
    /** Mask of the length bits. */
    public static final int LENGTH_MASK = 0x1FFF_FFFF;
    /** Largest payload a header can describe. */
    public static final int MAX_LENGTH = LENGTH_MASK;
    /** Header value of the end-of-cycle marker. */
    public static final int END_OF_CYCLE = METADATA_FLAG | END_OF_CYCLE_FLAG;

    /** Offset of the CRC32C of a checksummed data excerpt, from its header. */
    public static final int CHECKSUM_OFFSET = HEADER_LENGTH;
    /** Bytes of the CRC32C field of a checksummed data excerpt. */
    public static final int CHECKSUM_LENGTH = Integer.BYTES;
    /** Offset of the payload of a checksummed data excerpt, from its header: 8-byte aligned. */
    public static final int CHECKSUMMED_PAYLOAD_OFFSET = CHECKSUM_OFFSET + CHECKSUM_LENGTH;
    /** Offset of the publisher id of a data excerpt of a queue with publisher ids, from its header. */
    public static final int PUBLISHER_ID_OFFSET = CHECKSUM_OFFSET + CHECKSUM_LENGTH;
    /** Offset of the publisher's sequence of a data excerpt of a queue with publisher ids, from its header. */
    public static final int PUBLISHER_SEQUENCE_OFFSET = PUBLISHER_ID_OFFSET + Long.BYTES;
    /** Shift of the writer epoch within the publisher's field: its top 16 bits. */
    public static final int PUBLISHER_EPOCH_SHIFT = 48;
    /** Mask of the publisher's sequence within the publisher's field: its low 48 bits. */
    public static final long PUBLISHER_SEQUENCE_MASK = (1L << PUBLISHER_EPOCH_SHIFT) - 1;
    /** The highest writer epoch the publisher's field holds. */
    public static final int MAX_PUBLISHER_EPOCH = (int) (-1L >>> PUBLISHER_EPOCH_SHIFT);
    /** Offset of the payload of a data excerpt of a queue with publisher ids, from its header: 8-byte aligned. */
    public static final int PUBLISHED_PAYLOAD_OFFSET = PUBLISHER_SEQUENCE_OFFSET + Long.BYTES;

    /** Offset of the metadata type within a metadata payload. */
    public static final int METADATA_TYPE_OFFSET = 0;
    /** Bytes of the metadata type. */
    public static final int METADATA_TYPE_LENGTH = Integer.BYTES;
    /** Metadata payload: a block of the sparse index, see {@link CycleDescriptor}. */
    public static final int TYPE_INDEX_BLOCK = 1;
    /** Metadata payload: padding, skipped by readers; reserved, this version writes none (rollback frees the space). */
    public static final int TYPE_PADDING = 2;
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
    public static final int TYPE_SYNC_MARKER = 3;
    /** Offset of the synced index in a sync marker, from its excerpt header. */
    public static final int SYNC_MARKER_INDEX_OFFSET = HEADER_LENGTH + METADATA_TYPE_LENGTH;
    /** Offset of the sync time in a sync marker, from its excerpt header. */
    public static final int SYNC_MARKER_TIME_OFFSET = SYNC_MARKER_INDEX_OFFSET + Long.BYTES;
    /** Payload length of a sync marker. */
    public static final int SYNC_MARKER_LENGTH = SYNC_MARKER_TIME_OFFSET + Long.BYTES - HEADER_LENGTH;

    private ExcerptDescriptor() {
    }

    /**
     * @param features a queue's features ({@link MetadataDescriptor#FEATURES_OFFSET}).
     * @return the bytes of a data excerpt's body before its payload: none, the CRC32C field, or the CRC32C field (0
     * without checksums), the publisher id and the publisher's sequence.
     */
    public static int bodyPrefixLength(final int features) {
        if ((features & MetadataDescriptor.FEATURE_PUBLISHER_IDS) != 0) {
            return PUBLISHED_PAYLOAD_OFFSET - HEADER_LENGTH;
        }
        return (features & MetadataDescriptor.FEATURE_CRC32C) != 0 ? CHECKSUM_LENGTH : 0;
    }

    /**
     * @param header an excerpt header.
     * @return the payload length it gives.
     */
    public static int length(final int header) {
        return header & LENGTH_MASK;
    }

    /**
     * @param length a payload length.
     * @return bytes from the excerpt's header to the next header.
     */
    public static int alignedLength(final int length) {
        return (HEADER_LENGTH + length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * @param header an excerpt header.
     * @return true if it is written and committed: not empty, not in progress.
     */
    public static boolean isReady(final int header) {
        return header != 0 && (header & IN_PROGRESS_FLAG) == 0;
    }

    /**
     * @param header an excerpt header.
     * @return true if it is a committed data excerpt.
     */
    public static boolean isData(final int header) {
        return (header & (IN_PROGRESS_FLAG | METADATA_FLAG | END_OF_CYCLE_FLAG)) == 0 && header != 0;
    }

    /**
     * @param header an excerpt header.
     * @return true if it is a committed metadata excerpt (index block, padding, sync marker).
     */
    public static boolean isMetadata(final int header) {
        return (header & (IN_PROGRESS_FLAG | METADATA_FLAG | END_OF_CYCLE_FLAG)) == METADATA_FLAG;
    }

    /**
     * @param header an excerpt header.
     * @return true if it is the end-of-cycle marker.
     */
    public static boolean isEndOfCycle(final int header) {
        return header == END_OF_CYCLE;
    }

    /**
     * @param header an excerpt header.
     * @return true if a writer claimed it and has not committed it yet.
     */
    public static boolean isInProgress(final int header) {
        return (header & IN_PROGRESS_FLAG) != 0;
    }

    /**
     * @param header an excerpt header.
     * @return true when the header is one a writer could have produced: any other value is damage.
     */
    public static boolean isWellFormed(final int header) {
        if (header == 0 || header == END_OF_CYCLE) {
            return true;
        }
        return (header & END_OF_CYCLE_FLAG) == 0;
    }

    /**
     * @param header an excerpt header.
     * @return a human-readable description of it, for errors and the dump tool.
     */
    public static String describe(final int header) {
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
