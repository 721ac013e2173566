package dev.spool.queue.format;

/**
 * Layout of a queue's term history file, {@value #FILE_NAME}, in the queue directory: which term wrote which indices.
 * One entry per term, in the order the terms began: the term and the first index it covers; a term covers the
 * indices from its start to the next entry's start (exclusive), the last one every index from its start on. A term
 * whose start equals the next entry's start covers nothing (its primary wrote nothing). Little-endian.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                        Magic 'SPLT'                           |  0
 *  +---------------------------------------------------------------+
 *  |                          Version                              |  4
 *  +---------------------------------------------------------------+
 *  |                 Entry count, 1 to MAX_ENTRIES                 |  8
 *  +---------------------------------------------------------------+
 *  |   CRC-32C of the bytes before it and of every entry           | 12
 *  +---------------------------------------------------------------+
 *  |                     Entry 0: term (long)                      | 16
 *  +---------------------------------------------------------------+
 *  |              Entry 0: first index of the term (long)          | 24
 *  +---------------------------------------------------------------+
 *  |                          Entry 1 ...                          | 32
 * </pre>
 * The file is never written in place: a new version is written whole to {@value #TEMPORARY_FILE_NAME}, forced to
 * disk, renamed over {@value #FILE_NAME} and the directory forced, so a crash leaves the old version or the new one;
 * the checksum catches any other damage. A queue without the file (created before it existed, or never promoted and
 * never a replica of a promoted queue) has the history of one entry: its current term from index 0.
 */
public final class TermHistoryDescriptor {
    /** Name of the term history file in the queue directory. */
    public static final String FILE_NAME = "terms.spool";
    /** Name of the file a new version is written to before it is renamed over {@link #FILE_NAME}. */
    public static final String TEMPORARY_FILE_NAME = "terms.spool.tmp";
    /** 'SPLT' in little-endian. */
    public static final int MAGIC = 0x544C5053;
    /** Layout version. */
    public static final int VERSION = 1;

    /** Offset of the magic field. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the version field. */
    public static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    /** Offset of the entry count field. */
    public static final int COUNT_OFFSET = VERSION_OFFSET + Integer.BYTES;
    /** Offset of the checksum field: CRC-32C of the bytes before it, then of the entries. */
    public static final int CHECKSUM_OFFSET = COUNT_OFFSET + Integer.BYTES;
    /** Offset of the first entry. */
    public static final int ENTRIES_OFFSET = CHECKSUM_OFFSET + Integer.BYTES;

    /** Offset of an entry's term, from the entry. */
    public static final int ENTRY_TERM_OFFSET = 0;
    /** Offset of an entry's first index, from the entry. */
    public static final int ENTRY_START_INDEX_OFFSET = ENTRY_TERM_OFFSET + Long.BYTES;
    /** Length in bytes of an entry. */
    public static final int ENTRY_LENGTH = ENTRY_START_INDEX_OFFSET + Long.BYTES;

    /**
     * The most entries a history keeps: past it, the oldest entries are dropped at the next promotion, and the history
     * then says nothing of the indices before its first entry's start. The replication handshake carries a history
     * whole, so this also bounds those frames.
     */
    public static final int MAX_ENTRIES = 200;

    private TermHistoryDescriptor() {
    }

    /**
     * @param count a number of entries.
     * @return the length in bytes of a file of that many.
     */
    public static int fileLength(final int count) {
        return ENTRIES_OFFSET + count * ENTRY_LENGTH;
    }

    /**
     * @param entry an entry's number, from 0.
     * @return the position of the entry in the file.
     */
    public static int entryPosition(final int entry) {
        return ENTRIES_OFFSET + entry * ENTRY_LENGTH;
    }
}
