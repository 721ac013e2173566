package dev.spool.ringbuffer;

/**
 * A live view of a ring's counters, read from the shared file with volatile loads: any process that opens the
 * ring reads the same values, without stopping producers or the drainer. Values are read one at a time, so two
 * of them may be from slightly different moments.
 */
public final class RingStats {
    private final RingBuffer ring;
    private final RingHeader header;
    private final DrainState drained;

    RingStats(final RingBuffer ring) {
        this.ring = ring;
        this.header = ring.header();
        this.drained = ring.drainState();
    }

    /** @return the capacity of the data region in bytes. */
    public int capacity() {
        return ring.capacity();
    }

    /** @return bytes claimed and not yet drained, padding included. */
    public long occupancy() {
        return Math.max(0, ring.tailPosition() - ring.headPosition());
    }

    /**
     * @return the most bytes a claim has found in use since the ring was created: records not yet drained and the
     * drained ones the drainer's reserve keeps, padding included.
     */
    public long highWaterMark() {
        return header.readVolatileHighWaterMark();
    }

    /** @return how many claims found the ring full, since the ring was created. */
    public long backPressureEvents() {
        return header.readVolatileBackPressureEvents();
    }

    /** @return how many claims were turned into padding because their producer died or timed out. */
    public long revokedClaims() {
        return header.readVolatileRevokedClaims();
    }

    /**
     * @return how many claims whose header was never written (the producer died or stalled between taking the
     * space and writing the header) the consumer turned into padding after the blocked-claim timeout.
     */
    public long unblockedClaims() {
        return header.readVolatileUnblockedClaims();
    }

    /** @return how many records drainers have copied into the queue. */
    public long drainedRecords() {
        return drained.readVolatileDrainedRecords();
    }

    /** @return how many batches drainers have copied into the queue. */
    public long drainedBatches() {
        return drained.readVolatileDrainedBatches();
    }

    /** @return how many records a drainer found already in the queue after its predecessor died mid-batch. */
    public long recoveredRecords() {
        return drained.readVolatileRecoveredRecords();
    }

    /** @return the queue index of the last drained record, or -1 if none. */
    public long lastDrainedIndex() {
        return drained.readVolatileLastDrainedIndex();
    }

    /**
     * @return the drain lag in ms: how long ago the oldest record not yet drained was claimed; 0 when the ring
     * is empty. Approximate: the drainer may take that record while this reads it.
     */
    public long drainLagMillis() {
        final long head = ring.headPosition();
        if (head == ring.tailPosition()) {
            return 0;
        }
        final long word = ring.headerWordAt(head);
        if (RecordDescriptor.length(word) <= 0 || RecordDescriptor.type(word) != RecordDescriptor.TYPE_DATA) {
            // unclaimed or in progress: the claim time is written after the header, and is meaningful once committed
            return 0;
        }
        final long claimed = ring.claimTime(head);
        return claimed == 0 || ring.headPosition() != head ? 0 : Math.max(0, System.currentTimeMillis() - claimed);
    }

    @Override
    public String toString() {
        return "RingStats{capacity=" + capacity() + ", occupancy=" + occupancy() + ", highWaterMark=" + highWaterMark()
                + ", drainLagMillis=" + drainLagMillis() + ", backPressureEvents=" + backPressureEvents()
                + ", revokedClaims=" + revokedClaims() + ", unblockedClaims=" + unblockedClaims() + ", drainedRecords=" + drainedRecords()
                + ", drainedBatches=" + drainedBatches() + ", recoveredRecords=" + recoveredRecords()
                + ", lastDrainedIndex=" + lastDrainedIndex() + "}";
    }
}
