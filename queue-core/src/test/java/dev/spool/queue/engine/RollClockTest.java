package dev.spool.queue.engine;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.internal.CycleCalendar;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.*;

class RollClockTest extends SpoolTestBase {

    @Test
    void shouldCacheTheCycleBetweenGuardWindowsAndReadTheClockInsideThem() {
        final RollClock clock = new RollClock(CycleCalendar.of(RollCycle.HOURLY, 0));
        final long hour = RollCycle.HOURLY.lengthMillis();
        final long start = 490_000 * hour;

        assertEquals(start + 50, clock.update(start + 10), "inside the guard after the boundary: next update at its end");
        assertEquals(Long.MIN_VALUE, clock.cachedCycle());

        assertEquals(start + hour - 50, clock.update(start + 50), "past the guard: cached until the next guard");
        assertEquals(490_000, clock.cachedCycle());

        assertEquals(start + hour + 50, clock.update(start + hour - 50), "guard before the boundary");
        assertEquals(Long.MIN_VALUE, clock.cachedCycle());
    }

    @Test
    void shouldWakeFiftyMillisecondsBeforeAZonedRollThatDaylightSavingMoved() {
        final RollClock clock = new RollClock(CycleCalendar.zoned(LocalTime.of(17, 0), ZoneId.of("America/New_York")));
        // Sunday 2026-03-08 noon EDT: the cycle started Saturday 17:00 EST (22:00Z) and ends 17:00 EDT (21:00Z)
        final long sundayNoon = Instant.parse("2026-03-08T16:00:00Z").toEpochMilli();
        final long sundayRoll = Instant.parse("2026-03-08T21:00:00Z").toEpochMilli();
        assertEquals(sundayRoll - 50, clock.update(sundayNoon));
        assertEquals(LocalDate.of(2026, 3, 7).toEpochDay(), clock.cachedCycle(), "the cycle that started Saturday 17:00");
        assertEquals(sundayRoll + 50, clock.update(sundayRoll - 50));
        assertEquals(Long.MIN_VALUE, clock.cachedCycle());
    }

    @Test
    void shouldGuardFiftyMillisecondsAroundSecondlyBoundaries() {
        final RollClock clock = new RollClock(CycleCalendar.of(RollCycle.SECONDLY, 0));
        assertEquals(999_950, clock.update(999_500));
        assertEquals(999, clock.cachedCycle());
        assertEquals(1_000_050, clock.update(999_950));
        assertEquals(Long.MIN_VALUE, clock.cachedCycle());
        assertEquals(1_000_950, clock.update(1_000_060));
        assertEquals(1_000, clock.cachedCycle());
    }

    @Test
    void shouldAgreeWithTheWallClockWhileRunning() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.SECONDLY).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final long end = System.currentTimeMillis() + 1_500;
            while (System.currentTimeMillis() < end) {
                final long before = RollCycle.SECONDLY.cycle(System.currentTimeMillis(), 0);
                final long index = appender.append(new byte[8]);
                final long after = RollCycle.SECONDLY.cycle(System.currentTimeMillis(), 0);
                final long cycle = RollCycle.SECONDLY.toCycle(index);
                assertTrue(cycle >= before && cycle <= after, "cycle " + cycle + " outside [" + before + ", " + after + "]");
            }
        }
    }

    @Test
    void shouldParkTheTickerAgentUntilTheNextUpdateAndStopItWithTheLastClock() {
        final RollClock clock = RollClock.acquire(CycleCalendar.of(RollCycle.DAILY, 0));
        final Thread ticker = tickerThread();
        try {
            awaitCondition(() -> ticker.getState() == Thread.State.TIMED_WAITING, "the ticker parks");
            final long now = System.currentTimeMillis();
            final long cached = clock.cachedCycle();
            assertTrue(cached == RollCycle.DAILY.cycle(now, 0) || cached == Long.MIN_VALUE, "updated at once");
            final RollClock hourly = RollClock.acquire(CycleCalendar.of(RollCycle.HOURLY, 0));
            assertSame(ticker, tickerThread(), "one ticker per JVM");
            hourly.release();
        } finally {
            clock.release();
        }
        awaitCondition(() -> !ticker.isAlive(), "the ticker stops with the last clock");
    }

    private static Thread tickerThread() {
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(RollClock.THREAD_NAME) && thread.isAlive()) {
                return thread;
            }
        }
        throw new AssertionError("no thread " + RollClock.THREAD_NAME);
    }

    private static void awaitCondition(final BooleanSupplier condition, final String what) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within 30 s: " + what);
            }
            Thread.yield();
        }
    }
}
