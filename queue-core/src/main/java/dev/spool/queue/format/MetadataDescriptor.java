package dev.spool.queue.format;

/**
 * Layout of a queue's metadata file, {@value #FILE_NAME}: identity and settings, the write lock, the cycle range,
 * the process slots behind the lock's liveness check, and the named tailers' positions.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                        Magic 'SPLM'                           |    0
 *  +---------------------------------------------------------------+
 *  |                          Version                              |    4
 *  +---------------------------------------------------------------+
 *  |                       Roll cycle id                           |    8
 *  +---------------------------------------------------------------+
 *  |                       Index spacing                           |   12
 *  +---------------------------------------------------------------+
 *  |                 Epoch (ms since 1970, long)                   |   16
 *  +---------------------------------------------------------------+
 *  |              Queue id, 128 random bits (2 longs)              |   24
 *  +---------------------------------------------------------------+
 *  |                 Created (ms since 1970, long)                 |   40
 *  +---------------------------------------------------------------+
 *  |                   Entries per index block                     |   48
 *  +---------------------------------------------------------------+
 *  |                   Maximum message length                      |   52
 *  +---------------------------------------------------------------+
 *  |                 Chunk length (mapping unit, long)             |   56
 *  +---------------------------------------------------------------+
 *  |    Write lock: 0 = free, else session id &lt;&lt; 8 | slot (long)   |   64 (own cache line)
 *  +---------------------------------------------------------------+
 *  |  Write fence: term that fenced or demoted it, 0 = none (long) |   72
 *  +---------------------------------------------------------------+
 *  |   Highest cycle (long)  |   Lowest cycle (long), -1 = none    |  128 (own cache line)
 *  +---------------------------------------------------------------+
 *  |           Last synced index (long, -1 = none)                 |  192 (durability)
 *  +---------------------------------------------------------------+
 *  |                Last acked index (long, -1 = none)             |  256 (replication)
 *  +---------------------------------------------------------------+
 *  |                 Term (long, 0 until a promotion)              |  264
 *  +---------------------------------------------------------------+
 *  |  Role: 0 primary, 1 replica, 2 fenced   |      reserved       |  272
 *  +---------------------------------------------------------------+
 *  |             Fenced by term (long, 0 = not fenced)             |  280
 *  +---------------------------------------------------------------+
 *  |  Features (int bit set, fixed at creation)  |     reserved     |  320 (own cache line)
 *  +---------------------------------------------------------------+
 *  |       Roll time: minute of the day (int, FEATURE_ZONED_ROLL)  |  328
 *  +---------------------------------------------------------------+
 *  |                  Roll zone id length (int)                    |  332
 *  +---------------------------------------------------------------+
 *  |         Roll zone id, UTF-8, up to 112 bytes                ... |  336
 *  +---------------------------------------------------------------+
 *  |        Quorum acked index + 1 (long, 0 = none)                |  448 (replication area, to 1023)
 *  +---------------------------------------------------------------+
 *  |        Schema generation (long, 0 = never counted)            |  512 (own cache line)
 *  +---------------------------------------------------------------+
 *  |                   Reserved to offset 1024                   ...
 *  +---------------------------------------------------------------+
 *  |  Process slots: 256 x { session id (long), pid (long) }       | 1024
 *  +---------------------------------------------------------------+
 *  |                   Reserved to offset 8192                   ...
 *  +---------------------------------------------------------------+
 *  |  Named tailers: 512 x { name length (int), reserved (int),    | 8192
 *  |                         last read index (long),               |
 *  |                         name, UTF-8, 48 bytes }               |
 *  +---------------------------------------------------------------+
 *  |                   Reserved to offset 65536                  ...
 *  +---------------------------------------------------------------+
 * </pre>
 * A process slot is owned by the process that holds an exclusive lock on byte {@code slot} of the lock file
 * {@value #LOCK_FILE_NAME}; the kernel drops that lock when the process dies, which is how a waiter tells a dead
 * write-lock holder from a slow one (see the engine's {@code WriteLock}).
 * <p>
 * The replication line: the source records the highest index a replica (any of its replicas) acknowledged; the
 * term counts promotions; the role says whether local appenders may write (see {@code QueueRole}). A queue created
 * before the role and fencing fields existed reads them as zero: a primary that was never fenced. The replication
 * area (448 to 1023) holds the highest index the source's ack quorum (k of its N replicas) acknowledged, stored
 * plus one so that a queue created before the field, which reads 0 there, reads "none"; and, on a line of its
 * own, the schema generation: a count of the typed schema files ({@code *.spool-schema}) written into the queue
 * directory, which a replication source reads once per duty cycle to learn, without listing the directory, that it
 * has schema files to send.
 */
public final class MetadataDescriptor {
    /** Name of the metadata file in the queue directory. */
    public static final String FILE_NAME = "metadata.spool";
    /** Name of the lock file whose byte-range locks prove a process slot's owner is alive. */
    public static final String LOCK_FILE_NAME = "metadata.lock";
    /** 'SPLM' in little-endian. */
    public static final int MAGIC = 0x4D4C5053;
    /** Layout version of a queue created without any {@linkplain #FEATURES_OFFSET feature}. */
    public static final int VERSION = 1;
    /**
     * Layout version of a queue created with at least one feature: a build that reads only {@link #VERSION} refuses
     * it instead of ignoring a feature it does not know.
     */
    public static final int VERSION_WITH_FEATURES = 2;

    /** Offset of the magic field. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the version field. */
    public static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    /** Offset of the roll cycle field. */
    public static final int ROLL_CYCLE_OFFSET = VERSION_OFFSET + Integer.BYTES;
    /** Offset of the index spacing field. */
    public static final int INDEX_SPACING_OFFSET = ROLL_CYCLE_OFFSET + Integer.BYTES;
    /** Offset of the epoch field. */
    public static final int EPOCH_OFFSET = INDEX_SPACING_OFFSET + Integer.BYTES;
    /** Offset of the queue id field. */
    public static final int QUEUE_ID_OFFSET = EPOCH_OFFSET + Long.BYTES;
    /** Length in bytes of the queue id. */
    public static final int QUEUE_ID_LENGTH = 2 * Long.BYTES;
    /** Offset of the created field. */
    public static final int CREATED_OFFSET = QUEUE_ID_OFFSET + QUEUE_ID_LENGTH;
    /** Offset of the index block entries field. */
    public static final int INDEX_BLOCK_ENTRIES_OFFSET = CREATED_OFFSET + Long.BYTES;
    /** Offset of the max message length field. */
    public static final int MAX_MESSAGE_LENGTH_OFFSET = INDEX_BLOCK_ENTRIES_OFFSET + Integer.BYTES;
    /** Offset of the chunk length field. */
    public static final int CHUNK_LENGTH_OFFSET = MAX_MESSAGE_LENGTH_OFFSET + Integer.BYTES;

    /** The largest index spacing: a power of two from 1 to this. */
    public static final int MAX_INDEX_SPACING = 4096;
    /** The fewest entries per index block: a power of two from this to {@link #MAX_INDEX_BLOCK_ENTRIES}. */
    public static final int MIN_INDEX_BLOCK_ENTRIES = 8;
    /** The most entries per index block. */
    public static final int MAX_INDEX_BLOCK_ENTRIES = 1 << 16;

    /** Length in bytes of a cache line: fields that different threads write start on their own. */
    public static final int CACHE_LINE_LENGTH = 64;
    /** The process slots start on a boundary of this many bytes: the fields before them have room to grow. */
    public static final int PROCESS_SLOTS_ALIGNMENT = 1024;
    /** The named tailers start on a page: the process slots before them have room to grow. */
    public static final int NAMED_TAILERS_ALIGNMENT = 4096;
    /** Contended by every writer: alone on its cache line. */
    public static final int WRITE_LOCK_OFFSET = align(CHUNK_LENGTH_OFFSET + Long.BYTES, CACHE_LINE_LENGTH);
    /**
     * The term that fenced or demoted the queue, 0 if none: every writer reads it right after taking the lock, and one
     * made at an earlier term stops, so an appender that was open before a fence or a demotion stops too. On the
     * lock's line, which the writer holds already, so it costs nothing.
     */
    public static final int WRITE_FENCE_OFFSET = WRITE_LOCK_OFFSET + Long.BYTES;
    /** Offset of the highest cycle field. */
    public static final int HIGHEST_CYCLE_OFFSET = align(WRITE_FENCE_OFFSET + Long.BYTES, CACHE_LINE_LENGTH);
    /** Offset of the lowest cycle field. */
    public static final int LOWEST_CYCLE_OFFSET = HIGHEST_CYCLE_OFFSET + Long.BYTES;
    /** Offset of the last synced index field. */
    public static final int LAST_SYNCED_INDEX_OFFSET = align(LOWEST_CYCLE_OFFSET + Long.BYTES, CACHE_LINE_LENGTH);
    /** Offset of the last acked index field. */
    public static final int LAST_ACKED_INDEX_OFFSET = align(LAST_SYNCED_INDEX_OFFSET + Long.BYTES, CACHE_LINE_LENGTH);
    /** Offset of the term field. */
    public static final int TERM_OFFSET = LAST_ACKED_INDEX_OFFSET + Long.BYTES;
    /**
     * The highest term a queue may have: promotions count up from 0 one at a time and never come near it, so a
     * higher one (from a peer, or a promotion past it) is refused rather than allowed to wrap to a negative term.
     */
    public static final long MAX_TERM = 1L << 62;
    /** Offset of the role field, an int. */
    public static final int ROLE_OFFSET = TERM_OFFSET + Long.BYTES;
    /** Length in bytes of the role field with the reserved int after it. */
    public static final int ROLE_LENGTH = Long.BYTES;
    /** Offset of the fenced by term field. */
    public static final int FENCED_BY_TERM_OFFSET = ROLE_OFFSET + ROLE_LENGTH;

    /** Offset of the features field, an int bit set fixed when the queue is created; 0 in a version 1 queue. */
    public static final int FEATURES_OFFSET = align(FENCED_BY_TERM_OFFSET + Long.BYTES, CACHE_LINE_LENGTH);
    /** Length in bytes of the features field with the reserved int after it. */
    public static final int FEATURES_LENGTH = Long.BYTES;
    /**
     * Feature bit: every data excerpt carries a CRC32C of its payload, written before its header is published and
     * checked by readers, the tools and the replica (see {@link ExcerptDescriptor#CHECKSUM_OFFSET}).
     */
    public static final int FEATURE_CRC32C = 1;
    /**
     * Feature bit: cycles start daily at {@link #ROLL_TIME_OFFSET} in the zone {@link #ROLL_ZONE_OFFSET} names,
     * instead of at multiples of the roll cycle from the epoch; cycle files are named {@code yyyyMMdd-HHmm} of
     * their local start.
     */
    public static final int FEATURE_ZONED_ROLL = 2;
    /**
     * Feature bit: every sparse index entry also holds the time its excerpt was appended, for
     * {@code ExcerptTailer.moveToTime} (index block layout: {@link CycleDescriptor}).
     */
    public static final int FEATURE_INDEX_TIMES = 4;
    /**
     * Feature bit: every data excerpt carries the id of the client that published it and that client's sequence
     * number for it, ahead of its payload (see {@link ExcerptDescriptor#PUBLISHER_ID_OFFSET}), so that a publish
     * gateway, on this queue or on a replica promoted in its place, writes a publish sent again only once.
     */
    public static final int FEATURE_PUBLISHER_IDS = 8;
    /** The feature bits this build knows; a queue that has any other bit set is refused at open. */
    public static final int KNOWN_FEATURES = FEATURE_CRC32C | FEATURE_ZONED_ROLL | FEATURE_INDEX_TIMES
            | FEATURE_PUBLISHER_IDS;
    /** Offset of the roll time, an int: minutes after local midnight; 0 unless {@link #FEATURE_ZONED_ROLL}. */
    public static final int ROLL_TIME_OFFSET = FEATURES_OFFSET + Long.BYTES;
    /** Offset of the length in bytes of the roll zone id, an int. */
    public static final int ROLL_ZONE_LENGTH_OFFSET = ROLL_TIME_OFFSET + Integer.BYTES;
    /** Offset of the roll zone id, a {@code java.time.ZoneId} in UTF-8 (e.g. {@code America/New_York}). */
    public static final int ROLL_ZONE_OFFSET = ROLL_ZONE_LENGTH_OFFSET + Integer.BYTES;
    /** Longest roll zone id, in UTF-8 bytes. */
    public static final int ROLL_ZONE_MAX_LENGTH = 112;

    /**
     * Offset of the replication area, to the process slots (448 to 1023): what replication persists. It follows the
     * features' cache line and the next one, which hold the other settings fixed at creation (328 to 447).
     */
    public static final int REPLICATION_AREA_OFFSET = FEATURES_OFFSET + 2 * CACHE_LINE_LENGTH;
    /**
     * Offset of the quorum acked index field, the first of the replication area: one more than the highest index
     * that the replication source's ack quorum (k of its N replicas) acknowledged, raised with a CAS, never lowered;
     * 0 (what a queue created before the field reads) while none is. Stored plus one so that no queue needs
     * rewriting.
     */
    public static final int QUORUM_ACKED_INDEX_OFFSET = REPLICATION_AREA_OFFSET;
    /**
     * Offset of the schema generation field, in the replication area on a cache line of its own (the quorum acked
     * index before it changes with every acknowledgement): raised by one, with an atomic add, each time a typed
     * schema file is written into the queue directory (by a method writer, or by a replication sink on a replica),
     * so a replication source sends the directory's schema files again when it changes. Only its changes mean
     * anything; a queue created before the field reads 0 and counts from there.
     */
    public static final int SCHEMA_GENERATION_OFFSET = QUORUM_ACKED_INDEX_OFFSET + CACHE_LINE_LENGTH;

    /** {@link #ROLE_OFFSET} value of a queue local appenders write to. */
    public static final int ROLE_PRIMARY = 0;
    /** {@link #ROLE_OFFSET} value of a queue written only by replication. */
    public static final int ROLE_REPLICA = 1;
    /** {@link #ROLE_OFFSET} value of a former primary that a later term took over from. */
    public static final int ROLE_FENCED = 2;

    /** Offset of the process slots. */
    public static final int PROCESS_SLOTS_OFFSET = align(FEATURES_OFFSET + FEATURES_LENGTH, PROCESS_SLOTS_ALIGNMENT);
    /** Number of process slot entries. */
    public static final int PROCESS_SLOT_COUNT = 256;
    /** Offset of the process slot session field. */
    public static final int PROCESS_SLOT_SESSION_OFFSET = 0;
    /** Offset of the process slot pid field. */
    public static final int PROCESS_SLOT_PID_OFFSET = PROCESS_SLOT_SESSION_OFFSET + Long.BYTES;
    /** Length in bytes of the process slot. */
    public static final int PROCESS_SLOT_LENGTH = PROCESS_SLOT_PID_OFFSET + Long.BYTES;

    /** Offset of the named tailers. */
    public static final int NAMED_TAILERS_OFFSET = align(PROCESS_SLOTS_OFFSET + PROCESS_SLOT_COUNT * PROCESS_SLOT_LENGTH,
            NAMED_TAILERS_ALIGNMENT);
    /** Number of named tailer entries. */
    public static final int NAMED_TAILER_COUNT = 512;
    /** Offset of the named tailer's name length, an int, from its entry. */
    public static final int NAMED_TAILER_NAME_LENGTH_OFFSET = 0;
    /** Length in bytes of the name length with the reserved int after it. */
    public static final int NAMED_TAILER_NAME_LENGTH_LENGTH = Long.BYTES;
    /** Offset of the named tailer's last read index (the last committed, see {@code CommitMode}), from its entry. */
    public static final int NAMED_TAILER_INDEX_OFFSET = NAMED_TAILER_NAME_LENGTH_OFFSET + NAMED_TAILER_NAME_LENGTH_LENGTH;
    /** Offset of the named tailer name field. */
    public static final int NAMED_TAILER_NAME_OFFSET = NAMED_TAILER_INDEX_OFFSET + Long.BYTES;
    /** Longest tailer name, in UTF-8 bytes. */
    public static final int NAMED_TAILER_MAX_NAME_LENGTH = 48;
    /** Length in bytes of the named tailer. */
    public static final int NAMED_TAILER_LENGTH = NAMED_TAILER_NAME_OFFSET + NAMED_TAILER_MAX_NAME_LENGTH;
    /**
     * Start of the name of a named tailer entry that holds a replica's acknowledged index, kept by the primary's
     * replication source: such an entry pins retention up to the queue's replica lag limit, whether or not named
     * tailers pin, and no tailer reads under it.
     */
    public static final String REPLICA_NAME_PREFIX = "replica@";

    /** Length of the whole file: 64 KiB, room to grow after the named tailers. */
    public static final int FILE_LENGTH = 1 << 16;

    /** Bits of the write-lock word that hold the owner's process slot. */
    public static final int LOCK_SLOT_BITS = 8;

    static {
        if (PROCESS_SLOTS_OFFSET + PROCESS_SLOT_COUNT * PROCESS_SLOT_LENGTH > NAMED_TAILERS_OFFSET
                || NAMED_TAILERS_OFFSET + NAMED_TAILER_COUNT * NAMED_TAILER_LENGTH > FILE_LENGTH
                || FENCED_BY_TERM_OFFSET + Long.BYTES > LAST_ACKED_INDEX_OFFSET + CACHE_LINE_LENGTH
                || FEATURES_OFFSET + FEATURES_LENGTH > PROCESS_SLOTS_OFFSET
                || SCHEMA_GENERATION_OFFSET + Long.BYTES > PROCESS_SLOTS_OFFSET
                || ROLL_ZONE_OFFSET + ROLL_ZONE_MAX_LENGTH > FEATURES_OFFSET + 2 * CACHE_LINE_LENGTH
                || WRITE_FENCE_OFFSET + Long.BYTES > WRITE_LOCK_OFFSET + CACHE_LINE_LENGTH
                || 1 << LOCK_SLOT_BITS != PROCESS_SLOT_COUNT) {
            throw new ExceptionInInitializerError("metadata layout overlaps");
        }
    }

    private MetadataDescriptor() {
    }

    /** @return {@code offset} rounded up to a multiple of {@code alignment}, a power of two. */
    private static int align(final int offset, final int alignment) {
        return (offset + alignment - 1) & -alignment;
    }

    /**
     * @param slot a process slot.
     * @return the position of its entry.
     */
    public static long processSlotPosition(final int slot) {
        return PROCESS_SLOTS_OFFSET + (long) slot * PROCESS_SLOT_LENGTH;
    }

    /**
     * @param entry a named tailer entry.
     * @return the position of the entry.
     */
    public static long namedTailerPosition(final int entry) {
        return NAMED_TAILERS_OFFSET + (long) entry * NAMED_TAILER_LENGTH;
    }

    /**
     * @param session the holder's random session.
     * @param slot    the holder's process slot.
     * @return the write-lock word that names the holder.
     */
    public static long lockWord(final long session, final int slot) {
        return session << LOCK_SLOT_BITS | slot;
    }

    /**
     * @param lockWord a write-lock word.
     * @return the process slot of its holder.
     */
    public static int lockSlot(final long lockWord) {
        return (int) (lockWord & (PROCESS_SLOT_COUNT - 1));
    }

    /**
     * @param lockWord a write-lock word.
     * @return the session of its holder.
     */
    public static long lockSession(final long lockWord) {
        return lockWord >>> LOCK_SLOT_BITS;
    }
}
