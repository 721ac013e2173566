package dev.spool.queue.internal;

import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Logs a duty's errors without flooding, after Aeron's DistinctErrorLog: an error is distinct by its class, its
 * message and the frame that threw it. The first of a kind is logged with its stack trace; repeats of it are counted,
 * and logged as one line with the count at most once per interval, when the next repeat comes after the interval or
 * when the duty closes. A duty that fails the same way ten thousand times a second logs one line a second.
 * <p>
 * Error paths only: synchronized, so that the invoked passes of several threads (which never overlap) and the
 * closing thread may share it.
 */
final class DistinctErrorLog {
    /** The kinds of error remembered; beyond them, every new kind shares one entry and its interval. */
    static final int MAX_KINDS = 32;

    private final Logger log;
    private final String what;
    private final NanoClock clock;
    private final long intervalNs;
    private final List<Kind> kinds = new ArrayList<>();
    private final Kind others = new Kind(null, null, null);

    /**
     * @param log        where the lines go.
     * @param what       the duty, first on every line: {@code "group commit of /data/orders"}.
     * @param clock      measures the interval.
     * @param intervalNs the shortest time between two lines about one kind of error.
     */
    DistinctErrorLog(final Logger log, final String what, final NanoClock clock, final long intervalNs) {
        this.log = log;
        this.what = what;
        this.clock = clock;
        this.intervalNs = intervalNs;
    }

    /**
     * Logs {@code error} if it is the first of its kind, or the repeats of its kind so far if the interval passed
     * since their last line; else only counts it.
     *
     * @param error the error.
     */
    synchronized void log(final Throwable error) {
        final long now = clock.nanoTime();
        final StackTraceElement frame = frame(error);
        Kind kind = find(error, frame);
        if (kind == null) {
            if (kinds.size() < MAX_KINDS) {
                final Kind first = new Kind(error.getClass(), error.getMessage(), frame);
                first.loggedNs = now;
                kinds.add(first);
                log.error("{}: {}, going on", what, describe(error), error);
                return;
            }
            kind = others;
        }
        kind.repeats++;
        if (kind.loggedNs == Long.MIN_VALUE || now - kind.loggedNs >= intervalNs) {
            logRepeats(kind, error, now);
        }
    }

    /** Logs the repeats not logged yet, one line per kind: the duty closes. */
    synchronized void flush() {
        for (final Kind kind : kinds) {
            if (kind.repeats > 0) {
                logRepeats(kind, null, clock.nanoTime());
            }
        }
        if (others.repeats > 0) {
            logRepeats(others, null, clock.nanoTime());
        }
    }

    private void logRepeats(final Kind kind, final Throwable last, final long now) {
        final String description = last != null ? describe(last) : kind.description();
        log.error("{}: the same error {} more time{}: {}", what, kind.repeats, kind.repeats == 1 ? "" : "s",
                description);
        kind.repeats = 0;
        kind.loggedNs = now;
    }

    private Kind find(final Throwable error, final StackTraceElement frame) {
        for (int i = 0; i < kinds.size(); i++) {
            final Kind kind = kinds.get(i);
            if (kind.type == error.getClass() && Objects.equals(kind.message, error.getMessage())
                    && Objects.equals(kind.frame, frame)) {
                return kind;
            }
        }
        return null;
    }

    /**
     * @param error an error.
     * @return it in one line: its class, its message and the frame that threw it.
     */
    static String describe(final Throwable error) {
        final StackTraceElement frame = frame(error);
        return error.getClass().getName() + ": " + error.getMessage() + (frame == null ? "" : " at " + frame);
    }

    private static StackTraceElement frame(final Throwable error) {
        final StackTraceElement[] trace = error.getStackTrace();
        return trace.length == 0 ? null : trace[0];
    }

    /** One kind of error: what makes it distinct, and its repeats since its last line. */
    private static final class Kind {
        final Class<?> type;
        final String message;
        final StackTraceElement frame;
        long repeats;
        /** When its last line was logged, the first occurrence's included; never for the kinds beyond the first. */
        long loggedNs = Long.MIN_VALUE;

        Kind(final Class<?> type, final String message, final StackTraceElement frame) {
            this.type = type;
            this.message = message;
            this.frame = frame;
        }

        String description() {
            return type == null ? "errors of kinds beyond the first " + MAX_KINDS
                    : type.getName() + ": " + message + (frame == null ? "" : " at " + frame);
        }
    }
}
