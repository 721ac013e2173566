package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;
import org.agrona.concurrent.IdleStrategy;

import java.time.Duration;
import java.util.Locale;
import java.util.function.Supplier;

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
    private final Supplier<IdleStrategy> pause;

    private BackPressure(final Kind kind, final long timeoutNs, final Supplier<IdleStrategy> pause) {
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
     * @param pause   makes the idle strategy each appender waits with, e.g.
     *                {@code () -> new BackoffIdleStrategy(100, 100, 1_000, 1_000_000)}.
     * @return the policy that waits for the drainer to make room.
     */
    public static BackPressure await(final Duration timeout, final Supplier<IdleStrategy> pause) {
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
     * @param pause   makes the idle strategy each appender waits with, e.g.
     *                {@code () -> new BackoffIdleStrategy(100, 100, 1_000, 1_000_000)}.
     * @return the policy that waits for the drainer to make room, then throws.
     */
    public static BackPressure awaitThenThrow(final Duration timeout, final Supplier<IdleStrategy> pause) {
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

    /** @return a new idle strategy for one appender, or null if this policy does not wait. */
    IdleStrategy newIdleStrategy() {
        return pause == null ? null : pause.get();
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(Locale.ROOT) + (pause == null ? "" : "(" + Duration.ofNanos(timeoutNs) + ")");
    }
}
