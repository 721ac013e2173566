package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.wire.DocumentContext;
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
 * Chronicle Queue open source, the same scenarios as {@link SpoolBenchmark}, so that one run gives the ratio
 * Spool / Chronicle on one machine: {@code RollCycles.FAST_DAILY} (no roll during a run) and a 64 MiB block size,
 * appends to a new queue each iteration, reads and {@code moveToIndex} on a queue pre-filled once per trial with
 * as many excerpts as Spool's and read round and round the same way.
 * <p>
 * Chronicle's appenders and tailers check that one thread uses them; JMH may run iterations on different
 * threads, so the per-iteration set-up hands them to the thread of the iteration.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ChronicleBenchmark {
    /** JMH instantiates the benchmark. */
    public ChronicleBenchmark() {
    }

    /**
     * {@code ExcerptAppender.writeBytes(BytesStore)} from a direct buffer.
     *
     * @param state the queue being appended to.
     */
    @Benchmark
    public void writeBytes(final AppendState state) {
        state.writeBytes();
    }

    /**
     * {@code writingDocument()}, a byte-array write into the document's bytes, then closing the document: the
     * zero-copy path, writing the same bytes as {@link #writeBytes}.
     *
     * @param state the queue being appended to.
     */
    @Benchmark
    public void writingDocument(final AppendState state) {
        state.writingDocument();
    }

    /**
     * {@code ExcerptTailer.readBytes(Bytes)}: a copy into a reused direct buffer.
     *
     * @param state the pre-filled queue being read.
     * @return the bytes read.
     */
    @Benchmark
    public long readBytes(final ReadState state) {
        return state.readBytes();
    }

    /**
     * {@code readingDocument()} and a copy of the payload into a byte array, the same work as Spool's handler.
     *
     * @param state the pre-filled queue being read.
     * @return the index of the excerpt read.
     */
    @Benchmark
    public long readingDocument(final ReadState state) {
        return state.readingDocument();
    }

    /**
     * {@code ExcerptTailer.moveToIndex(long)} to an excerpt picked at random from the pre-filled queue.
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

        private byte[] payload;
        private Bytes<?> payloadBytes;
        private BenchmarkDirectory directory;
        private ChronicleQueue queue;
        private ExcerptAppender appender;

        /** JMH instantiates the state. */
        public AppendState() {
        }

        /** Creates the payload, as an array and in a direct buffer. */
        @Setup(Level.Trial)
        public void createPayload() {
            payload = Payloads.create(payloadLength);
            payloadBytes = Bytes.allocateDirect(payloadLength);
            payloadBytes.write(payload);
        }

        /** Releases the direct buffer. */
        @TearDown(Level.Trial)
        public void releasePayload() {
            payloadBytes.releaseLast();
        }

        /** Creates an empty queue and its appender, on the thread that will use it. */
        @Setup(Level.Iteration)
        public void createQueue() {
            directory = BenchmarkDirectory.create("chronicle-append-");
            queue = ChronicleBenchmark.open(directory);
            appender = queue.createAppender();
        }

        /** Closes and deletes the queue. */
        @TearDown(Level.Iteration)
        public void deleteQueue() {
            appender.close();
            queue.close();
            directory.delete();
        }

        void writeBytes() {
            // writes the buffer's readable bytes without moving its read position
            appender.writeBytes(payloadBytes);
        }

        void writingDocument() {
            try (DocumentContext document = appender.writingDocument()) {
                document.wire().bytes().write(payload);
            }
        }

        ChronicleQueue queue() {
            return queue;
        }
    }

    /** A queue pre-filled with {@link Payloads#readSetCount(int)} excerpts, read round and round. */
    @State(Scope.Thread)
    public static class ReadState {
        /** moveToIndex targets, a power of two, as in {@link SpoolBenchmark}. */
        private static final int TARGETS = 4096;

        /** Payload length in bytes. */
        @Param({"32", "256"})
        public int payloadLength;

        private BenchmarkDirectory directory;
        private ChronicleQueue queue;
        private ExcerptAppender appender;
        private ExcerptTailer tailer;
        private Bytes<?> into;
        private byte[] copy;
        private long firstIndex;
        private final long[] targets = new long[TARGETS];
        private int nextTarget;

        /** JMH instantiates the state. */
        public ReadState() {
        }

        /** Creates and fills the queue and opens a tailer at its start. */
        @Setup(Level.Trial)
        public void fillQueue() {
            directory = BenchmarkDirectory.create("chronicle-read-");
            queue = ChronicleBenchmark.open(directory);
            // stays open, as in SpoolBenchmark: a live writer holds the file mapped
            appender = queue.createAppender();
            final Bytes<?> payload = Bytes.allocateDirect(payloadLength);
            try {
                payload.write(Payloads.create(payloadLength));
                final long[] indices = new long[Payloads.readSetCount(payloadLength)];
                for (int i = 0; i < indices.length; i++) {
                    appender.writeBytes(payload);
                    indices[i] = appender.lastIndexAppended();
                }
                firstIndex = indices[0];
                final SplittableRandom random = new SplittableRandom(42);
                for (int i = 0; i < TARGETS; i++) {
                    targets[i] = indices[random.nextInt(indices.length)];
                }
            } finally {
                payload.releaseLast();
            }
            tailer = queue.createTailer();
            into = Bytes.allocateDirect(payloadLength);
            copy = new byte[payloadLength];
        }

        /** Hands the appender and tailer to the thread that runs this iteration. */
        @Setup(Level.Iteration)
        public void adoptThread() {
            appender.singleThreadedCheckReset();
            tailer.singleThreadedCheckReset();
        }

        /** Closes and deletes the queue. */
        @TearDown(Level.Trial)
        public void deleteQueue() {
            into.releaseLast();
            tailer.close();
            appender.close();
            queue.close();
            directory.delete();
        }

        long readBytes() {
            final Bytes<?> into = this.into;
            into.clear();
            if (!tailer.readBytes(into)) {
                // past the last excerpt: start again; once per read set, so it costs nothing per read
                rewind();
                tailer.readBytes(into);
            }
            return into.readRemaining();
        }

        long readingDocument() {
            while (true) {
                try (DocumentContext document = tailer.readingDocument()) {
                    if (document.isPresent()) {
                        final Bytes<?> bytes = document.wire().bytes();
                        bytes.read(copy, 0, (int) bytes.readRemaining());
                        return document.index();
                    }
                }
                rewind();
            }
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
            return copy;
        }

        Bytes<?> lastBytes() {
            return into;
        }
    }

    private static ChronicleQueue open(final BenchmarkDirectory directory) {
        return Payloads.chronicleQueue(directory.path())
                .build();
    }
}
