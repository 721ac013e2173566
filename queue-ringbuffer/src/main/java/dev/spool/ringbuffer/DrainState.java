package dev.spool.ringbuffer;

import java.nio.ByteBuffer;

import static dev.spool.ringbuffer.RingBufferDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Flyweight over the drainer's line of a ring file's header (layout: {@link RingBufferDescriptor}): the drain
 * intent that makes draining crash-safe, the drain counters, and the drained snapshot with its seqlock. The ring's
 * one drainer writes; the drainer of a later process reads the intent to recover; ring readers and stats read the
 * snapshot and counters.
 * <p>
 * The write side is stateless and may be shared. The read side of the snapshot ({@link #readVolatileSnapshot()})
 * keeps what it read in this instance, for the thread that owns it: each ring reader wraps its own instance.
 */
final class DrainState {
    private final long address;
    private long snapshotPosition;
    private long snapshotIndex;
    private long snapshotTime;
    private boolean snapshotRead;

    /** @param address where the mapped ring file starts. */
    DrainState(final long address) {
        this.address = address;
    }

    /** Writes the drain state of a new ring into {@code header}: no intent, nothing drained. */
    static void initialise(final ByteBuffer header) {
        header.putLong(INTENT_START_OFFSET, -1)
                .putLong(INTENT_END_OFFSET, -1)
                .putLong(INTENT_LAST_INDEX_OFFSET, -1)
                .putLong(LAST_DRAINED_INDEX_OFFSET, -1);
    }

    /**
     * Records the intent to append the batch {@code [start, end)}: ordered stores of its end, the queue's last index
     * before it and its count of data records, then a volatile store of its start, the field a recovering drainer
     * tests first.
     */
    void writeVolatileIntent(final long start, final long end, final long lastIndexBefore, final long count) {
        MEMORY.writeOrderedLong(address + INTENT_LAST_INDEX_OFFSET, lastIndexBefore);
        MEMORY.writeOrderedLong(address + INTENT_COUNT_OFFSET, count);
        MEMORY.writeOrderedLong(address + INTENT_END_OFFSET, end);
        // full fence: the intent is in shared memory before the first excerpt of the batch reaches the queue
        MEMORY.writeVolatileLong(address + INTENT_START_OFFSET, start);
    }

    /** @return the start of the last intended batch, -1 if none, with acquire semantics. */
    long readVolatileIntentStart() {
        return MEMORY.readVolatileLong(address + INTENT_START_OFFSET);
    }

    /** @return the end of the last intended batch, with acquire semantics. */
    long readVolatileIntentEnd() {
        return MEMORY.readVolatileLong(address + INTENT_END_OFFSET);
    }

    /** @return the queue's last index before the last intended batch, -1 if none, with acquire semantics. */
    long readVolatileIntentLastIndex() {
        return MEMORY.readVolatileLong(address + INTENT_LAST_INDEX_OFFSET);
    }

    /** @return the data records of the last intended batch, with acquire semantics. */
    long readVolatileIntentCount() {
        return MEMORY.readVolatileLong(address + INTENT_COUNT_OFFSET);
    }

    /** Stores the drain counters with release stores; the drainer's thread only, so no atomic add is needed. */
    void writeOrderedCounts(final long drainedRecords, final long drainedBatches) {
        MEMORY.writeOrderedLong(address + DRAINED_RECORDS_OFFSET, drainedRecords);
        MEMORY.writeOrderedLong(address + DRAINED_BATCHES_OFFSET, drainedBatches);
    }

    /** @return the records drainers have copied into the queue, with acquire semantics. */
    long readVolatileDrainedRecords() {
        return MEMORY.readVolatileLong(address + DRAINED_RECORDS_OFFSET);
    }

    /** @return the batches drainers have copied into the queue, with acquire semantics. */
    long readVolatileDrainedBatches() {
        return MEMORY.readVolatileLong(address + DRAINED_BATCHES_OFFSET);
    }

    /** Adds {@code count} to the recovered records with a release store; the drainer's thread only. */
    void addOrderedRecoveredRecords(final long count) {
        MEMORY.writeOrderedLong(address + RECOVERED_RECORDS_OFFSET, readVolatileRecoveredRecords() + count);
    }

    /** @return the records drainers found already in the queue after a predecessor died, with acquire semantics. */
    long readVolatileRecoveredRecords() {
        return MEMORY.readVolatileLong(address + RECOVERED_RECORDS_OFFSET);
    }

    /** @return the queue index of the last drained record, -1 if none, with acquire semantics. */
    long readVolatileLastDrainedIndex() {
        return MEMORY.readVolatileLong(address + LAST_DRAINED_INDEX_OFFSET);
    }

    /** @return the clamped claim time of the last drained record, with acquire semantics. */
    long readVolatileLastDrainedTime() {
        return MEMORY.readVolatileLong(address + LAST_DRAINED_TIME_OFFSET);
    }

    /**
     * Publishes the drained snapshot, the drainer's thread only: the sequence made odd with a volatile store, the
     * three values with release stores, the sequence made even with a volatile store, whose full fence publishes the
     * snapshot before the head moves past the batch.
     *
     * @param position  where the drained records end in the ring.
     * @param lastIndex the queue index of the last drained record, -1 if none.
     * @param lastTime  the clamped claim time that decided its cycle.
     */
    void writeVolatileSnapshot(final long position, final long lastIndex, final long lastTime) {
        // odd even if a dead drainer left it odd, and different from what a reader may have read
        final long changing = (MEMORY.readVolatileLong(address + DRAINED_SEQUENCE_OFFSET) + 1) | 1;
        // full fence: a reader that sees any of the values below also sees the sequence odd
        MEMORY.writeVolatileLong(address + DRAINED_SEQUENCE_OFFSET, changing);
        MEMORY.writeOrderedLong(address + LAST_DRAINED_INDEX_OFFSET, lastIndex);
        MEMORY.writeOrderedLong(address + LAST_DRAINED_TIME_OFFSET, lastTime);
        MEMORY.writeOrderedLong(address + DRAINED_POSITION_OFFSET, position);
        // full fence: the values are visible before the even sequence that says they belong together
        MEMORY.writeVolatileLong(address + DRAINED_SEQUENCE_OFFSET, changing + 1);
    }

    /**
     * Reads the drained snapshot with volatile loads: the sequence, the three values, the sequence again. On
     * success {@link #snapshotPosition()}, {@link #snapshotIndex()} and {@link #snapshotTime()} hold values that
     * belong together, until the next successful call; a failed call leaves them as they were.
     *
     * @return false if the drainer was changing the snapshot: the last snapshot read, if any, still holds.
     */
    boolean readVolatileSnapshot() {
        final long sequence = MEMORY.readVolatileLong(address + DRAINED_SEQUENCE_OFFSET);
        if ((sequence & 1) != 0) {
            return false;
        }
        final long index = MEMORY.readVolatileLong(address + LAST_DRAINED_INDEX_OFFSET);
        final long time = MEMORY.readVolatileLong(address + LAST_DRAINED_TIME_OFFSET);
        final long position = MEMORY.readVolatileLong(address + DRAINED_POSITION_OFFSET);
        // the loads above are volatile, so none of them moves after this second load of the sequence
        if (MEMORY.readVolatileLong(address + DRAINED_SEQUENCE_OFFSET) != sequence) {
            return false;
        }
        snapshotIndex = index;
        snapshotTime = time;
        snapshotPosition = position;
        snapshotRead = true;
        return true;
    }

    /** @return true once a {@link #readVolatileSnapshot()} has succeeded: the snapshot values are some snapshot's. */
    boolean hasSnapshot() {
        return snapshotRead;
    }

    /** @return the drained position of the last successful {@link #readVolatileSnapshot()}. */
    long snapshotPosition() {
        return snapshotPosition;
    }

    /** @return the last drained index of the last successful {@link #readVolatileSnapshot()}. */
    long snapshotIndex() {
        return snapshotIndex;
    }

    /** @return the last drained claim time of the last successful {@link #readVolatileSnapshot()}. */
    long snapshotTime() {
        return snapshotTime;
    }
}
