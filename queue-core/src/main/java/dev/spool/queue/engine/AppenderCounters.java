package dev.spool.queue.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What one appender did, for the queue's metrics: written only by the appender's thread, each field with an opaque
 * store (a plain {@code mov} on x86, no fence, no allocation), and read by any thread with an opaque load, so a
 * reader sees each value whole, if a moment late.
 */
final class AppenderCounters {
    private static final VarHandle APPENDS;
    private static final VarHandle APPENDED_BYTES;
    private static final VarHandle SYNCS;
    private static final VarHandle SYNC_NANOS;
    private static final VarHandle MAX_SYNC_NANOS;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            APPENDS = lookup.findVarHandle(AppenderCounters.class, "appends", long.class);
            APPENDED_BYTES = lookup.findVarHandle(AppenderCounters.class, "appendedBytes", long.class);
            SYNCS = lookup.findVarHandle(AppenderCounters.class, "syncs", long.class);
            SYNC_NANOS = lookup.findVarHandle(AppenderCounters.class, "syncNanos", long.class);
            MAX_SYNC_NANOS = lookup.findVarHandle(AppenderCounters.class, "maxSyncNanos", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private long appends;
    private long appendedBytes;
    private long syncs;
    private long syncNanos;
    private long maxSyncNanos;

    /** The owner thread appended an excerpt of {@code length} bytes. */
    void appended(final int length) {
        APPENDS.setOpaque(this, appends + 1);
        APPENDED_BYTES.setOpaque(this, appendedBytes + length);
    }

    /** The owner thread's msync (MS_SYNC) took {@code nanos}. */
    void synced(final long nanos) {
        SYNCS.setOpaque(this, syncs + 1);
        SYNC_NANOS.setOpaque(this, syncNanos + nanos);
        if (nanos > maxSyncNanos) {
            MAX_SYNC_NANOS.setOpaque(this, nanos);
        }
    }

    long appends() {
        return (long) APPENDS.getOpaque(this);
    }

    long appendedBytes() {
        return (long) APPENDED_BYTES.getOpaque(this);
    }

    long syncs() {
        return (long) SYNCS.getOpaque(this);
    }

    long syncNanos() {
        return (long) SYNC_NANOS.getOpaque(this);
    }

    long maxSyncNanos() {
        return (long) MAX_SYNC_NANOS.getOpaque(this);
    }
}
