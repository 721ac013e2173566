package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.VariantNames;

import java.nio.file.Path;

/**
 * E0, the floor: the start time handed over through an in-memory ring ({@link SpscLongRing}). Only the 8-byte
 * timestamp moves, whatever the message length, and no file is touched: what it measures is the cost of two
 * threads talking through memory on this machine, including what the scheduler does to them.
 * <p>
 * {@code floor-beside-disk-writer} is the same floor, measured while a second process ({@link DiskWriterProcess})
 * appends the same bytes per second (the run's message length at its rate) to a Spool queue in the variant's
 * directory, on the same file system as every other variant's queue. This process still writes nothing: what it
 * shows beside the floor is what the disk's write-back does to a process that only talks through memory, the
 * machine's own limit for every variant that writes the disk.
 */
final class FloorVariant implements LatencyVariant {
    /**
     * Slots: 512 KiB, 262 ms of messages at 250K msg/s. A queue never pushes back on its sender, so neither may
     * the floor when the scheduler parks the reader for milliseconds, as it does on these VMs; the producer and
     * consumer still meet in one or two cache lines, and the ring fits in L2.
     */
    private static final int CAPACITY = 1 << 16;

    /** Name of {@link #besideDiskWriter()}. */
    static final String BESIDE_DISK_WRITER = VariantNames.FLOOR + "-beside-disk-writer";

    private final boolean besideDiskWriter;
    private int rate;
    private SpscLongRing ring;
    private DiskWriterProcess diskWriter;

    /** The floor alone. */
    FloorVariant() {
        this(false);
    }

    private FloorVariant(final boolean besideDiskWriter) {
        this.besideDiskWriter = besideDiskWriter;
    }

    /** @return {@code floor-beside-disk-writer}: the floor while a second process writes as much to a queue. */
    static FloorVariant besideDiskWriter() {
        return new FloorVariant(true);
    }

    @Override
    public String name() {
        return besideDiskWriter ? BESIDE_DISK_WRITER : VariantNames.FLOOR;
    }

    @Override
    public String description() {
        final String floor = "in-memory single-producer/single-consumer ring of " + CAPACITY
                + " longs, padded sequences; hands over the 8-byte start time only, no file";
        return besideDiskWriter
                ? "control: the floor, while a second JVM appends the same bytes per second to a Spool queue under"
                + " --dir, parking 1 ms between bursts: the disk's write-back, seen by a process that writes nothing"
                : "E0: " + floor;
    }

    @Override
    public void rate(final int messagesPerSecond) {
        rate = messagesPerSecond;
    }

    @Override
    public void init(final Path directory, final int length) {
        ring = new SpscLongRing(CAPACITY);
        if (besideDiskWriter) {
            if (rate <= 0) {
                throw new IllegalStateException(BESIDE_DISK_WRITER + " writes at the run's rate, which it was not"
                        + " given; rate(int) comes before init");
            }
            diskWriter = DiskWriterProcess.start(directory.resolve("disk-writer-queue"), length, rate);
        }
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
        if (diskWriter != null) {
            diskWriter.close();
            diskWriter = null;
        }
    }
}
