package dev.spool.ringbuffer;

/** The {@link RingMXBean} of an open ring: reads its {@link RingStats}. */
final class RingMetrics implements RingMXBean {
    private final RingBuffer ring;
    private final RingStats stats;

    RingMetrics(final RingBuffer ring) {
        this.ring = ring;
        this.stats = ring.stats();
    }

    @Override
    public String getPath() {
        return ring.path().toString();
    }

    @Override
    public int getCapacity() {
        return stats.capacity();
    }

    @Override
    public long getOccupancy() {
        return stats.occupancy();
    }

    @Override
    public long getHighWaterMark() {
        return stats.highWaterMark();
    }

    @Override
    public long getDrainLagMillis() {
        return stats.drainLagMillis();
    }

    @Override
    public long getBackPressureEvents() {
        return stats.backPressureEvents();
    }

    @Override
    public long getRevokedClaims() {
        return stats.revokedClaims();
    }

    @Override
    public long getUnblockedClaims() {
        return stats.unblockedClaims();
    }

    @Override
    public long getDrainedRecords() {
        return stats.drainedRecords();
    }

    @Override
    public long getDrainedBatches() {
        return stats.drainedBatches();
    }

    @Override
    public long getRecoveredRecords() {
        return stats.recoveredRecords();
    }

    @Override
    public long getLastDrainedIndex() {
        return stats.lastDrainedIndex();
    }
}
