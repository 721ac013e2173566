package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.RingPaths;
import dev.spool.ringbuffer.AsyncAppender;
import dev.spool.ringbuffer.AsyncQueue;
import dev.spool.ringbuffer.Drainer;
import dev.spool.ringbuffer.RingBuffer;
import dev.spool.ringbuffer.RingHandler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The ring buffer of queue-ringbuffer, one thread: the cost of a claim, a 32-byte write and a commit into a ring on
 * tmpfs, and how many records per second the drainer copies from the ring into the queue. With JMH's gc profiler
 * both show the bytes they allocate (the goal is 0).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RingBenchmark {
    /** Records per {@link #drain} invocation: the drainer's default batch. */
    static final int DRAIN_BATCH = 1024;

    /** JMH instantiates the benchmark. */
    public RingBenchmark() {
    }

    /**
     * {@link RingBuffer#tryClaim(int)}, a write of the payload at {@link RingBuffer#payloadOffset(long)}, then
     * {@link RingBuffer#commit(long)}. When the ring is full the same thread reads it empty, so the figure includes
     * the consumer's share (its read and zeroing) spread over the ring's records.
     *
     * @param state the ring.
     * @return the record's position.
     */
    @Benchmark
    public long claimCommit(final ClaimState state) {
        return state.claimCommit();
    }

    /**
     * {@link Drainer#doWork()} on a ring holding one batch of records, which it copies into the queue: the drainer's
     * cost per record (ns/op, one op per record); its throughput is 10^9 divided by it. The ring is refilled before
     * each invocation, outside the measurement.
     *
     * @param state the async queue and its ring.
     * @return the records drained.
     */
    @Benchmark
    @OperationsPerInvocation(DRAIN_BATCH)
    public int drain(final DrainState state) {
        return state.drainer.doWork();
    }

    /** A ring of 1 MiB on tmpfs, created for the trial. */
    @State(Scope.Thread)
    public static class ClaimState {
        /** Payload length in bytes. */
        @Param({"32"})
        public int payloadLength;

        private static final RingHandler SKIP = (buffer, offset, length, position) -> { };
        private byte[] payload;
        private Path ringPath;
        private RingBuffer ring;

        /** JMH instantiates the state. */
        public ClaimState() {
        }

        /** Creates the ring. */
        @Setup(Level.Trial)
        public void createRing() {
            payload = Payloads.create(payloadLength);
            ringPath = RingPaths.create(BenchmarkDirectory.base());
            ring = RingBuffer.open(ringPath, 1 << 20);
        }

        /** Closes and deletes the ring. */
        @TearDown(Level.Trial)
        public void deleteRing() {
            ring.close();
            RingPaths.delete(ringPath);
        }

        long claimCommit() {
            final RingBuffer ring = this.ring;
            long position = ring.tryClaim(payloadLength);
            if (position < 0) {
                ring.read(SKIP, Integer.MAX_VALUE);
                position = ring.tryClaim(payloadLength);
            }
            ring.buffer().write(ring.payloadOffset(position), payload, 0, payloadLength);
            ring.commit(position);
            return position;
        }
    }

    /** An async queue with a new queue each iteration, and a ring refilled with one batch before each invocation. */
    @State(Scope.Thread)
    public static class DrainState {
        /** Payload length in bytes. */
        @Param({"32"})
        public int payloadLength;

        private byte[] payload;
        private BenchmarkDirectory directory;
        private Path ringPath;
        private AsyncQueue async;
        private AsyncAppender appender;
        private Drainer drainer;

        /** JMH instantiates the state. */
        public DrainState() {
        }

        /** Creates the payload. */
        @Setup(Level.Trial)
        public void createPayload() {
            payload = Payloads.create(payloadLength);
        }

        /** Creates an empty queue, its ring and a drainer for this thread to run. */
        @Setup(Level.Iteration)
        public void createQueue() {
            directory = BenchmarkDirectory.create("spool-ring-drain-");
            ringPath = RingPaths.create(directory.path());
            async = AsyncQueue.builder(Payloads.spoolQueue(directory.path().resolve("queue")))
                    .ringPath(ringPath)
                    .ringCapacity(1 << 20)
                    .drainBatch(DRAIN_BATCH)
                    .build();
            appender = async.createAppender();
            drainer = async.createDrainer();
        }

        /** Puts one batch of records into the ring. */
        @Setup(Level.Invocation)
        public void fill() {
            for (int i = 0; i < DRAIN_BATCH; i++) {
                appender.append(payload, 0, payloadLength);
            }
        }

        /** Closes and deletes the queue and the ring. */
        @TearDown(Level.Iteration)
        public void deleteQueue() {
            async.close();
            RingPaths.delete(ringPath);
            directory.delete();
        }
    }
}
