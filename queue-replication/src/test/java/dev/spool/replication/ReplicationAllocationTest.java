package dev.spool.replication;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.open;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Steady-state replication allocates nothing: neither the source's thread (tail, batch, socket write, ack read,
 * quorum and metadata update), to one sink or two, nor the sinks' (select, socket read, appendAt, ack write), nor a
 * writer waiting for the ack (of both replicas, with two), which, for an invoked source, streams itself: an invoked
 * source has no thread at all.
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
        assertNothingAllocated(invoked, 1, CommitStage.ACKED);
    }

    /** Two sinks, each its own thread; the writer waits for both (2 of 2), the source streams to both. */
    @ParameterizedTest(name = "invoked source: {0}")
    @ValueSource(booleans = {false, true})
    void shouldAllocateNothingPerMessageReplicatedToTwoReplicas(final boolean invoked) throws InterruptedException {
        assertNothingAllocated(invoked, 2, CommitStage.ACKED_BY_QUORUM);
    }

    private void assertNothingAllocated(final boolean invoked, final int replicas, final CommitStage stage)
            throws InterruptedException {
        final ReplicationSink[] sinks = new ReplicationSink[replicas];
        try {
            for (int i = 0; i < replicas; i++) {
                sinks[i] = ReplicationSink.builder(tempDir.resolve("replica" + i)).sharedSecret(Replicas.SECRET)
                        .queueSettings(b -> b.chunkLength(64L << 20)).start();
            }
            final InetSocketAddress[] more = new InetSocketAddress[replicas - 1];
            for (int i = 1; i < replicas; i++) {
                more[i - 1] = sinks[i].address();
            }
            try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(64L << 20).openOrCreate();
                 ExcerptAppender appender = primary.createAppender();
                 ReplicationSource source = ReplicationSource.builder(primary, sinks[0].address(), more)
                         .sharedSecret(Replicas.SECRET).invoked(invoked).start();
                 CommitWaiter waiter = source.commitWaiter(appender)) {
                assertEquals(replicas, source.ackQuorum(), "the writer waits for every replica");
                final byte[] message = new byte[40];
                replicate(appender, waiter, stage, message, WARM_UP);
                final long sourceThread = invoked ? Thread.currentThread().getId() : threadId(ReplicationSource.THREAD_NAME);
                if (invoked) {
                    assertFalse(hasThread(ReplicationSource.THREAD_NAME), "an invoked source starts no thread");
                }
                final long[] sinkThreads = threadIds(ReplicationSink.THREAD_NAME);
                assertEquals(replicas, sinkThreads.length, "a thread per sink");
                final long sourceBefore = THREADS.getThreadAllocatedBytes(sourceThread);
                final long[] sinkBefore = THREADS.getThreadAllocatedBytes(sinkThreads);
                final long writerBefore = THREADS.getCurrentThreadAllocatedBytes();
                replicate(appender, waiter, stage, message, MEASURED);
                final long writer = THREADS.getCurrentThreadAllocatedBytes() - writerBefore;
                final long sourceBytes = THREADS.getThreadAllocatedBytes(sourceThread) - sourceBefore;
                final long[] sinkAfter = THREADS.getThreadAllocatedBytes(sinkThreads);
                System.out.printf("bytes allocated over %,d messages replicated to %d: source %d, writer %d%n", MEASURED,
                        replicas, sourceBytes, writer);
                for (int i = 0; i < replicas; i++) {
                    final long sinkBytes = sinkAfter[i] - sinkBefore[i];
                    System.out.printf("sink %d: %d%n", i, sinkBytes);
                    assertTrue(sinkBytes <= ONE_OFF_BYTES, "sink thread " + i + " allocated " + sinkBytes + " bytes");
                }
                assertTrue(sourceBytes <= ONE_OFF_BYTES, "source thread allocated " + sourceBytes + " bytes");
                assertTrue(writer <= ONE_OFF_BYTES, "writer allocated " + writer + " bytes");
            }
        } finally {
            for (final ReplicationSink sink : sinks) {
                if (sink != null) {
                    sink.close();
                }
            }
        }
    }

    /** Appends in bursts of 100 and waits for each burst's ack, so that batches of every size travel. */
    private static void replicate(final ExcerptAppender appender, final CommitWaiter waiter, final CommitStage stage,
                                  final byte[] message, final int count) throws InterruptedException {
        for (int i = 0; i < count; i += 100) {
            long last = -1;
            for (int j = 0; j < 100; j++) {
                message[0] = (byte) j;
                last = appender.append(message);
            }
            if (!waiter.await(last, stage, 30, TimeUnit.SECONDS)) {
                fail("index " + last + " was not " + stage + " within 30 s");
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

    private static long[] threadIds(final String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().equals(name))
                .mapToLong(Thread::getId).toArray();
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
