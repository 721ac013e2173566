package dev.spool.queue.internal;

import dev.spool.queue.GroupCommit;
import dev.spool.queue.Pretoucher;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The one error policy of the agent host, on its own thread and invoked. */
class AgentHostTest extends SpoolTestBase {
    private static final int REPEATS = 10_000;

    @Test
    void shouldCountEveryRepeatInJmxAndLogTheSameErrorABoundedNumberOfTimes() throws Exception {
        expectWarning("duty of the test");
        final AtomicLong nanos = new AtomicLong();
        final Failing duty = new Failing(REPEATS, () -> new IllegalStateException("disk on fire"));
        final String owner = tempDir.toString();
        final ObjectName name = new ObjectName(MBeans.DOMAIN + ":type=Agent,name=" + ObjectName.quote(owner)
                + ",role=" + ObjectName.quote("failing"));
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try (AgentHost host = AgentHost.builder("duty of the test", duty).nanoClock(nanos::get)
                .mbeanBeside(owner).start(new NoOpIdleStrategy())) {
            awaitCondition(() -> !host.isRunning(), "the duty stops after its failures");
            assertEquals((long) REPEATS, server.getAttribute(name, "ErrorCount"));
            final String last = (String) server.getAttribute(name, "LastError");
            assertTrue(last.startsWith("java.lang.IllegalStateException: disk on fire at "), last);
            assertTrue(last.contains("(AgentHostTest.java:"), "names the throwing frame: " + last);
            assertEquals("failing", server.getAttribute(name, "Role"));
            assertEquals(false, server.getAttribute(name, "Running"));
            assertEquals(1, countLogged("disk on fire"), "the clock stood still: the first only, until closed");
        }
        assertFalse(server.isRegistered(name), "unregistered with its host");
        assertEquals(2, countLogged("disk on fire"), "the repeats in one line at close");
        assertEquals(1, countLogged("the same error " + (REPEATS - 1) + " more times"));
    }

    @Test
    void shouldLogTheRepeatsOfAnErrorAtMostOnceAnInterval() {
        expectWarning("duty of the test");
        final AtomicLong nanos = new AtomicLong();
        final Failing duty = new Failing(Integer.MAX_VALUE, () -> new IllegalStateException("again"));
        try (AgentHost host = AgentHost.builder("duty of the test", duty).nanoClock(nanos::get)
                .logInterval(Duration.ofSeconds(1)).invoked()) {
            for (int i = 0; i < 100; i++) {
                assertEquals(0, host.invoke());
            }
            assertEquals(1, countLogged("again"), "the first, with its stack trace");
            nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
            for (int i = 0; i < 100; i++) {
                host.invoke();
            }
            assertEquals(2, countLogged("again"), "one line for the interval's repeats");
            assertEquals(1, countLogged("the same error 100 more times"), "the 99 before and the one that logs");
            assertEquals(200, host.errorCount());
            assertTrue(host.isRunning(), "an exception does not stop the duty");
        }
        assertEquals(1, countLogged("the same error 99 more times"), "the rest at close");
    }

    @Test
    void shouldLogEachKindOfErrorOnItsOwn() {
        expectWarning("duty of the test");
        final AtomicInteger passes = new AtomicInteger();
        final Agent duty = agent(() -> {
            throw passes.incrementAndGet() % 2 == 0 ? new IllegalStateException("even") : new IllegalArgumentException("odd");
        });
        try (AgentHost host = AgentHost.builder("duty of the test", duty).nanoClock(() -> 0).invoked()) {
            for (int i = 0; i < 10; i++) {
                host.invoke();
            }
            assertEquals(1, countLogged("even"));
            assertEquals(1, countLogged("odd"));
        }
    }

    @Test
    void shouldStopADutyThatThrowsAgentTerminationExceptionAndHandItsCauseToTheOwner() throws Exception {
        final List<Throwable> handed = new ArrayList<>();
        final IllegalStateException why = new IllegalStateException("why it stops");
        final AtomicInteger passes = new AtomicInteger();
        final CountDownLatch closed = new CountDownLatch(1);
        final Agent duty = new Agent() {
            @Override
            public int doWork() {
                if (passes.incrementAndGet() == 3) {
                    throw new AgentTerminationException(why);
                }
                return 1;
            }

            @Override
            public void onClose() {
                closed.countDown();
            }

            @Override
            public String roleName() {
                return "stopping";
            }
        };
        try (AgentHost host = AgentHost.builder("duty of the test", duty).errorHandler(error -> {
            synchronized (handed) {
                handed.add(error);
            }
        }).start(new NoOpIdleStrategy())) {
            assertTrue(closed.await(30, TimeUnit.SECONDS), "its thread ends, closing the duty");
            assertFalse(host.isRunning());
            assertEquals(3, passes.get(), "no pass after the one that stopped");
            assertEquals(1, host.errorCount(), "the cause is counted");
            assertTrue(host.lastError().contains("why it stops"), host.lastError());
            synchronized (handed) {
                assertEquals(1, handed.size());
                assertSame(why, handed.get(0), "the owner's handler gets the cause");
            }
        }
        assertEquals(0, countLogged("why it stops"), "the duty reported it: the host does not log it again");
    }

    @Test
    void shouldNotCountAPlannedStop() {
        final Agent duty = agent(() -> {
            throw new AgentTerminationException("nothing left to do");
        });
        try (AgentHost host = AgentHost.builder("duty of the test", duty).invoked()) {
            assertEquals(0, host.invoke());
            assertFalse(host.isRunning());
            assertEquals(0, host.errorCount());
            assertEquals("", host.lastError());
        }
    }

    @Test
    void shouldNeverOverlapInvokedPasses() throws Exception {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicBoolean overlapped = new AtomicBoolean();
        final AtomicLong passes = new AtomicLong();
        final Agent duty = agent(() -> {
            if (inside.incrementAndGet() != 1) {
                overlapped.set(true);
            }
            passes.incrementAndGet();
            Thread.onSpinWait();
            inside.decrementAndGet();
            return 1;
        });
        try (AgentHost host = AgentHost.builder("duty of the test", duty).invoked()) {
            final long[] ran = new long[2];
            final CountDownLatch start = new CountDownLatch(1);
            final Thread[] threads = new Thread[2];
            for (int t = 0; t < 2; t++) {
                final int which = t;
                threads[t] = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    for (int i = 0; i < 200_000; i++) {
                        ran[which] += host.invoke();
                    }
                });
                threads[t].start();
            }
            start.countDown();
            for (final Thread thread : threads) {
                thread.join();
            }
            assertFalse(overlapped.get(), "two passes ran at once");
            assertEquals(passes.get(), ran[0] + ran[1], "a pass that did not run returned 0");
            assertThrows(SpoolException.class, () -> AgentHost.builder("duty of the test", duty)
                    .start(new NoOpIdleStrategy()).invoke(), "not on a host with its own thread");
        }
    }

    @Test
    void shouldStopADutyOnAVirtualMachineError() throws Exception {
        expectWarning("duty of the test");
        final CountDownLatch closed = new CountDownLatch(1);
        final AtomicInteger passes = new AtomicInteger();
        final Agent duty = new Agent() {
            @Override
            public int doWork() {
                passes.incrementAndGet();
                throw new StackOverflowError("deep");
            }

            @Override
            public void onClose() {
                closed.countDown();
            }

            @Override
            public String roleName() {
                return "overflowing";
            }
        };
        try (AgentHost host = AgentHost.builder("duty of the test", duty).start(new NoOpIdleStrategy())) {
            assertTrue(closed.await(30, TimeUnit.SECONDS), "its thread ends");
            assertFalse(host.isRunning());
            assertEquals(1, passes.get());
            assertEquals(1, host.errorCount());
        }
        assertEquals(1, countLogged("java.lang.StackOverflowError: deep"));
        assertTrue(logged("stopping"));

        final AtomicInteger invokedPasses = new AtomicInteger();
        final Agent invokedDuty = agent(() -> {
            invokedPasses.incrementAndGet();
            throw new OutOfMemoryError("no room");
        });
        try (AgentHost host = AgentHost.builder("duty of the test", invokedDuty).invoked()) {
            assertThrows(OutOfMemoryError.class, host::invoke, "rethrown to the caller");
            assertEquals(0, host.invoke(), "stopped: later passes do nothing");
            assertEquals(1, invokedPasses.get());
            assertFalse(host.isRunning());
        }
    }

    @Test
    void shouldStopItsThreadWhenClosedFromThatThread() throws Exception {
        final AgentHost[] self = new AgentHost[1];
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch closed = new CountDownLatch(1);
        final Agent duty = new Agent() {
            @Override
            public int doWork() throws InterruptedException {
                started.await();
                self[0].close();
                return 1;
            }

            @Override
            public void onClose() {
                closed.countDown();
            }

            @Override
            public String roleName() {
                return "self-closing";
            }
        };
        self[0] = AgentHost.builder("duty of the test", duty).start(new NoOpIdleStrategy());
        started.countDown();
        assertTrue(closed.await(30, TimeUnit.SECONDS), "the thread ends after the pass that closed it");
        assertFalse(self[0].isRunning());
        assertEquals(0, self[0].errorCount());
    }

    @Test
    void shouldRegisterTheQueuesDutiesBesideItsMBeanOnlyWhenItHasOne() throws Exception {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final Path directory = tempDir.resolve("q");
        final ObjectName groupCommit = new ObjectName(MBeans.DOMAIN + ":type=Agent,name="
                + ObjectName.quote(directory.toString()) + ",role=" + ObjectName.quote("spool-group-commit"));
        final ObjectName pretoucher = new ObjectName(MBeans.DOMAIN + ":type=Agent,name="
                + ObjectName.quote(directory.toString()) + ",role=" + ObjectName.quote(Pretoucher.THREAD_NAME));
        try (SpoolQueue queue = SpoolQueue.builder(directory).openOrCreate();
             GroupCommit commit = queue.startGroupCommit()) {
            assertFalse(server.isRegistered(groupCommit), "not without the queue's MBean");
        }
        try (SpoolQueue queue = SpoolQueue.builder(directory).registerMBean().openOrCreate()) {
            try (GroupCommit commit = queue.startGroupCommit();
                 Pretoucher pretouch = queue.startPretoucher(Duration.ofMillis(10))) {
                assertEquals(0L, server.getAttribute(groupCommit, "ErrorCount"));
                assertEquals("", server.getAttribute(groupCommit, "LastError"));
                assertEquals(true, server.getAttribute(groupCommit, "Running"));
                assertEquals(0L, server.getAttribute(pretoucher, "ErrorCount"));
            }
            assertFalse(server.isRegistered(groupCommit), "unregistered when the duty closes");
            assertFalse(server.isRegistered(pretoucher), "unregistered when the duty closes");
        }
    }

    @Test
    void shouldCloseTheDutyOfAHostThatCannotRegisterItsMBean() {
        final String owner = tempDir.toString();
        final AtomicInteger closes = new AtomicInteger();
        final Agent duty = new Agent() {
            @Override
            public int doWork() {
                return 0;
            }

            @Override
            public void onClose() {
                closes.incrementAndGet();
            }

            @Override
            public String roleName() {
                return "twice";
            }
        };
        try (AgentHost first = AgentHost.builder("duty of the test", duty).mbeanBeside(owner).invoked()) {
            final SpoolException refused = assertThrows(SpoolException.class,
                    () -> AgentHost.builder("duty of the test", duty).mbeanBeside(owner).start(new NoOpIdleStrategy()));
            assertTrue(refused.getMessage().contains("registered already"), refused.getMessage());
            assertEquals(1, closes.get(), "the second host's duty is closed");
            assertTrue(first.isRunning());
        }
        assertEquals(2, closes.get());
    }

    /** Fails {@code failures} times, then stops as planned. */
    private static final class Failing implements Agent {
        private final int failures;
        private final java.util.function.Supplier<RuntimeException> error;
        private int passes;

        Failing(final int failures, final java.util.function.Supplier<RuntimeException> error) {
            this.failures = failures;
            this.error = error;
        }

        @Override
        public int doWork() {
            if (passes++ < failures) {
                throw error.get();
            }
            throw new AgentTerminationException("done");
        }

        @Override
        public String roleName() {
            return "failing";
        }
    }

    private interface Pass {
        int run() throws Exception;
    }

    private static Agent agent(final Pass pass) {
        return new Agent() {
            @Override
            public int doWork() throws Exception {
                return pass.run();
            }

            @Override
            public String roleName() {
                return "test-duty";
            }
        };
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
