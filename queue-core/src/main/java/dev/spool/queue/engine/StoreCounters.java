package dev.spool.queue.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The counters of one open queue instance: the rare events (write-lock takeovers, torn-tail and torn-hint
 * recoveries), counted by whichever thread meets them, and the totals of the appenders closed so far. The open
 * appenders keep their own {@link AppenderCounters}; {@link QueueMetrics} adds the two.
 */
final class StoreCounters {
    final AtomicLong writeLockTakeovers = new AtomicLong();
    final AtomicLong tornTailRecoveries = new AtomicLong();
    final AtomicLong tornHintRepairs = new AtomicLong();
    /** Totals of closed appenders; guarded by the store's users monitor. */
    long closedAppends;
    long closedAppendedBytes;
    long closedSyncs;
    long closedSyncNanos;
    long maxSyncNanos;

    /** Adds a closing appender's counters to the totals; the caller holds the store's users monitor. */
    void fold(final AppenderCounters counters) {
        closedAppends += counters.appends();
        closedAppendedBytes += counters.appendedBytes();
        closedSyncs += counters.syncs();
        closedSyncNanos += counters.syncNanos();
        maxSyncNanos = Math.max(maxSyncNanos, counters.maxSyncNanos());
    }
}
