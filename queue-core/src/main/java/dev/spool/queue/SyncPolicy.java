package dev.spool.queue;

import dev.spool.queue.internal.SyncTrigger;

import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.concurrent.NanoClock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * When an appender's data is flushed to disk with {@code msync}: per message, chosen by content if need be.
 * <pre>{@code
 * SyncPolicy policy = SyncPolicy.when((bytes, offset, length) -> bytes.readLong(offset) >= 1_000_000)  // a large order
 *         .or(SyncPolicy.whenCumulative((bytes, offset, length) -> bytes.readLong(offset), 10_000_000))  // or enough notional
 *         .or(SyncPolicy.every(100, TimeUnit.MILLISECONDS));                                            // or every 100 ms
 * }</pre>
 * A policy is immutable and may be shared; each appender evaluates it with its own counters. The first rule that
 * fires syncs everything appended so far in the cycle (by any writer), and every rule starts counting again.
 * The sync runs after the write lock is released, in the appending thread, so other writers are not held up.
 */
public final class SyncPolicy {
    /** No sync: the kernel writes pages back when it chooses (a SIGKILL loses nothing; power loss may). */
    public static final SyncPolicy NONE = new SyncPolicy(Collections.emptyList());

    private final List<Rule> rules;

    private SyncPolicy(final List<Rule> rules) {
        this.rules = rules;
    }

    /** @return no sync at all; the same as {@link #NONE}. */
    public static SyncPolicy none() {
        return NONE;
    }

    /** @return {@code msync(MS_ASYNC)} after every message: schedules write-back, waits for nothing. */
    public static SyncPolicy async() {
        return new SyncPolicy(List.of(new Rule(Rule.EVERY_N, 1, 0, null, null, SyncTrigger.DO_ASYNC)));
    }

    /** @return {@code msync(MS_SYNC)} after every message: durable on return, and slow (about 100 µs here). */
    public static SyncPolicy everyMessage() {
        return everyMessages(1);
    }

    /**
     * @param messages how many appends of this appender between two syncs.
     * @return {@code msync(MS_SYNC)} after every {@code messages} appends.
     */
    public static SyncPolicy everyMessages(final int messages) {
        if (messages < 1) {
            throw new SpoolException("messages=" + messages + " must be at least 1");
        }
        return new SyncPolicy(List.of(new Rule(Rule.EVERY_N, messages, 0, null, null, SyncTrigger.DO_SYNC)));
    }

    /**
     * Checked at each append: an append that comes {@code interval} or more after the last sync syncs.
     *
     * @param interval the longest time between syncs while appends keep coming.
     * @param unit     the unit of {@code interval}.
     * @return {@code msync(MS_SYNC)} at most every interval.
     */
    public static SyncPolicy every(final long interval, final TimeUnit unit) {
        final long nanos = unit.toNanos(interval);
        if (nanos <= 0) {
            throw new SpoolException("interval=" + interval + " " + unit + " must be positive");
        }
        return new SyncPolicy(List.of(new Rule(Rule.EVERY_NANOS, 0, nanos, null, null, SyncTrigger.DO_SYNC)));
    }

    /**
     * @param predicate tests each excerpt just written, e.g. for a large order.
     * @return {@code msync(MS_SYNC)} after every excerpt the predicate accepts.
     */
    public static SyncPolicy when(final ExcerptPredicate predicate) {
        return new SyncPolicy(List.of(new Rule(Rule.PREDICATE, 0, 0, predicate, null, SyncTrigger.DO_SYNC)));
    }

    /**
     * @param value     reads a value from each excerpt just written, e.g. its notional.
     * @param threshold the running sum since the last sync that triggers a sync.
     * @return {@code msync(MS_SYNC)} whenever the values appended since the last sync add up to the threshold.
     */
    public static SyncPolicy whenCumulative(final ExcerptValue value, final long threshold) {
        if (threshold <= 0) {
            throw new SpoolException("threshold=" + threshold + " must be positive");
        }
        return new SyncPolicy(List.of(new Rule(Rule.CUMULATIVE, 0, threshold, null, value, SyncTrigger.DO_SYNC)));
    }

    /**
     * @param other another policy.
     * @return a policy that syncs when either fires; a synchronous sync wins over an asynchronous one.
     */
    public SyncPolicy or(final SyncPolicy other) {
        final List<Rule> combined = new ArrayList<>(rules);
        combined.addAll(other.rules);
        return new SyncPolicy(List.copyOf(combined));
    }

    /** @return true if this policy ever calls msync, so it needs a real one. */
    public boolean needsMsync() {
        return !rules.isEmpty();
    }

    @Override
    public String toString() {
        return rules.isEmpty() ? "SyncPolicy[none]" : "SyncPolicy" + rules;
    }

    /**
     * @param clock the appender's monotonic clock, which the time-based rules read.
     * @return this appender's evaluation of the policy, or null if it never syncs.
     */
    SyncTrigger newTrigger(final NanoClock clock) {
        return rules.isEmpty() ? null : new Trigger(rules.toArray(new Rule[0]), clock);
    }

    /** One condition of a policy; immutable. */
    private static final class Rule {
        static final int EVERY_N = 1;
        static final int EVERY_NANOS = 2;
        static final int PREDICATE = 3;
        static final int CUMULATIVE = 4;

        final int kind;
        final int count;
        final long amount;
        final ExcerptPredicate predicate;
        final ExcerptValue value;
        final int action;

        Rule(final int kind, final int count, final long amount, final ExcerptPredicate predicate, final ExcerptValue value,
             final int action) {
            this.kind = kind;
            this.count = count;
            this.amount = amount;
            this.predicate = predicate;
            this.value = value;
            this.action = action;
        }

        @Override
        public String toString() {
            switch (kind) {
                case EVERY_N:
                    return (action == SyncTrigger.DO_ASYNC ? "async every " : "sync every ") + count + " messages";
                case EVERY_NANOS:
                    return "sync every " + amount + " ns";
                case PREDICATE:
                    return "sync when " + predicate;
                default:
                    return "sync when the sum of " + value + " reaches " + amount;
            }
        }
    }

    /** One appender's counters for its policy; thread-confined, allocation-free. */
    static final class Trigger implements SyncTrigger {
        private final Rule[] rules;
        private final long[] counters;
        private final NanoClock clock;
        private long lastSyncNanos;

        Trigger(final Rule[] rules, final NanoClock clock) {
            this.rules = rules;
            this.counters = new long[rules.length];
            this.clock = clock;
            this.lastSyncNanos = clock.nanoTime();
        }

        /** @return {@link SyncTrigger#DO_NOTHING}, {@link SyncTrigger#DO_ASYNC} or {@link SyncTrigger#DO_SYNC} after the excerpt just written. */
        @Override
        public int onAppend(final BytesStore<?, ?> bytes, final long offset, final int length) {
            int action = SyncTrigger.DO_NOTHING;
            for (int i = 0; i < rules.length; i++) {
                final Rule rule = rules[i];
                final boolean fires;
                switch (rule.kind) {
                    case Rule.EVERY_N:
                        fires = ++counters[i] >= rule.count;
                        break;
                    case Rule.EVERY_NANOS:
                        fires = clock.nanoTime() - lastSyncNanos >= rule.amount;
                        break;
                    case Rule.PREDICATE:
                        fires = rule.predicate.test(bytes, offset, length);
                        break;
                    default:
                        counters[i] += rule.value.valueOf(bytes, offset, length);
                        fires = counters[i] >= rule.amount;
                        break;
                }
                if (fires) {
                    action = Math.max(action, rule.action);
                }
            }
            return action;
        }

        /**
         * A flush ran: after a synchronous one every rule counts again from here, after an asynchronous one only the
         * asynchronous rules do (nothing became durable).
         */
        @Override
        public void flushed(final int action) {
            for (int i = 0; i < rules.length; i++) {
                if (action == SyncTrigger.DO_SYNC || rules[i].action == SyncTrigger.DO_ASYNC) {
                    counters[i] = 0;
                }
            }
            if (action == SyncTrigger.DO_SYNC) {
                lastSyncNanos = clock.nanoTime();
            }
        }
    }
}
