package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import net.openhft.chronicle.bytes.Bytes;

import java.nio.file.Path;

/**
 * E3b's shape, shared by {@link SyncVariant} (Spool) and {@link ChronicleSyncVariant} (Chronicle Queue): JLBH's
 * thread writes the message to a queue and syncs it as the variant says; then the message is committed, and its
 * start time goes to the reader through an in-memory ring ({@link SpscLongRing}, as in the floor), which samples
 * it. The reader never reads the queue. A flagging variant marks one message in {@value LargeOrders#EVERY} as a
 * large order, the content that asks for a sync.
 */
abstract class SyncHandoffVariant implements LatencyVariant {
    private final String name;
    private final String description;
    private final boolean flagging;
    private final LargeOrders largeOrders = new LargeOrders();
    private Bytes<?> message;
    private SpscLongRing committed;

    /**
     * @param name        the variant's name.
     * @param description what it does.
     * @param flagging    true to mark large orders, for a sync by content.
     */
    SyncHandoffVariant(final String name, final String description, final boolean flagging) {
        this.name = name;
        this.description = description;
        this.flagging = flagging;
    }

    /** Opens the variant's queue and appender in {@code directory}. */
    abstract void openQueue(Path directory);

    /**
     * Writes the message, and syncs as the variant does; JLBH's thread.
     *
     * @param message       the message, its start time and flag byte set.
     * @param syncRequested true for every message of a variant that does not flag, and for each large order of one
     *                      that does.
     */
    abstract void write(Bytes<?> message, boolean syncRequested);

    /** Closes the appender and the queue. */
    abstract void closeQueue();

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String description() {
        return description;
    }

    @Override
    public final void init(final Path directory, final int length) {
        LargeOrders.checkRoom(name, length);
        openQueue(directory);
        message = Payloads.directMessage(length);
        message.writeByte(LargeOrders.FLAG_OFFSET, (byte) 0);
        committed = new SpscLongRing(1 << 16);
    }

    @Override
    public final void openReader() {
        // the reader polls the in-memory ring: nothing to open
    }

    @Override
    public final void send(final long startTimeNs) {
        final Bytes<?> message = this.message;
        message.writeLong(0, startTimeNs);
        write(message, !flagging || largeOrders.markNext(message));
        committed.put(startTimeNs);
    }

    @Override
    public final long receive() {
        // EMPTY is NOTHING
        return committed.poll();
    }

    @Override
    public final void closeReader() {
        // nothing to release
    }

    @Override
    public final void close() {
        closeQueue();
        message.releaseLast();
    }
}
