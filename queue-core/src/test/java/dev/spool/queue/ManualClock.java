package dev.spool.queue;

import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.EpochClock;

/** A clock tests move by hand to roll cycles exactly when they want. */
public final class ManualClock implements EpochClock {
    private final AtomicLong millis;

    public ManualClock(final long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    @Override
    public long time() {
        return millis.get();
    }

    public void advance(final long deltaMillis) {
        millis.addAndGet(deltaMillis);
    }
}
