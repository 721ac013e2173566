package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.Replicas;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.CommitStage;
import dev.spool.replication.CommitWaiter;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The replication path, one message at a time: append to a primary, then wait until the replica, over loopback
 * TCP in the same JVM, acknowledged it. With JMH's gc profiler, {@code gc.alloc.rate.norm} counts the bytes every
 * thread allocated per operation, so the source's and the sink's threads are in it: the goal is 0. With
 * {@code invoked}, JMH's thread streams for the source itself while it waits. And an append alone to a primary
 * with limited retention that the replica's acknowledged index pins, while the source streams on its thread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReplicationBenchmark {
    /** JMH instantiates the benchmark. */
    public ReplicationBenchmark() {
    }

    /**
     * Append, then {@link CommitWaiter#await} the {@link CommitStage#ACKED} stage: a round trip to the replica.
     *
     * @param state the primary, its replica and the source and sink between them.
     * @return the index acknowledged.
     * @throws InterruptedException never: nothing interrupts JMH's thread.
     */
    @Benchmark
    public long appendAndAwaitAck(final ReplicatedState state) throws InterruptedException {
        return state.appendAndAwaitAck();
    }

    /**
     * {@link ExcerptAppender#append(byte[])} to a primary whose retention is limited while a source streams it to a
     * replica and, on its own thread, records each acknowledged index in the primary's metadata, where it keeps the
     * replica's cycles from retention: what a replica's pin costs an append, which must not show. Compare it with
     * {@code SpoolBenchmark.append} and, for before and after, with the same benchmark on a build whose source does
     * not record its replicas' indices.
     *
     * @param state the primary with limited retention, its replica and the source and sink between them.
     * @return the index of the excerpt.
     */
    @Benchmark
    public long appendWithReplicaPinnedRetention(final RetainedState state) {
        return state.append();
    }

    /** A primary queue with limited retention, replicated on the source's own thread to a sink in the same JVM. */
    @State(Scope.Thread)
    public static class RetainedState {
        /** Cycles the primary keeps: any limit makes retention run at each roll, pinned by the replica. */
        private static final int RETAIN_CYCLES = 2;

        /** Payload length in bytes. */
        @Param({"32", "256"})
        public int payloadLength;

        private byte[] payload;
        private BenchmarkDirectory directory;
        private SpoolQueue primary;
        private ExcerptAppender appender;
        private ReplicationSink sink;
        private ReplicationSource source;

        /** JMH instantiates the state. */
        public RetainedState() {
        }

        /** Creates the primary, the sink and the source, and waits until they are connected. */
        @Setup(Level.Iteration)
        public void start() {
            payload = Payloads.create(payloadLength);
            directory = BenchmarkDirectory.create("spool-retained-");
            primary = Payloads.spoolQueue(directory.path().resolve("primary")).retainCycles(RETAIN_CYCLES)
                    .openOrCreate();
            appender = primary.createAppender();
            sink = ReplicationSink.builder(directory.path().resolve("replica")).sharedSecret(Replicas.SECRET)
                    .queueSettings(b -> b.chunkLength(Payloads.CHUNK_LENGTH)).start();
            source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).start();
            Replicas.awaitConnected(sink, source);
        }

        /** Stops replication, closes and deletes both queues. */
        @TearDown(Level.Iteration)
        public void stop() {
            source.close();
            sink.close();
            appender.close();
            primary.close();
            directory.delete();
        }

        long append() {
            return appender.append(payload);
        }
    }

    /** A primary queue replicated to a sink in the same JVM. */
    @State(Scope.Thread)
    public static class ReplicatedState {
        /** Payload length in bytes. */
        @Param({"40", "256"})
        public int payloadLength;

        /** True: the waiting thread streams for the source ({@link ReplicationSource#doWork()}); false: its thread. */
        @Param({"false", "true"})
        public boolean invoked;

        private byte[] payload;
        private BenchmarkDirectory directory;
        private SpoolQueue primary;
        private ExcerptAppender appender;
        private ReplicationSink sink;
        private ReplicationSource source;
        private CommitWaiter waiter;

        /** JMH instantiates the state. */
        public ReplicatedState() {
        }

        /** Creates the primary, the sink and the source, and waits until they are connected. */
        @Setup(Level.Iteration)
        public void start() {
            payload = Payloads.create(payloadLength);
            directory = BenchmarkDirectory.create("spool-replication-");
            primary = Payloads.spoolQueue(directory.path().resolve("primary")).openOrCreate();
            appender = primary.createAppender();
            sink = ReplicationSink.builder(directory.path().resolve("replica")).sharedSecret(Replicas.SECRET)
                    .queueSettings(b -> b.chunkLength(Payloads.CHUNK_LENGTH)).start();
            source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).invoked(invoked).start();
            Replicas.awaitConnected(sink, source);
            waiter = source.commitWaiter(appender);
        }

        /** Stops replication, closes and deletes both queues. */
        @TearDown(Level.Iteration)
        public void stop() {
            waiter.close();
            source.close();
            sink.close();
            appender.close();
            primary.close();
            directory.delete();
        }

        long appendAndAwaitAck() throws InterruptedException {
            final long index = appender.append(payload);
            if (!waiter.await(index, CommitStage.ACKED, 10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("index " + index + " was not acknowledged within 10 s");
            }
            return index;
        }
    }
}
