package dev.spool.importer;

import org.agrona.concurrent.EpochClock;

/**
 * The epoch clock of the Spool queue an import writes: it tells the queue's sparse index the time of the document
 * being written ({@link CycleMapping#indexTime}), set just before each write by the one thread that writes.
 */
final class StampClock implements EpochClock {
    private volatile long timeMillis;

    StampClock(final long timeMillis) {
        this.timeMillis = timeMillis;
    }

    void set(final long timeMillis) {
        this.timeMillis = timeMillis;
    }

    @Override
    public long time() {
        return timeMillis;
    }
}
