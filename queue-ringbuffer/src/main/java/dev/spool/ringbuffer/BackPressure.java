package dev.spool.ringbuffer;

import dev.spool.queue.PauseStrategy;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueueBuilder;

import java.time.Duration;
import java.util.Locale;

/**
 * What an {@link AsyncAppender} does when the ring has no room for a record: the caller chooses. A record is
 * never dropped silently and never overwrites one the drainer has not taken yet; every time a claim finds the
 * ring full counts in {@link RingStats#backPressureEvents()}.
 */
public final class BackPressure {
    private static final BackPressure RETURN_CODE = new BackPressure(Kind.RETURN_CODE, 0, null);
    private static final BackPressure THROW = new BackPressure(Kind.THROW, 0, null);

    /** The behaviours. */
    enum Kind {
        RETURN_CODE, AWAIT, AWAIT_THEN_THROW, THROW
    }

    private final Kind kind;
    private final long timeoutNs;
    private final SpoolQueueBuilder.PauseStrategyFactory pause;

    private BackPressure(final Kind kind, final long timeoutNs, final SpoolQueueBuilder.PauseStrategyFactory pause) {
        this.kind = kind;
        this.timeoutNs = timeoutNs;
        this.pause = pause;
    }

    /** @return the policy that returns {@link RingBuffer#INSUFFICIENT_CAPACITY} at once; the caller decides. */
    public static BackPressure returnCode() {
        return RETURN_CODE;
    }

    /** @return the policy that throws {@link RingFullException} at once. */
    public static BackPressure throwException() {
        return THROW;
    }

    /**
     * @param timeout how long to wait for room at most, then return {@link RingBuffer#INSUFFICIENT_CAPACITY}.
     * @param pause   makes the strategy each appender waits with, e.g. {@link PauseStrategy#backoff()}.
     * @return the policy that waits for the drainer to make room.
     */
    public static BackPressure await(final Duration timeout, final SpoolQueueBuilder.PauseStrategyFactory pause) {
        if (timeout.isNegative()) {
            throw new SpoolException("timeout=" + timeout + " must not be negative");
        }
        return new BackPressure(Kind.AWAIT, timeout.toNanos(), pause);
    }

    /**
     * The default of {@link AsyncQueueBuilder#backPressure(BackPressure)}: never a silent drop, even for a caller
     * that ignores return values.
     *
     * @param timeout how long to wait for room at most, then throw {@link RingFullException}.
     * @param pause   makes the strategy each appender waits with, e.g. {@link PauseStrategy#backoff()}.
     * @return the policy that waits for the drainer to make room, then throws.
     */
    public static BackPressure awaitThenThrow(final Duration timeout, final SpoolQueueBuilder.PauseStrategyFactory pause) {
        if (timeout.isNegative()) {
            throw new SpoolException("timeout=" + timeout + " must not be negative");
        }
        return new BackPressure(Kind.AWAIT_THEN_THROW, timeout.toNanos(), pause);
    }

    Kind kind() {
        return kind;
    }

    long timeoutNs() {
        return timeoutNs;
    }

    /** @return a new pause strategy for one appender, or null if this policy does not wait. */
    PauseStrategy newPauseStrategy() {
        return pause == null ? null : pause.create();
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(Locale.ROOT) + (pause == null ? "" : "(" + Duration.ofNanos(timeoutNs) + ")");
    }
}
