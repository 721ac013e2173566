package dev.spool.queue.engine;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.GroupCommit;
import dev.spool.queue.ManualClock;
import dev.spool.queue.Pretoucher;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.SpoolTestBase;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The background duties of a queue as Agrona agents: retention moved off the rolling appender, the pretoucher,
 * group commit and retention run together on one thread or from the caller's duty cycle, and their steady-state
 * duty cycles allocate nothing.
 */
class BackgroundAgentsTest extends SpoolTestBase {
    /** A whole second: cycle boundaries of SECONDLY fall on START + n * 1000. */
    private static final long START = 1_700_000_000_000L;
    private static final long FIRST = RollCycle.SECONDLY.cycle(START, 0);
    /** One-offs the JIT may cause inside a window (a deoptimization re-creating an eliminated object). */
    private static final long ONE_OFF_BYTES = 16 * 1024;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final ManualClock clock = new ManualClock(START);

    private SpoolQueueBuilder builder() {
        return SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.SECONDLY).chunkLength(64L << 20)
                .epochClock(clock).pretouchLength(1 << 20).pretouchLeadTime(Duration.ofMillis(200));
    }

    /** Appends one message in each of {@code cycles} cycles, moving the clock on after each. */
    private void appendInCycles(final ExcerptAppender appender, final int cycles) {
        for (int i = 0; i < cycles; i++) {
            appender.append(new byte[]{(byte) i});
            clock.advance(1_000);
        }
    }

    private static long[] cycles(final long... offsets) {
        final long[] cycles = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
            cycles[i] = FIRST + offsets[i];
        }
        return cycles;
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

    @Test
    void shouldLeaveRetentionAfterARollToTheRetentionAgentAndHandItBackWhenClosed() {
        try (SpoolQueue queue = builder().retainCycles(2).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final Agent retention = queue.createRetention();
            assertThrows(SpoolException.class, queue::createRetention, "one retention agent per instance");
            assertEquals("spool-retention", retention.roleName());
            appendInCycles(appender, 4);
            assertArrayEquals(cycles(0, 1, 2, 3), queue.cycles(), "the rolls only flagged the agent");
            assertEquals(2, queue.applyRetention(), "applyRetention still deletes synchronously");
            appendInCycles(appender, 1);
            assertArrayEquals(cycles(2, 3, 4), queue.cycles());
            final AgentInvoker invoker = new AgentInvoker(Throwable::printStackTrace, null, retention);
            invoker.start();
            assertEquals(1, invoker.invoke(), "the roll to cycle 4 flagged it: cycle 2 goes");
            assertArrayEquals(cycles(3, 4), queue.cycles());
            assertEquals(0, invoker.invoke(), "nothing until the next roll");
            invoker.close();
            appendInCycles(appender, 1);
            assertArrayEquals(cycles(4, 5), queue.cycles(), "closed: the rolling appender deletes again");
            assertNotNull(queue.createRetention(), "a new one may be created once the old one is closed");
        }
    }

    @Test
    void shouldRunPretoucherGroupCommitAndRetentionOnOneThreadInACompositeAgent() throws InterruptedException {
        try (SpoolQueue queue = builder().retainCycles(2).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final Pretoucher pretoucher = queue.createPretoucher();
            final GroupCommit groupCommit = queue.createGroupCommit();
            final Agent retention = queue.createRetention();
            final CompositeAgent duties = new CompositeAgent(pretoucher, groupCommit, retention);
            final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), Throwable::printStackTrace, null,
                    duties);
            final Thread thread = AgentRunner.startOnThread(runner);
            try {
                for (int i = 0; i < 20; i++) {
                    final long index = appender.append(new byte[]{(byte) i});
                    assertTrue(groupCommit.awaitDurable(index, 30, TimeUnit.SECONDS), "synced by the composite");
                }
                assertTrue(groupCommit.syncCount() > 0);
                // 0.9 s into the first cycle: within the lead time, the pretoucher creates the next cycle's file
                clock.advance(900);
                awaitCondition(() -> queue.cycles().length == 2, "the pretoucher created the next cycle's file");
                clock.advance(100);
                for (int cycle = 1; cycle <= 3; cycle++) {
                    // the syncer's appender follows the rolls as it syncs: a file it holds would stay
                    final long index = appender.append(new byte[]{(byte) cycle});
                    assertTrue(groupCommit.awaitDurable(index, 30, TimeUnit.SECONDS));
                    clock.advance(1_000);
                }
                awaitCondition(() -> queue.cycles()[0] >= FIRST + 2, "retention deleted the old cycles after the rolls");
                assertEquals("[" + Pretoucher.THREAD_NAME + ",spool-group-commit,spool-retention]", thread.getName());
                for (final Thread other : Thread.getAllStackTraces().keySet()) {
                    assertNotEquals(Pretoucher.THREAD_NAME, other.getName(), "no thread of its own");
                    assertNotEquals("spool-group-commit", other.getName(), "no thread of its own");
                }
            } finally {
                runner.close();
            }
            assertFalse(thread.isAlive());
            assertThrows(SpoolException.class, pretoucher::doWork, "the runner's close closed it");
            assertNotNull(queue.createRetention(), "the runner's close handed retention back");
        }
    }

    @Test
    void shouldRunEachDutyFromTheCallersDutyCycle() {
        try (SpoolQueue queue = builder().openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final Pretoucher pretoucher = queue.createPretoucher();
            final GroupCommit groupCommit = queue.createGroupCommit();
            final AgentInvoker invoker = new AgentInvoker(Throwable::printStackTrace, null,
                    new CompositeAgent(pretoucher, groupCommit));
            invoker.start();
            appender.append(new byte[]{1});
            assertTrue(invoker.invoke() > 0, "the pretoucher touched the pages ahead of the writer");
            assertEquals(0, invoker.invoke(), "nothing new to touch, nobody waiting for a sync");
            invoker.close();
            assertTrue(invoker.isClosed());
            assertThrows(SpoolException.class, pretoucher::doWork, "the invoker's close closed it");
        }
    }

    @Test
    void shouldAllocateNothingPerDutyCycleInSteadyState() throws InterruptedException {
        try (SpoolQueue queue = builder().retainCycles(2).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             GroupCommit groupCommit = queue.startGroupCommit()) {
            final Pretoucher pretoucher = queue.createPretoucher();
            final Agent retention = queue.createRetention();
            final byte[] message = new byte[64];
            dutyCycles(appender, pretoucher, groupCommit, retention, message, 5_000);
            final long syncerThread = threadId("spool-group-commit");
            final long syncerBefore = THREADS.getThreadAllocatedBytes(syncerThread);
            final long before = THREADS.getCurrentThreadAllocatedBytes();
            dutyCycles(appender, pretoucher, groupCommit, retention, message, 5_000);
            final long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            final long syncerBytes = THREADS.getThreadAllocatedBytes(syncerThread) - syncerBefore;
            System.out.printf("bytes allocated over 5,000 duty cycles: pretoucher + retention + appender %d,"
                    + " group commit's thread %d%n", bytes, syncerBytes);
            assertTrue(bytes <= ONE_OFF_BYTES, "pretoucher, retention and appender allocated " + bytes + " bytes");
            assertTrue(syncerBytes <= ONE_OFF_BYTES, "group commit's thread allocated " + syncerBytes + " bytes");
            pretoucher.close();
            retention.onClose();
        }
    }

    /** Appends, runs the pretoucher and retention, and waits for the group commit's thread to sync, per message. */
    private static void dutyCycles(final ExcerptAppender appender, final Pretoucher pretoucher,
                                   final GroupCommit groupCommit, final Agent retention, final byte[] message,
                                   final int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            message[0] = (byte) i;
            final long index = appender.append(message);
            pretoucher.doWork();
            try {
                retention.doWork();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            if (!groupCommit.awaitDurable(index, 30, TimeUnit.SECONDS)) {
                fail("index " + index + " was not synced within 30 s");
            }
        }
    }

    private static long threadId(final String name) {
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(name)) {
                return thread.getId();
            }
        }
        throw new AssertionError("no thread " + name);
    }
}
