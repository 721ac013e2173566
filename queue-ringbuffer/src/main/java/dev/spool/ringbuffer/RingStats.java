package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.MappingGuard;

/**
 * A live view of a ring's counters, read from the shared file with volatile loads: any process that opens the
 * ring reads the same values, without stopping producers or the drainer. Values are read one at a time, so two
 * of them may be from slightly different moments.
 * <p>
 * Any thread may read it at any time, while the ring closes too: once the ring (or its {@link AsyncQueue}) is
 * closed, every method but {@link #capacity()} throws a {@link SpoolException} saying the ring is closed, and a
 * read in progress when the close began finishes before the ring is unmapped.
 */
public final class RingStats {
    private final RingBuffer ring;
    private final RingHeader header;
    private final DrainState drained;
    private final MappingGuard guard;

    RingStats(final RingBuffer ring) {
        this.ring = ring;
        this.header = ring.header();
        this.drained = ring.drainState();
        this.guard = ring.guard();
    }

    /** @return the capacity of the data region in bytes. */
    public int capacity() {
        return ring.capacity();
    }

    /** @return bytes claimed and not yet drained, padding included. */
    public long occupancy() {
        guard.enter();
        try {
            return Math.max(0, ring.tail() - ring.head());
        } finally {
            guard.exit();
        }
    }

    /**
     * @return the most bytes a claim has found in use since the ring was created: records not yet drained and the
     * drained ones the drainer's reserve keeps, padding included.
     */
    public long highWaterMark() {
        guard.enter();
        try {
            return header.readVolatileHighWaterMark();
        } finally {
            guard.exit();
        }
    }

    /** @return how many claims found the ring full, since the ring was created. */
    public long backPressureEvents() {
        guard.enter();
        try {
            return header.readVolatileBackPressureEvents();
        } finally {
            guard.exit();
        }
    }

    /** @return how many claims were turned into padding because their producer died or timed out. */
    public long revokedClaims() {
        guard.enter();
        try {
            return header.readVolatileRevokedClaims();
        } finally {
            guard.exit();
        }
    }

    /**
     * @return how many claims whose header was never written (the producer died or stalled between taking the
     * space and writing the header) the consumer turned into padding after the blocked-claim timeout.
     */
    public long unblockedClaims() {
        guard.enter();
        try {
            return header.readVolatileUnblockedClaims();
        } finally {
            guard.exit();
        }
    }

    /** @return how many records drainers have copied into the queue. */
    public long drainedRecords() {
        guard.enter();
        try {
            return drained.readVolatileDrainedRecords();
        } finally {
            guard.exit();
        }
    }

    /** @return how many batches drainers have copied into the queue. */
    public long drainedBatches() {
        guard.enter();
        try {
            return drained.readVolatileDrainedBatches();
        } finally {
            guard.exit();
        }
    }

    /** @return how many records a drainer found already in the queue after its predecessor died mid-batch. */
    public long recoveredRecords() {
        guard.enter();
        try {
            return drained.readVolatileRecoveredRecords();
        } finally {
            guard.exit();
        }
    }

    /** @return the queue index of the last drained record, or -1 if none. */
    public long lastDrainedIndex() {
        guard.enter();
        try {
            return drained.readVolatileLastDrainedIndex();
        } finally {
            guard.exit();
        }
    }

    /**
     * @return the drain lag in ms: how long ago the oldest record not yet drained was claimed; 0 when the ring
     * is empty. Approximate: the drainer may take that record while this reads it.
     */
    public long drainLagMillis() {
        guard.enter();
        try {
            final long head = ring.head();
            if (head == ring.tail()) {
                return 0;
            }
            final long word = ring.headerWordAt(head);
            if (RecordDescriptor.length(word) <= 0 || RecordDescriptor.type(word) != RecordDescriptor.TYPE_DATA) {
                // unclaimed or in progress: the claim time is written after the header, meaningful once committed
                return 0;
            }
            final long claimed = ring.claimTime(head);
            return claimed == 0 || ring.head() != head ? 0 : Math.max(0, ring.epochClock().time() - claimed);
        } finally {
            guard.exit();
        }
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
