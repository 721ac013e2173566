package dev.spool.ringbuffer;

/**
 * Layout of a ring file: a header of {@value #HEADER_LENGTH} bytes, the data region of {@code capacity} bytes
 * holding records ({@link RecordDescriptor}), then the index journal of {@code capacity} bytes.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                        Magic 'SPLR'                           |    0
 *  +---------------------------------------------------------------+
 *  |                          Version                              |    4
 *  +---------------------------------------------------------------+
 *  |              Capacity of the data region (power of two)       |    8
 *  +---------------------------------------------------------------+
 *  |                          Reserved                             |   12
 *  +---------------------------------------------------------------+
 *  |                 Created (ms since 1970, long)                 |   16
 *  +---------------------------------------------------------------+
 *  |                   Reserved to offset 128                    ...
 *  +---------------------------------------------------------------+
 *  |  Tail position (long): producers CAS it to claim              |  128 (own 128-byte line)
 *  +---------------------------------------------------------------+
 *  |  Head position (long): everything before it is in the queue   |  256 (own 128-byte line)
 *  +---------------------------------------------------------------+
 *  |  Drain intent start position (long, -1 = none)                |  384 (drainer's line)
 *  |  Drain intent end position (long)                             |  392
 *  |  Drain intent: queue's last index before the batch (long)     |  400
 *  |  Drain intent: data records in the batch (long)               |  408
 *  |  Drained records (long) | Drained batches (long)              |  416
 *  |  Last drained index (long, -1 = none)                         |  432
 *  |  Records recovered from a dead drainer's batch (long)         |  440
 *  |  Drained snapshot sequence (long): odd while it changes       |  448
 *  |  Drained snapshot: position (long) | claim time, clamped (ms) |  456
 *  +---------------------------------------------------------------+
 *  |  Release limit (long): bytes before it may be overwritten     |  512 (consumer's rare writes)
 *  |  Free position (long): producers may claim what is before it  |  520
 *  +---------------------------------------------------------------+
 *  |  High-water mark, bytes (long)                                |  640 (producers' rare writes)
 *  |  Back-pressure events (long) | Revoked claims (long)          |  648
 *  |  Unblocked claims (long)                                      |  664
 *  +---------------------------------------------------------------+
 *  |                   Reserved to offset 1024                   ...
 *  +---------------------------------------------------------------+
 *  |  Producer slot generations: 1024 x byte                     ... | 1024
 *  +---------------------------------------------------------------+
 *  |                   Reserved to offset 4096                   ...
 *  +---------------------------------------------------------------+
 *  |  Data region: capacity bytes of records                     ... | 4096
 *  +---------------------------------------------------------------+
 *  |  Index journal: capacity / 16 x { position (long),          ... | 4096 + capacity
 *  |                                   queue index (long) }        |
 *  +---------------------------------------------------------------+
 * </pre>
 * Positions are 64-bit byte counts that only grow; a record at position {@code p} lives at data offset
 * {@code p & (capacity - 1)}. Tail and head sit on lines of their own, 128 bytes apart so that adjacent-line
 * prefetch does not pair them: producers write the tail, the drainer writes the head and its intent.
 * <p>
 * Three positions follow the records through the consumer, {@code free <= release limit <= head <= tail}: the head
 * says what is consumed (in the queue, for a drained ring); the release limit says which bytes may be overwritten
 * from now on, so a ring reader that copied a record below it discards the copy; the free position says what
 * producers may claim again. Releasing {@code [free, to)} is: the release limit to {@code to} (volatile store), the
 * bytes filled with the next lap's unclaimed word (see {@link RecordDescriptor}), the free position to {@code to}
 * (release store). A drainer releases lazily, only whole records ending at most a reserve below the head, so that a
 * ring reader that far behind the drainer still reads from the ring; a consumer that died part-way through a
 * release leaves the release limit above the free position, and the next drainer finishes that release.
 * <p>
 * The drain intent makes draining crash-safe: before it appends a batch {@code [start, end)} to the queue, the
 * drainer writes the queue's last index before the batch, the batch's count of data records and its end, then
 * the start with a volatile store. After the batch it publishes the drained snapshot and moves the head to the
 * end, which leaves the intent stale ({@code start != head}). A drainer that finds {@code start == head} knows its
 * predecessor died inside that batch; the queue's excerpts after the recorded last index tell it how many of the
 * batch's records are already there. The batch's bytes are still intact: nothing at or above the head is released.
 * <p>
 * The drained snapshot tells a ring reader where the queue ends in ring terms: the position up to which records
 * are in the queue, the last drained index and the clamped claim time that decided its cycle, written as a
 * seqlock (sequence made odd, the three values, sequence made even) so that a reader sees the three together. A
 * reader that finds the sequence odd uses the last snapshot it read instead, while its position is not below the
 * release limit: any snapshot the reader can walk forward from in the ring serves.
 * <p>
 * The index journal maps a drained record's position to its queue index: entry {@code (p & (capacity-1)) / 16},
 * valid while it holds {@code p}. Every data record is at least 16 bytes long, so two records of one lap never
 * share an entry. The drainer writes -1, the index, then the position; a reader accepts the index only if it
 * read the same position before and after it.
 * <p>
 * Each protocol has one owner that reads and writes its fields: {@code RingHeader} the identity, positions (tail,
 * head, release limit, free position), producers' counters and slot generations; {@code DrainState} the drainer's line (intent, counters, snapshot);
 * {@code IndexJournal} the journal.
 */
final class RingBufferDescriptor {
    /** 'SPLR' in little-endian. */
    static final int MAGIC = 0x524C5053;
    /** Layout version. */
    static final int VERSION = 3;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    static final int CAPACITY_OFFSET = VERSION_OFFSET + Integer.BYTES;
    static final int CREATED_OFFSET = CAPACITY_OFFSET + 2 * Integer.BYTES;

    /** Two cache lines: adjacent-line prefetch moves lines in pairs. */
    static final int LINE_LENGTH = 128;
    static final int TAIL_POSITION_OFFSET = LINE_LENGTH;
    static final int HEAD_POSITION_OFFSET = TAIL_POSITION_OFFSET + LINE_LENGTH;

    static final int INTENT_START_OFFSET = HEAD_POSITION_OFFSET + LINE_LENGTH;
    static final int INTENT_END_OFFSET = INTENT_START_OFFSET + Long.BYTES;
    static final int INTENT_LAST_INDEX_OFFSET = INTENT_END_OFFSET + Long.BYTES;
    static final int INTENT_COUNT_OFFSET = INTENT_LAST_INDEX_OFFSET + Long.BYTES;
    static final int DRAINED_RECORDS_OFFSET = INTENT_COUNT_OFFSET + Long.BYTES;
    static final int DRAINED_BATCHES_OFFSET = DRAINED_RECORDS_OFFSET + Long.BYTES;
    static final int LAST_DRAINED_INDEX_OFFSET = DRAINED_BATCHES_OFFSET + Long.BYTES;
    static final int RECOVERED_RECORDS_OFFSET = LAST_DRAINED_INDEX_OFFSET + Long.BYTES;
    static final int DRAINED_SEQUENCE_OFFSET = RECOVERED_RECORDS_OFFSET + Long.BYTES;
    static final int DRAINED_POSITION_OFFSET = DRAINED_SEQUENCE_OFFSET + Long.BYTES;
    static final int LAST_DRAINED_TIME_OFFSET = DRAINED_POSITION_OFFSET + Long.BYTES;

    static final int RELEASE_LIMIT_OFFSET = INTENT_START_OFFSET + LINE_LENGTH;
    static final int FREE_POSITION_OFFSET = RELEASE_LIMIT_OFFSET + Long.BYTES;

    static final int HIGH_WATER_MARK_OFFSET = RELEASE_LIMIT_OFFSET + LINE_LENGTH;
    static final int BACK_PRESSURE_EVENTS_OFFSET = HIGH_WATER_MARK_OFFSET + Long.BYTES;
    static final int REVOKED_CLAIMS_OFFSET = BACK_PRESSURE_EVENTS_OFFSET + Long.BYTES;
    static final int UNBLOCKED_CLAIMS_OFFSET = REVOKED_CLAIMS_OFFSET + Long.BYTES;

    /** One byte per producer slot: its generation, bumped by each process that takes the slot. */
    static final int SLOT_GENERATIONS_OFFSET = 1024;
    /** Bytes before the data region: a page, so that the file length is a whole number of pages, as mapping needs. */
    static final int HEADER_LENGTH = 4096;

    /** Bytes per journal entry: position, then index. */
    static final int JOURNAL_ENTRY_LENGTH = 2 * Long.BYTES;
    static final int JOURNAL_POSITION_OFFSET = 0;
    static final int JOURNAL_INDEX_OFFSET = Long.BYTES;
    /** Data records are at least this long, so each has a journal entry of its own within one lap. */
    static final int JOURNAL_GRANULE = RecordDescriptor.HEADER_LENGTH;

    /** The smallest capacity a ring may have. */
    static final int MIN_CAPACITY = 4096;
    /** The largest capacity a ring may have: positions within the data region fit an int. */
    static final int MAX_CAPACITY = 1 << 30;

    private RingBufferDescriptor() {
    }

    /** @return the file length of a ring with {@code capacity} bytes of data. */
    static long fileLength(final int capacity) {
        return HEADER_LENGTH + 2L * capacity;
    }

    /** @return the offset in the file of the journal entry for a record at {@code offset} in the data region. */
    static long journalEntryOffset(final int capacity, final long dataOffset) {
        return HEADER_LENGTH + (long) capacity + (dataOffset / JOURNAL_GRANULE) * JOURNAL_ENTRY_LENGTH;
    }

    /** @return the longest payload a ring of {@code capacity} accepts: an eighth of it, less a record header. */
    static int maxPayloadLength(final int capacity) {
        return capacity / 8 - RecordDescriptor.HEADER_LENGTH;
    }
}
