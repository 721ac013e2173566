package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Spool's appender and tailer, one thread, experiment E4: the cost of one append, one read and one
 * {@code moveToIndex}, and, with JMH's gc profiler, the bytes each allocates (the goal is 0).
 * <p>
 * The queue is a daily roll cycle with 64 MiB chunks, so a run never rolls and maps a new chunk once per 64 MiB.
 * Appends go to a new queue each iteration, deleted after it, which bounds the disk a run uses; page faults of the
 * growing file are part of each append's cost, as they are in use. Reads and {@code moveToIndex} use a queue
 * pre-filled once per trial, see {@link Payloads#READ_SET_LENGTH}: the tailer reads it to the end, then
 * {@code moveToIndex} takes it back to the first excerpt. Pre-filling a queue per iteration instead would need
 * gigabytes for the hundreds of millions of reads 2 s holds; wrapping costs one index lookup per read set, i.e.
 * nothing per read, and the mapping stays, since the appender that filled the queue stays open.
 * <p>
 * Each state runs with and without {@code checksums}: a queue created with a CRC32C per excerpt, computed
 * by every append and checked by every read; {@code moveToIndex} reads no payload, so it checks none. Run 4 KiB
 * payloads too with {@code -p payloadLength=32,256,4096} (and the same on {@link ChronicleBenchmark}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SpoolBenchmark {
    /** JMH instantiates the benchmark. */
    public SpoolBenchmark() {
    }

    /**
     * {@link ExcerptAppender#append(byte[])}: one copy from the heap into the mapped file.
     *
     * @param state the queue being appended to.
     * @return the index of the excerpt.
     */
    @Benchmark
    public long append(final AppendState state) {
        return state.append();
    }

    /**
     * {@link ExcerptAppender#claim(int)}, a write into {@link ExcerptAppender#claimedBytes()}, then
     * {@link ExcerptAppender#commit(int)}: the zero-copy path, writing the same bytes as {@link #append}.
     *
     * @param state the queue being appended to.
     * @return the index of the excerpt.
     */
    @Benchmark
    public long claimCommit(final AppendState state) {
        return state.claimCommit();
    }

    /**
     * {@link ExcerptTailer#read(ExcerptHandler)} with a handler that copies the payload into a byte array, the
     * same work as the floor's read and Chronicle's {@code readBytes}.
     *
     * @param state the pre-filled queue being read.
     * @return the index of the excerpt read.
     */
    @Benchmark
    public long read(final ReadState state) {
        return state.read();
    }

    /**
     * {@link ExcerptTailer#read(Bytes)}: the copying read into a reused direct {@link Bytes}.
     *
     * @param state the pre-filled queue being read.
     * @return the index of the excerpt read.
     */
    @Benchmark
    public long readBytes(final ReadState state) {
        return state.readBytes();
    }

    /**
     * {@link ExcerptTailer#moveToIndex(long)} to an excerpt picked at random from the pre-filled queue: a root
     * lookup, a block lookup and a walk of fewer than 64 (the index spacing) excerpts.
     *
     * @param state the pre-filled queue.
     * @return the index moved to.
     */
    @Benchmark
    public long moveToIndex(final ReadState state) {
        return state.moveToRandomIndex();
    }

    /** A new, empty queue for each iteration. */
    @State(Scope.Thread)
    public static class AppendState {
        /** Payload length in bytes. */
        @Param({"32", "256"})
        public int payloadLength;

        /** Whether the queue stores a CRC32C per excerpt. */
        @Param({"false", "true"})
        public boolean checksums;

        private byte[] payload;
        private BenchmarkDirectory directory;
        private SpoolQueue queue;
        private ExcerptAppender appender;

        /** JMH instantiates the state. */
        public AppendState() {
        }

        /** Creates the payload. */
        @Setup(Level.Trial)
        public void createPayload() {
            payload = Payloads.create(payloadLength);
        }

        /** Creates an empty queue and its appender. */
        @Setup(Level.Iteration)
        public void createQueue() {
            directory = BenchmarkDirectory.create("spool-append-");
            queue = SpoolBenchmark.open(directory, checksums);
            appender = queue.createAppender();
        }

        /** Closes and deletes the queue. */
        @TearDown(Level.Iteration)
        public void deleteQueue() {
            queue.close();
            directory.delete();
        }

        long append() {
            return appender.append(payload);
        }

        long claimCommit() {
            final ExcerptAppender appender = this.appender;
            final int length = payloadLength;
            final long offset = appender.claim(length);
            appender.claimedBytes().write(offset, payload, 0, length);
            return appender.commit(length);
        }

        SpoolQueue queue() {
            return queue;
        }
    }

    /** A queue pre-filled with {@link Payloads#readSetCount(int)} excerpts, read round and round. */
    @State(Scope.Thread)
    public static class ReadState {
        /** moveToIndex targets, a power of two, spread over the read set: most moves miss the caches, as in use. */
        private static final int TARGETS = 4096;

        /** Payload length in bytes. */
        @Param({"32", "256"})
        public int payloadLength;

        /** Whether the queue stores a CRC32C per excerpt, which each read checks. */
        @Param({"false", "true"})
        public boolean checksums;

        private BenchmarkDirectory directory;
        private SpoolQueue queue;
        private ExcerptAppender appender;
        private ExcerptTailer tailer;
        private CopyingHandler handler;
        private Bytes<?> into;
        private long firstIndex;
        private final long[] targets = new long[TARGETS];
        private int nextTarget;

        /** JMH instantiates the state. */
        public ReadState() {
        }

        /** Creates and fills the queue and opens a tailer at its start. */
        @Setup(Level.Trial)
        public void fillQueue() {
            directory = BenchmarkDirectory.create("spool-read-");
            queue = SpoolBenchmark.open(directory, checksums);
            // stays open: it holds the cycle file's first chunk mapped, as a live writer would
            appender = queue.createAppender();
            final byte[] payload = Payloads.create(payloadLength);
            final long[] indices = new long[Payloads.readSetCount(payloadLength)];
            for (int i = 0; i < indices.length; i++) {
                indices[i] = appender.append(payload);
            }
            firstIndex = indices[0];
            // recorded, not computed from the first index: a fill that crosses midnight UTC spans two cycles
            final SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < TARGETS; i++) {
                targets[i] = indices[random.nextInt(indices.length)];
            }
            tailer = queue.createTailer();
            handler = new CopyingHandler(payloadLength);
            into = Bytes.allocateDirect(payloadLength);
        }

        /** Closes and deletes the queue. */
        @TearDown(Level.Trial)
        public void deleteQueue() {
            into.releaseLast();
            queue.close();
            directory.delete();
        }

        long read() {
            if (!tailer.read(handler)) {
                // past the last excerpt: start again; once per read set, so it costs nothing per read
                rewind();
                tailer.read(handler);
            }
            return handler.index;
        }

        long readBytes() {
            final Bytes<?> into = this.into;
            into.clear();
            long index = tailer.read(into);
            if (index < 0) {
                rewind();
                index = tailer.read(into);
            }
            return index;
        }

        long moveToRandomIndex() {
            final long index = targets[nextTarget++ & (TARGETS - 1)];
            if (!tailer.moveToIndex(index)) {
                throw new IllegalStateException("moveToIndex(" + index + ") found no excerpt in " + directory.path());
            }
            return index;
        }

        private void rewind() {
            if (!tailer.moveToIndex(firstIndex)) {
                throw new IllegalStateException("moveToIndex(" + firstIndex + ") found no excerpt in " + directory.path());
            }
        }

        byte[] lastPayload() {
            return handler.copy;
        }

        Bytes<?> lastBytes() {
            return into;
        }
    }

    /** Copies each payload into one array; its fields are on the heap, so JIT cannot drop the copy. */
    private static final class CopyingHandler implements ExcerptHandler {
        private final byte[] copy;
        private long index;

        CopyingHandler(final int payloadLength) {
            this.copy = new byte[payloadLength];
        }

        @Override
        public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
            bytes.read(offset, copy, 0, length);
            this.index = index;
        }
    }

    private static SpoolQueue open(final BenchmarkDirectory directory, final boolean checksums) {
        return Payloads.spoolQueue(directory.path()).checksums(checksums).openOrCreate();
    }
}
