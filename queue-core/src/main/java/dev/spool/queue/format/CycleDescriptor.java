package dev.spool.queue.format;

/**
 * Layout of a cycle file: a header page, the root of the sparse index, then excerpts (see {@link ExcerptDescriptor}).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                        Magic 'SPLC'                           |  0
 *  +---------------------------------------------------------------+
 *  |                          Version                              |  4
 *  +---------------------------------------------------------------+
 *  |                           Cycle                               |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                       Roll cycle id                           | 16
 *  +---------------------------------------------------------------+
 *  |                 Index spacing (power of two)                  | 20
 *  +---------------------------------------------------------------+
 *  |            Entries per index block (power of two)             | 24
 *  +---------------------------------------------------------------+
 *  |                 Root index entries (2^15)                     | 28
 *  +---------------------------------------------------------------+
 *  |      Features: the queue's metadata features at creation      | 32
 *  +---------------------------------------------------------------+
 *  |                   Reserved to offset 64                     ...
 *  +---------------------------------------------------------------+
 *  |       Write position: the next free byte (writer's hint)      | 64
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |       Write sequence: the next sequence (writer's hint)       | 72
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  Reserved to offset 4096                    ...
 *  +---------------------------------------------------------------+
 *  |  Root index: 2^15 longs, the position of each index block     | 4096
 * ...                      (0 = not allocated)                     |
 *  +---------------------------------------------------------------+
 *  |                 Excerpts, 8-byte aligned                    ... | DATA_OFFSET
 *  +---------------------------------------------------------------+
 * </pre>
 * The sparse index: sequence {@code s} with {@code s % spacing == 0} has an entry. Entry {@code s / spacing} lives in
 * block {@code (s / spacing) / blockEntries}, at slot {@code (s / spacing) % blockEntries}. A block is a metadata
 * excerpt of type {@link ExcerptDescriptor#TYPE_INDEX_BLOCK} appended in the data area:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |      Excerpt header: metadata, length = 4 + 8 * entries       |  0
 *  +---------------------------------------------------------------+
 *  |                   Type = TYPE_INDEX_BLOCK                     |  4
 *  +---------------------------------------------------------------+
 *  |   Entry 0: position of the excerpt with that sequence (long)  |  8
 * ...                        (0 = none yet)                        |
 *  +---------------------------------------------------------------+
 *  |  With FEATURE_INDEX_TIMES only: time of entry 0, ms since     |  8 + 8 * entries
 * ...  1970 (long), written before the entry's position           |
 *  +---------------------------------------------------------------+
 * </pre>
 * With {@link MetadataDescriptor#FEATURE_INDEX_TIMES} in the file's features, a block is twice as long: the times of
 * its entries follow the positions, slot for slot, so that a position and the arithmetic that finds it do not change.
 * An entry's time is the writer's clock when it appended the excerpt, raised to the time of the entry before when the
 * clock went back: times never decrease within a file, and no excerpt before an entry was appended after the entry's
 * time. The release store of the position publishes the time written before it.
 * The write position and sequence are hints that only a holder of the queue's write lock reads or writes; the
 * excerpt headers remain the truth, and a writer that finds a hint stale walks forward from it.
 */
public final class CycleDescriptor {
    /** 'SPLC' in little-endian. */
    public static final int MAGIC = 0x434C5053;
    /** Layout version. */
    public static final int VERSION = 1;

    /** Offset of the magic field. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the version field. */
    public static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    /** Offset of the cycle field. */
    public static final int CYCLE_OFFSET = VERSION_OFFSET + Integer.BYTES;
    /** Offset of the roll cycle field. */
    public static final int ROLL_CYCLE_OFFSET = CYCLE_OFFSET + Long.BYTES;
    /** Offset of the index spacing field. */
    public static final int INDEX_SPACING_OFFSET = ROLL_CYCLE_OFFSET + Integer.BYTES;
    /** Offset of the index block entries field. */
    public static final int INDEX_BLOCK_ENTRIES_OFFSET = INDEX_SPACING_OFFSET + Integer.BYTES;
    /** Offset of the root entries field. */
    public static final int ROOT_ENTRIES_OFFSET = INDEX_BLOCK_ENTRIES_OFFSET + Integer.BYTES;

    /** Offset of the features field: a copy of the queue's metadata features when the file was created. */
    public static final int FEATURES_OFFSET = ROOT_ENTRIES_OFFSET + Integer.BYTES;

    /** Length in bytes of a cache line. */
    public static final int CACHE_LINE_LENGTH = 64;
    /** Length in bytes of a page: the header is one. */
    public static final int PAGE_LENGTH = 4096;
    /** The writer's hints start on their own cache line. */
    public static final int WRITE_POSITION_OFFSET = align(FEATURES_OFFSET + Integer.BYTES, CACHE_LINE_LENGTH);
    /** Offset of the write sequence field. */
    public static final int WRITE_SEQUENCE_OFFSET = WRITE_POSITION_OFFSET + Long.BYTES;

    /** The header occupies one page. */
    public static final int HEADER_LENGTH = align(WRITE_SEQUENCE_OFFSET + Long.BYTES, PAGE_LENGTH);
    /** Offset of the root field. */
    public static final int ROOT_OFFSET = HEADER_LENGTH;
    /** Index blocks one root can address. */
    public static final int ROOT_ENTRIES = 1 << 15;
    /** Length in bytes of the root. */
    public static final int ROOT_LENGTH = ROOT_ENTRIES * Long.BYTES;
    /** First excerpt of every cycle. */
    public static final int DATA_OFFSET = ROOT_OFFSET + ROOT_LENGTH;

    /** Offset of the type in an index block, from the block's excerpt header. */
    public static final int BLOCK_TYPE_OFFSET = ExcerptDescriptor.HEADER_LENGTH;
    /** Offset of the first entry in an index block, from the block's excerpt header. */
    public static final int BLOCK_ENTRIES_OFFSET = BLOCK_TYPE_OFFSET + Integer.BYTES;

    private CycleDescriptor() {
    }

    /** @return {@code offset} rounded up to a multiple of {@code alignment}, a power of two. */
    private static int align(final int offset, final int alignment) {
        return (offset + alignment - 1) & -alignment;
    }

    /**
     * @param blockEntries entries per index block.
     * @return the metadata payload length of an index block.
     */
    public static int blockPayloadLength(final int blockEntries) {
        return BLOCK_ENTRIES_OFFSET - ExcerptDescriptor.HEADER_LENGTH + blockEntries * Long.BYTES;
    }

    /**
     * @param blockEntries entries per index block.
     * @param features     the cycle file's features.
     * @return the metadata payload length of an index block of a file with those features.
     */
    public static int blockPayloadLength(final int blockEntries, final int features) {
        return blockPayloadLength(blockEntries) + (hasIndexTimes(features) ? blockEntries * Long.BYTES : 0);
    }

    /**
     * @param features a cycle file's or a queue's features.
     * @return true if its index entries hold times.
     */
    public static boolean hasIndexTimes(final int features) {
        return (features & MetadataDescriptor.FEATURE_INDEX_TIMES) != 0;
    }

    /**
     * @param blockPosition the position of an index block's excerpt header, in a file with index times.
     * @param blockEntries  entries per index block.
     * @param slot          an entry's slot in the block.
     * @return the position of that entry's time.
     */
    public static long indexTimePosition(final long blockPosition, final int blockEntries, final int slot) {
        return indexEntryPosition(blockPosition, blockEntries + slot);
    }

    /**
     * @param chunkLength the queue's mapping chunk.
     * @return bytes past each chunk that its mapping also covers: the longest excerpt a chunk can hold.
     */
    public static long overlapLength(final long chunkLength) {
        return chunkLength / 4;
    }

    /**
     * @param chunkLength the queue's mapping chunk.
     * @return the longest payload a queue with that chunk accepts: its excerpt fits in the overlap with a cache line
     * to spare (for its header, its alignment and the next header), and its length in a header.
     */
    public static long maxPayloadLength(final long chunkLength) {
        return Math.min(overlapLength(chunkLength) - CACHE_LINE_LENGTH, ExcerptDescriptor.MAX_LENGTH);
    }

    /**
     * @param blockPosition the position of an index block's excerpt header.
     * @param slot          an entry's slot in the block: the entry modulo the entries per block.
     * @return the position of that entry.
     */
    public static long indexEntryPosition(final long blockPosition, final int slot) {
        return blockPosition + BLOCK_ENTRIES_OFFSET + (long) slot * Long.BYTES;
    }

    /**
     * @param block an index block number.
     * @return the position of its root entry.
     */
    public static long rootEntryPosition(final int block) {
        return ROOT_OFFSET + (long) block * Long.BYTES;
    }
}
