package dev.spool.queue;

import dev.spool.queue.internal.QueueInternals;

import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** A queue reads time only from the clocks its builder was given: the cycle, the time-based sync, the internals. */
class InjectedClocksTest extends SpoolTestBase {
    /** Far from the system clock's now, so that a cycle or sync that followed the system clock would show. */
    private static final long START_MILLIS = 1_000_000_000_000L;
    private static final long HOUR = TimeUnit.HOURS.toMillis(1);

    private static byte[] payload(final String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldPickTheCycleAndSyncByTheInjectedClocksNotTheSystems() {
        final ManualClock epoch = new ManualClock(START_MILLIS);
        final AtomicLong nanos = new AtomicLong(42);
        final NanoClock nano = nanos::get;
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).rollCycle(RollCycle.HOURLY)
                .epochClock(epoch).nanoClock(nano).syncPolicy(SyncPolicy.every(1, TimeUnit.SECONDS)).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final long first = appender.append(payload("first"));
            assertEquals(RollCycle.HOURLY.cycle(START_MILLIS, 0), queue.rollCycle().toCycle(first),
                    "the cycle of the injected wall clock, not of the system's");

            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
            appender.append(payload("second"));
            assertEquals(-1, queue.lastSyncedIndex(), "999 ms on the injected nano clock: the policy has not fired");

            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
            final long synced = appender.append(payload("third"));
            assertEquals(synced, queue.lastSyncedIndex(), "1 s on the injected nano clock: the policy fired");

            epoch.advance(HOUR);
            final long rolled = appender.append(payload("fourth"));
            assertEquals(queue.rollCycle().toCycle(first) + 1, queue.rollCycle().toCycle(rolled),
                    "an hour on the injected wall clock rolls the cycle");
            assertEquals(synced, queue.lastSyncedIndex(), "the nano clock stood still: no sync since");

            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            assertSame(epoch, internals.epochClock(), "the sibling modules read the same wall clock");
            assertSame(nano, internals.nanoClock(), "and the same monotonic clock");
        }
    }
}
