package dev.spool.ringbuffer;

import dev.spool.queue.TimeProvider;

/**
 * The clock of a queue that an async queue opened: the drainer sets it, before each append, to the record's claim
 * time clamped to never go back ({@link CycleRule}), so the queue puts each record in the cycle of its claim time
 * and a ring reader can tell a record's index before it is drained. Read and set on the drainer's thread only.
 */
final class DrainClock implements TimeProvider {
    private long millis = System.currentTimeMillis();

    @Override
    public long currentTimeMillis() {
        return millis;
    }

    void set(final long millis) {
        this.millis = millis;
    }
}
