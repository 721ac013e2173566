package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.VariantNames;

import java.nio.file.Path;

/**
 * E0, the floor: the start time handed over through an in-memory ring ({@link SpscLongRing}). Only the 8-byte
 * timestamp moves, whatever the message length, and no file is touched: what it measures is the cost of two
 * threads talking through memory on this machine, including what the scheduler does to them.
 */
final class FloorVariant implements LatencyVariant {
    /**
     * Slots: 512 KiB, 262 ms of messages at 250K msg/s. A queue never pushes back on its sender, so neither may
     * the floor when the scheduler parks the reader for milliseconds, as it does on these VMs; the producer and
     * consumer still meet in one or two cache lines, and the ring fits in L2.
     */
    private static final int CAPACITY = 1 << 16;

    private SpscLongRing ring;

    @Override
    public String name() {
        return VariantNames.FLOOR;
    }

    @Override
    public String description() {
        return "E0: in-memory single-producer/single-consumer ring of " + CAPACITY
                + " longs, padded sequences; hands over the 8-byte start time only, no file";
    }

    @Override
    public void init(final Path directory, final int length) {
        ring = new SpscLongRing(CAPACITY);
    }

    @Override
    public void openReader() {
        // the ring is the reader's too; nothing to open
    }

    @Override
    public void send(final long startTimeNs) {
        final SpscLongRing ring = this.ring;
        ring.put(startTimeNs);
    }

    @Override
    public long receive() {
        // EMPTY is NOTHING
        return ring.poll();
    }

    @Override
    public void closeReader() {
        // nothing to release
    }

    @Override
    public void close() {
        ring = null;
    }
}
