package dev.spool.ringbuffer;

import dev.spool.queue.GroupCommit;
import dev.spool.queue.Messages;
import dev.spool.queue.Pretoucher;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The drainer as an Agrona agent: invoked from the caller's duty cycle, on its own runner with the idle strategy the
 * machine's cores call for, with the queue's pretoucher and group commit on one thread, allocating nothing per batch.
 */
class DrainerAgentTest extends SpoolTestBase {
    /** One-offs the JIT may cause inside a window (a deoptimization re-creating an eliminated object). */
    private static final long ONE_OFF_BYTES = 16 * 1024;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private SpoolQueue openQueue() {
        return SpoolQueue.builder(tempDir.resolve("q")).chunkLength(64L << 20).openOrCreate();
    }

    private AsyncQueueBuilder builder(final SpoolQueue queue) {
        return AsyncQueue.builder(queue).ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 20);
    }

    private static byte[] message(final int sequence) {
        final byte[] message = new byte[Messages.lengthOf(1, sequence, 100)];
        Messages.encode(message, message.length, 1, sequence);
        return message;
    }

    private static void appendAll(final AsyncAppender appender, final int count) {
        for (int i = 0; i < count; i++) {
            assertTrue(appender.append(message(i)) >= 0);
        }
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

    @ParameterizedTest(name = "{0} CPUs, {1} hot threads: {2}")
    @CsvSource({
            "1, 2, " + LowDutyIdleStrategy.ALIAS,
            "2, 2, " + LowDutyIdleStrategy.ALIAS,
            "2, 1, backoff",
            "3, 2, backoff",
            "8, 2, backoff",
            "8, 8, " + LowDutyIdleStrategy.ALIAS})
    void shouldChooseTheDrainersIdleStrategyForTheMachinesCores(final int cpus, final int hotThreads,
                                                               final String alias) {
        try (SpoolQueue queue = openQueue()) {
            final AsyncQueueBuilder builder = builder(queue).availableProcessors(cpus).hotThreads(hotThreads);
            assertEquals(alias, builder.conclude(queue).drainerIdleStrategy().alias());
            assertEquals(cpus > hotThreads, builder.conclude(queue).drainerThreading().hasSpareCore());
            assertEquals(BusySpinIdleStrategy.ALIAS,
                    builder.drainerIdleStrategy(BusySpinIdleStrategy::new).conclude(queue).drainerIdleStrategy().alias(),
                    "the application's choice wins");
        }
    }

    @Test
    void shouldWarnOnceWhenTheThreadsThatSpinOutnumberTheCpus() {
        final String spinning = "3 threads spin (hotThreads=2 and the drainer's spin idle strategy) on 2 CPUs";
        expectWarning(spinning);
        try (SpoolQueue queue = openQueue()) {
            try (AsyncQueue async = builder(queue).availableProcessors(2).drainerIdleStrategy(BusySpinIdleStrategy::new)
                    .build()) {
                assertEquals(0, countLogged("threads spin"), "two hot threads on two CPUs: nothing to say yet");
                async.startDrainer();
                assertEquals(1, countLogged(spinning));
            }
            try (AsyncQueue async = builder(queue).availableProcessors(2).build()) {
                async.startDrainer();
                assertEquals(1, countLogged("threads spin"), "the default drainer parks: no second WARN");
            }
            expectWarning("3 threads spin (hotThreads=3) on 2 CPUs");
            try (AsyncQueue async = builder(queue).availableProcessors(2).hotThreads(3).build()) {
                assertEquals(1, countLogged("3 threads spin (hotThreads=3) on 2 CPUs"), "warned when built");
                async.startDrainer();
                assertEquals(1, countLogged("3 threads spin (hotThreads=3) on 2 CPUs"), "once per async queue");
            }
        }
    }

    @Test
    void shouldDefaultToTheHotThreadsOfOneAppenderAndOneReader() {
        try (SpoolQueue queue = openQueue()) {
            assertEquals(LowDutyIdleStrategy.ALIAS, builder(queue).availableProcessors(2).conclude(queue)
                    .drainerIdleStrategy().alias());
            final AsyncQueueBuilder negative = builder(queue).hotThreads(-1);
            final SpoolException e = assertThrows(SpoolException.class, negative::build, "refused when built");
            assertTrue(e.getMessage().contains("hotThreads=-1"), e.getMessage());
        }
    }

    @Test
    void shouldNotParkTheLowDutyDrainerAfterAFullBatch() {
        final IdleStrategy idle = new LowDutyIdleStrategy(4, TimeUnit.SECONDS.toNanos(30));
        final long before = System.nanoTime();
        idle.idle(4);
        idle.idle(5);
        assertTrue(System.nanoTime() - before < TimeUnit.SECONDS.toNanos(10), "a full batch means a backlog: no park");
        final SpoolException e = assertThrows(SpoolException.class, () -> new LowDutyIdleStrategy(4, 0));
        assertTrue(e.getMessage().contains("periodNs=0"), e.getMessage());
    }

    @Test
    void shouldDrainOneBatchPerInvocation() throws Exception {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).drainBatch(64).build();
             AsyncAppender appender = async.createAppender()) {
            final Drainer drainer = async.createDrainer();
            assertEquals(Drainer.THREAD_NAME, drainer.roleName());
            final AgentInvoker invoker = new AgentInvoker(Throwable::printStackTrace, null, drainer);
            invoker.start();
            assertEquals(0, invoker.invoke(), "an empty ring");
            appendAll(appender, 100);
            assertEquals(64, invoker.invoke(), "one batch");
            assertEquals(36, invoker.invoke());
            assertEquals(99, queue.lastIndex() - queue.firstIndex());
            invoker.close();
            assertTrue(drainer.isClosed(), "the invoker's close closed it and freed the drainer lock");
            assertNotNull(async.createDrainer(), "a new drainer takes the lock");
        }
    }

    @Test
    void shouldDrainOnItsOwnLowDutyThreadWithoutASpareCore() {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).availableProcessors(2).build();
             AsyncAppender appender = async.createAppender()) {
            final Drainer drainer = async.startDrainer();
            assertTrue(drainer.isRunning());
            appendAll(appender, 1000);
            awaitCondition(() -> async.ring().isEmpty(), "the drainer emptied the ring");
            assertEquals(999, queue.lastIndex() - queue.firstIndex());
            drainer.close();
            assertFalse(drainer.isRunning());
            for (final Thread thread : Thread.getAllStackTraces().keySet()) {
                assertFalse(thread.getName().equals(Drainer.THREAD_NAME) && thread.isAlive(), "its thread stopped");
            }
        }
    }

    @Test
    void shouldDrainOnAPinnedDedicatedThreadWithASpareCore() {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).availableProcessors(8).pinDrainer(true).build();
             AsyncAppender appender = async.createAppender()) {
            async.startDrainer();
            appendAll(appender, 1000);
            awaitCondition(() -> async.ring().isEmpty(), "the pinned drainer emptied the ring");
            assertEquals(999, queue.lastIndex() - queue.firstIndex());
        }
    }

    @Test
    void shouldRunPretoucherGroupCommitAndDrainerOnOneThread() throws InterruptedException {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).build();
             AsyncAppender appender = async.createAppender()) {
            final Pretoucher pretoucher = queue.createPretoucher();
            final GroupCommit groupCommit = queue.createGroupCommit();
            final Drainer drainer = async.createDrainer();
            final AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(), Throwable::printStackTrace, null,
                    new CompositeAgent(pretoucher, groupCommit, drainer));
            final Thread thread = AgentRunner.startOnThread(runner);
            try {
                appendAll(appender, 1000);
                awaitCondition(() -> queue.lastIndex() - queue.firstIndex() == 999, "drained by the composite");
                assertTrue(groupCommit.awaitDurable(queue.lastIndex(), 30, TimeUnit.SECONDS), "synced by the composite");
                assertEquals("[" + Pretoucher.THREAD_NAME + ",spool-group-commit," + Drainer.THREAD_NAME + "]",
                        thread.getName());
                for (final Thread other : Thread.getAllStackTraces().keySet()) {
                    assertNotEquals(Drainer.THREAD_NAME, other.getName(), "no drainer thread of its own");
                }
            } finally {
                runner.close();
            }
            assertTrue(drainer.isClosed(), "the runner's close closed the drainer");
            assertThrows(SpoolException.class, pretoucher::doWork, "and the pretoucher");
        }
    }

    @Test
    void shouldAllocateNothingPerBatchInSteadyState() {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).build();
             AsyncAppender appender = async.createAppender()) {
            final Drainer drainer = async.createDrainer();
            final byte[] message = new byte[40];
            drainInBatches(appender, drainer, message, 50_000);
            final long before = THREADS.getCurrentThreadAllocatedBytes();
            drainInBatches(appender, drainer, message, 50_000);
            final long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            System.out.printf("bytes allocated over 50,000 records drained in batches of 10: %d%n", bytes);
            assertTrue(bytes <= ONE_OFF_BYTES, "appender and drainer allocated " + bytes + " bytes");
        }
    }

    /** Appends ten records and drains them, {@code count / 10} times. */
    private static void drainInBatches(final AsyncAppender appender, final Drainer drainer, final byte[] message,
                                       final int count) {
        for (int i = 0; i < count; i += 10) {
            for (int j = 0; j < 10; j++) {
                message[0] = (byte) j;
                if (appender.append(message) < 0) {
                    fail("ring full");
                }
            }
            if (drainer.doWork() != 10) {
                fail("one batch of 10 expected");
            }
        }
    }
}
