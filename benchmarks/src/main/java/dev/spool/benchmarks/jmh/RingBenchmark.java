package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.RingPaths;
import dev.spool.queue.ExcerptHandler;
import dev.spool.ringbuffer.AsyncAppender;
import dev.spool.ringbuffer.AsyncQueue;
import dev.spool.ringbuffer.AsyncTailer;
import dev.spool.ringbuffer.BackPressure;
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

    /**
     * {@link AsyncAppender#append(byte[], int, int)} into the ring of an async queue, with {@code tailers} tailers
     * of this process in {@link AsyncTailer#await}: {@code 0}, the appender's whole cost of the await doorbell is a
     * read of an empty array; with {@code 1}, each commit unparks the tailer (its own thread). When the ring is
     * full the same thread drains it into the queue, so the figure includes the drainer's share per record.
     *
     * @param state the async queue.
     * @return the record's ring position.
     */
    @Benchmark
    public long asyncAppend(final AsyncAppendState state) {
        return state.append();
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

    /** An async queue whose ring the appending thread drains when full, and {@code tailers} tailers awaiting records. */
    @State(Scope.Thread)
    public static class AsyncAppendState {
        /** Payload length in bytes. */
        @Param({"32"})
        public int payloadLength;

        /** Tailers of this process parked in {@link AsyncTailer#await}, each on a thread of its own: 0 or 1. */
        @Param({"0", "1"})
        public int tailers;

        private byte[] payload;
        private BenchmarkDirectory directory;
        private Path ringPath;
        private AsyncQueue async;
        private AsyncAppender appender;
        private Drainer drainer;
        private Thread awaiting;
        private volatile boolean running;

        /** JMH instantiates the state. */
        public AsyncAppendState() {
        }

        /** Creates the queue, its ring, the drainer this thread runs, and the awaiting tailers. */
        @Setup(Level.Trial)
        public void createQueue() {
            payload = Payloads.create(payloadLength);
            directory = BenchmarkDirectory.create("spool-ring-await-");
            ringPath = RingPaths.create(directory.path());
            async = AsyncQueue.builder(Payloads.spoolQueue(directory.path().resolve("queue")))
                    .ringPath(ringPath)
                    .ringCapacity(1 << 20)
                    .backPressure(BackPressure.returnCode())
                    .build();
            appender = async.createAppender();
            drainer = async.createDrainer();
            running = true;
            if (tailers > 0) {
                final AsyncTailer tailer = async.createTailer();
                awaiting = new Thread(() -> await(tailer), "spool-bench-awaiting-tailer");
                awaiting.setDaemon(true);
                awaiting.start();
            }
        }

        private void await(final AsyncTailer tailer) {
            final ExcerptHandler skip = (bytes, offset, length, index) -> { };
            try {
                while (running) {
                    if (tailer.await(10, TimeUnit.MILLISECONDS)) {
                        while (tailer.read(skip)) {
                            // to the end: then it parks again
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        long append() {
            long position = appender.append(payload, 0, payloadLength);
            while (position < 0) {
                drainer.doWork();
                position = appender.append(payload, 0, payloadLength);
            }
            return position;
        }

        /**
         * Stops the tailers' thread, closes and deletes the queue and the ring.
         *
         * @throws InterruptedException if interrupted while joining the tailers' thread.
         */
        @TearDown(Level.Trial)
        public void deleteQueue() throws InterruptedException {
            running = false;
            if (awaiting != null) {
                awaiting.join();
            }
            async.close();
            RingPaths.delete(ringPath);
            directory.delete();
        }
    }
}
