package dev.spool.queue.format;

/**
 * Layout of a repair journal: the bytes a repair is about to write into cycle files, kept in the queue's directory
 * under {@link #FILE_NAME} until every one of them is written and synced, so that a repair cut short by a crash is
 * finished by the next writer that opens the queue. Little-endian:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                         Magic 'SPLJ'                          |  0
 *  +---------------------------------------------------------------+
 *  |                           Version                             |  4
 *  +---------------------------------------------------------------+
 *  |                         Entry count                           |  8
 *  +---------------------------------------------------------------+
 *  |                          Reserved                             | 12
 *  +---------------------------------------------------------------+
 *  |                    Entries, 8-byte aligned                  ... 16
 *  +---------------------------------------------------------------+
 *  |    CRC32C of every byte before it (int), then 4 zero bytes    | journal length - 8
 *  +---------------------------------------------------------------+
 * </pre>
 * Each entry, padded to the next 8-byte boundary:
 * <pre>
 *  +---------------------------------------------------------------+
 *  |                  File name length (int, bytes)                |  0
 *  +---------------------------------------------------------------+
 *  |                   Data length (int, bytes)                    |  4
 *  +---------------------------------------------------------------+
 *  |          Position in the cycle file to write at (long)        |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |     Cycle file name, UTF-8, no directory ({@code *.cycle})    | 16
 * ...                                                              |
 *  +---------------------------------------------------------------+
 *  |                  Data: the bytes to write there             ... 16 + name length
 *  +---------------------------------------------------------------+
 * </pre>
 * A journal is written whole under {@link #TEMP_FILE_NAME}, synced, and renamed into place, so a journal under
 * {@link #FILE_NAME} is complete unless the disk damaged it: one whose magic, version, lengths or CRC32C are wrong
 * was never applied, and is discarded. Applying a journal writes the same bytes however often it runs.
 */
public final class RepairJournalDescriptor {
    /** 'SPLJ' in little-endian. */
    public static final int MAGIC = 0x4A4C5053;
    /** Layout version. */
    public static final int VERSION = 1;
    /** The journal's name in the queue's directory. */
    public static final String FILE_NAME = "repair.journal";
    /** The name a journal is written under before it is complete. */
    public static final String TEMP_FILE_NAME = FILE_NAME + ".tmp";

    /** Offset of the magic field. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the version field. */
    public static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    /** Offset of the entry count. */
    public static final int ENTRY_COUNT_OFFSET = VERSION_OFFSET + Integer.BYTES;
    /** Offset of the reserved field. */
    public static final int RESERVED_OFFSET = ENTRY_COUNT_OFFSET + Integer.BYTES;
    /** Offset of the first entry. */
    public static final int ENTRIES_OFFSET = RESERVED_OFFSET + Integer.BYTES;

    /** Offset of an entry's file name length, from the entry. */
    public static final int ENTRY_NAME_LENGTH_OFFSET = 0;
    /** Offset of an entry's data length, from the entry. */
    public static final int ENTRY_DATA_LENGTH_OFFSET = ENTRY_NAME_LENGTH_OFFSET + Integer.BYTES;
    /** Offset of an entry's position, from the entry. */
    public static final int ENTRY_POSITION_OFFSET = ENTRY_DATA_LENGTH_OFFSET + Integer.BYTES;
    /** Offset of an entry's file name, from the entry. */
    public static final int ENTRY_NAME_OFFSET = ENTRY_POSITION_OFFSET + Long.BYTES;

    /** Length of the trailer: the CRC32C and its padding. */
    public static final int TRAILER_LENGTH = Long.BYTES;
    /** Entries and the journal are aligned to this. */
    public static final int ALIGNMENT = 8;
    /** The longest file name an entry may hold. */
    public static final int MAX_NAME_LENGTH = 255;

    private RepairJournalDescriptor() {
    }

    /**
     * @param nameLength an entry's file name length.
     * @param dataLength an entry's data length.
     * @return the bytes the entry takes, padding included.
     */
    public static int entryLength(final int nameLength, final int dataLength) {
        return (ENTRY_NAME_OFFSET + nameLength + dataLength + ALIGNMENT - 1) & -ALIGNMENT;
    }
}
