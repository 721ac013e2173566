package dev.spool.ringbuffer;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ManualClock;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ring's clocks are the queue's: the cycle of a ring-appended record comes from the queue's wall clock, as a
 * direct append's does, and the claim timeout runs on the queue's monotonic clock.
 */
class RingClockTest extends SpoolTestBase {
    /** 2020-01-01T12:00:00Z: far from any day the test runs on, so the system clock would pick another cycle. */
    private static final long NOON_2020 = 1_577_880_000_000L;
    private static final byte[] MESSAGE = {1, 2, 3, 4, 5, 6, 7, 8};

    private SpoolQueueBuilder queue(final String name, final ManualClock clock) {
        return SpoolQueue.builder(tempDir.resolve(name)).rollCycle(RollCycle.DAILY).chunkLength(1 << 20)
                .epochClock(clock);
    }

    @Test
    void shouldPutARingAppendedRecordInTheCycleADirectAppendWouldTake() throws Exception {
        final ManualClock clock = new ManualClock(NOON_2020);
        final long[] direct = new long[2];
        try (SpoolQueue queue = queue("direct", clock).openOrCreate(); ExcerptAppender appender = queue.createAppender()) {
            direct[0] = appender.append(MESSAGE);
            clock.advance(TimeUnit.DAYS.toMillis(1));
            direct[1] = appender.append(MESSAGE);
        }
        final ManualClock ringClock = new ManualClock(NOON_2020);
        try (AsyncQueue async = AsyncQueue.builder(queue("ringed", ringClock)).ringPath(tempDir.resolve("q.ring"))
                .ringCapacity(1 << 16).build();
             AsyncAppender appender = async.createAppender()) {
            final Drainer drainer = async.createDrainer();
            final long first = appender.append(MESSAGE);
            drainer.doWork();
            ringClock.advance(TimeUnit.DAYS.toMillis(1));
            final long second = appender.append(MESSAGE);
            drainer.doWork();
            assertEquals(direct[0], appender.awaitIndex(first, 10, TimeUnit.SECONDS), "the first day's cycle");
            assertEquals(direct[1], appender.awaitIndex(second, 10, TimeUnit.SECONDS), "the next day's cycle");
            assertEquals(RollCycle.DAILY.toCycle(direct[1]), RollCycle.DAILY.toCycle(async.queue().lastIndex()));
        }
    }

    @Test
    void shouldRevokeAnUncommittedClaimWhenTheQueuesNanoClockPassesTheClaimTimeout() throws Exception {
        final AtomicLong nanos = new AtomicLong(1_000_000_000L);
        try (AsyncQueue async = AsyncQueue.builder(queue("revoked", new ManualClock(NOON_2020)).nanoClock(nanos::get))
                .ringPath(tempDir.resolve("revoked.ring")).ringCapacity(1 << 16).claimTimeout(Duration.ofSeconds(5))
                .build();
             AsyncAppender appender = async.createAppender()) {
            final Drainer drainer = async.createDrainer();
            appender.claim(MESSAGE.length);
            final long committed = appender.append(MESSAGE);
            assertEquals(0, drainer.doWork(), "the claim stops the drainer: the clock has not moved");
            nanos.addAndGet(TimeUnit.SECONDS.toNanos(4));
            assertEquals(0, drainer.doWork(), "4 s by the queue's clock: younger than the claim timeout");
            assertEquals(0, async.stats().revokedClaims());
            nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
            assertEquals(1, drainer.doWork(), "5 s: revoked, and the record behind it drained");
            assertEquals(1, async.stats().revokedClaims());
            assertTrue(appender.awaitIndex(committed, 0, TimeUnit.SECONDS) >= 0);
        }
    }
}
