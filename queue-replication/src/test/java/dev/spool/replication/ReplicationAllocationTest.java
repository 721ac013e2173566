package dev.spool.replication;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.open;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Steady-state replication allocates nothing: neither the source's thread (tail, batch, socket write, ack read,
 * metadata update) nor the sink's (select, socket read, appendAt, ack write), nor a writer waiting for the ack,
 * which, for an invoked source, streams itself: an invoked source has no thread at all.
 */
class ReplicationAllocationTest extends SpoolTestBase {
    private static final int WARM_UP = 100_000;
    private static final int MEASURED = 100_000;
    /**
     * One-offs the JIT may cause inside the window (a deoptimization re-creating an eliminated object; seen: up to
     * 3 KB once); one object per message would be 16 B x 100,000.
     */
    private static final long ONE_OFF_BYTES = 16 * 1024;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @ParameterizedTest(name = "invoked source: {0}")
    @ValueSource(booleans = {false, true})
    void shouldAllocateNothingPerReplicatedMessageInSteadyState(final boolean invoked) throws InterruptedException {
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(64L << 20).openOrCreate();
             ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica"))
                     .queueSettings(b -> b.chunkLength(64L << 20)).start();
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).invoked(invoked).start();
             CommitWaiter waiter = source.commitWaiter(appender)) {
            final byte[] message = new byte[40];
            replicate(appender, waiter, message, WARM_UP);
            final long sourceThread = invoked ? Thread.currentThread().getId() : threadId(ReplicationSource.THREAD_NAME);
            if (invoked) {
                assertFalse(hasThread(ReplicationSource.THREAD_NAME), "an invoked source starts no thread");
            }
            final long sinkThread = threadId(ReplicationSink.THREAD_NAME);
            final long sourceBefore = THREADS.getThreadAllocatedBytes(sourceThread);
            final long sinkBefore = THREADS.getThreadAllocatedBytes(sinkThread);
            final long writerBefore = THREADS.getCurrentThreadAllocatedBytes();
            replicate(appender, waiter, message, MEASURED);
            final long writer = THREADS.getCurrentThreadAllocatedBytes() - writerBefore;
            final long sourceBytes = THREADS.getThreadAllocatedBytes(sourceThread) - sourceBefore;
            final long sinkBytes = THREADS.getThreadAllocatedBytes(sinkThread) - sinkBefore;
            System.out.printf("bytes allocated over %,d replicated messages: source %d, sink %d, writer %d%n", MEASURED,
                    sourceBytes, sinkBytes, writer);
            assertTrue(sourceBytes <= ONE_OFF_BYTES, "source thread allocated " + sourceBytes + " bytes");
            assertTrue(sinkBytes <= ONE_OFF_BYTES, "sink thread allocated " + sinkBytes + " bytes");
            assertTrue(writer <= ONE_OFF_BYTES, "writer allocated " + writer + " bytes");
        }
    }

    /** Appends in bursts of 100 and waits for each burst's ack, so that batches of every size travel. */
    private static void replicate(final ExcerptAppender appender, final CommitWaiter waiter, final byte[] message,
                                  final int count) throws InterruptedException {
        for (int i = 0; i < count; i += 100) {
            long last = -1;
            for (int j = 0; j < 100; j++) {
                message[0] = (byte) j;
                last = appender.append(message);
            }
            if (!waiter.await(last, CommitStage.ACKED, 30, TimeUnit.SECONDS)) {
                fail("index " + last + " was not acked within 30 s");
            }
        }
    }

    private static boolean hasThread(final String name) {
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(name)) {
                return true;
            }
        }
        return false;
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
