package dev.spool.queue;

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
 * </pre>
 * The write position and sequence are hints that only a holder of the queue's write lock reads or writes; the
 * excerpt headers remain the truth, and a writer that finds a hint stale walks forward from it.
 */
final class CycleDescriptor {
    /** 'SPLC' in little-endian. */
    static final int MAGIC = 0x434C5053;
    /** Layout version. */
    static final int VERSION = 1;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    static final int CYCLE_OFFSET = VERSION_OFFSET + Integer.BYTES;
    static final int ROLL_CYCLE_OFFSET = CYCLE_OFFSET + Long.BYTES;
    static final int INDEX_SPACING_OFFSET = ROLL_CYCLE_OFFSET + Integer.BYTES;
    static final int INDEX_BLOCK_ENTRIES_OFFSET = INDEX_SPACING_OFFSET + Integer.BYTES;
    static final int ROOT_ENTRIES_OFFSET = INDEX_BLOCK_ENTRIES_OFFSET + Integer.BYTES;

    /** The writer's hints start on their own cache line. */
    static final int WRITE_POSITION_OFFSET = 64;
    static final int WRITE_SEQUENCE_OFFSET = WRITE_POSITION_OFFSET + Long.BYTES;

    /** The header occupies one page. */
    static final int HEADER_LENGTH = 4096;
    static final int ROOT_OFFSET = HEADER_LENGTH;
    /** Index blocks one root can address. */
    static final int ROOT_ENTRIES = 1 << 15;
    static final int ROOT_LENGTH = ROOT_ENTRIES * Long.BYTES;
    /** First excerpt of every cycle. */
    static final int DATA_OFFSET = ROOT_OFFSET + ROOT_LENGTH;

    /** Offset of the type in an index block, from the block's excerpt header. */
    static final int BLOCK_TYPE_OFFSET = ExcerptDescriptor.HEADER_LENGTH;
    /** Offset of the first entry in an index block, from the block's excerpt header. */
    static final int BLOCK_ENTRIES_OFFSET = BLOCK_TYPE_OFFSET + Integer.BYTES;

    private CycleDescriptor() {
    }

    /** @return the metadata payload length of an index block with this many entries. */
    static int blockPayloadLength(final int blockEntries) {
        return BLOCK_ENTRIES_OFFSET - ExcerptDescriptor.HEADER_LENGTH + blockEntries * Long.BYTES;
    }

    /** @return the position of root entry {@code block}. */
    static long rootEntryPosition(final int block) {
        return ROOT_OFFSET + (long) block * Long.BYTES;
    }
}
