package dev.spool.ringbuffer;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An async queue's drainer is the queue's only writer: a direct appender on a queue the async queue opened is
 * refused, naming the call to use; a read-only queue cannot have an async queue; and a drainer stopped by a write it
 * did not expect reaches the caller of doWork or close as a SpoolException, never as an agent's termination.
 */
class AsyncQueueOwnershipTest extends SpoolTestBase {

    private AsyncQueueBuilder owning() {
        return AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16);
    }

    @Test
    void shouldRefuseADirectAppenderOnAQueueTheAsyncQueueOpenedNamingTheAsyncAppender() {
        try (AsyncQueue async = owning().build()) {
            async.startDrainer();
            final SpoolException refused = assertThrows(SpoolException.class, () -> async.queue().createAppender());
            assertTrue(refused.getMessage().contains("asyncQueue.createAppender()")
                    && refused.getMessage().contains(async.ring().path().toString()), refused.getMessage());
            try (AsyncAppender appender = async.createAppender()) {
                appender.append("through the ring".getBytes());
            }
        }
        try (SpoolQueue queue = SpoolQueue.open(tempDir.resolve("q")); ExcerptTailer tailer = queue.createTailer()) {
            final String[] read = new String[1];
            assertTrue(tailer.read((bytes, offset, length, index) -> read[0] = bytes.toString()));
            assertFalse(tailer.read((bytes, offset, length, index) -> { }), "one excerpt, drained from the ring");
            try (ExcerptAppender appender = queue.createAppender()) {
                appender.append("the queue is the caller's again once the async queue closed".getBytes());
            }
        }
    }

    @Test
    void shouldRefuseADirectAppenderOnTheCallersQueueWhileTheAsyncQueueIsOpenAndAllowItAfter() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate()) {
            try (AsyncQueue async = AsyncQueue.builder(queue).ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16)
                    .build(); AsyncAppender appender = async.createAppender()) {
                final SpoolException refused = assertThrows(SpoolException.class, queue::createAppender);
                assertTrue(refused.getMessage().contains("asyncQueue.createAppender()"), refused.getMessage());
                appender.append("through the ring".getBytes());
                async.createDrainer().doWork();
            }
            try (ExcerptAppender appender = queue.createAppender()) {
                appender.append("the caller's again once the async queue closed".getBytes());
            }
            assertEquals(1, queue.rollCycle().toSequence(queue.lastIndex()), "the ring's record, then the direct one");
        }
    }

    @Test
    void shouldRefuseAnAsyncQueueOnAReadOnlyQueueBeforeCreatingTheRing() {
        try (SpoolQueue queue = SpoolQueue.create(tempDir.resolve("q"))) {
            assertEquals(-1, queue.lastIndex());
        }
        final Path ring = tempDir.resolve("q.ring");
        final SpoolException refused = assertThrows(SpoolException.class,
                () -> AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).readOnly()).ringPath(ring).build());
        assertTrue(refused.getMessage().contains("is open read-only") && refused.getMessage().contains("async queue"),
                refused.getMessage());
        assertFalse(Files.exists(ring), "no ring was created");
    }

    @Test
    void shouldReportADrainerStoppedByAnotherWriterAsASpoolExceptionFromCloseAndDoWork() {
        expectWarning("drainer of ring");
        // an appender made before the async queue opened stays open: the refusal cannot reach it
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).create();
             ExcerptAppender direct = queue.createAppender()) {
            final AsyncQueue async = AsyncQueue.builder(queue).ringPath(tempDir.resolve("q.ring"))
                    .ringCapacity(1 << 16).build();
            final Drainer drainer = async.startDrainer();
            takeTheRingsNextIndex(queue, direct, async);
            while (drainer.failure() == null) {
                LockSupport.parkNanos(100_000);
            }
            final SpoolException fromDoWork = assertThrows(SpoolException.class, drainer::doWork);
            assertNotNull(fromDoWork.getCause(), fromDoWork.getMessage());
            final SpoolException fromClose = assertThrows(SpoolException.class, async::close);
            assertTrue(fromClose.getMessage().contains(tempDir.resolve("q.ring").toString())
                    && fromClose.getMessage().contains("something other than the ring's drainer wrote to the queue"),
                    fromClose.getMessage());
            assertTrue(async.ring().isClosed(), "the ring is closed all the same");
        }
    }

    @Test
    void shouldShowTheDrainersStopInItsAgentMBeanBesideTheRings() throws Exception {
        expectWarning("drainer of ring");
        final Path ring = tempDir.resolve("q.ring");
        final ObjectName name = new ObjectName("dev.spool:type=Agent,name=" + ObjectName.quote(ring.toString())
                + ",role=" + ObjectName.quote(Drainer.THREAD_NAME));
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).create();
             ExcerptAppender direct = queue.createAppender()) {
            final AsyncQueue async = AsyncQueue.builder(queue).ringPath(ring).ringCapacity(1 << 16).registerMBean()
                    .build();
            final Drainer drainer = async.startDrainer();
            assertEquals(0L, server.getAttribute(name, "ErrorCount"));
            assertEquals(true, server.getAttribute(name, "Running"));
            takeTheRingsNextIndex(queue, direct, async);
            while (server.getAttribute(name, "Running").equals(true)) {
                LockSupport.parkNanos(100_000);
            }
            assertEquals(1L, server.getAttribute(name, "ErrorCount"), "the failure that stopped it");
            final String last = (String) server.getAttribute(name, "LastError");
            assertTrue(last.contains(ring.toString()), last);
            assertNotNull(drainer.failure());
            assertThrows(SpoolException.class, async::close);
            assertFalse(server.isRegistered(name), "unregistered with the drainer");
        }
    }

    /**
     * Appends to the queue directly, past the async queue's back, between two records of its ring: the drainer
     * finds the index the ring promised its second record taken, and stops.
     */
    private static void takeTheRingsNextIndex(final SpoolQueue queue, final ExcerptAppender direct,
                                              final AsyncQueue async) {
        try (AsyncAppender appender = async.createAppender()) {
            appender.append("drained first".getBytes());
            while (queue.lastIndex() < 0) {
                LockSupport.parkNanos(100_000);
            }
            direct.append("takes the index the ring gives its next record".getBytes());
            direct.append("and one more, which no drainer can take for the ring's".getBytes());
            appender.append("drained second".getBytes());
        }
    }
}
