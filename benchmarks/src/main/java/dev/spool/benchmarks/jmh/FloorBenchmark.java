package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.io.ReferenceOwner;
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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The throughput floor of experiment E4: a bare loop that copies a 4-byte header and the payload into a chunked
 * Chronicle-Bytes {@link MappedFile} and publishes the header with a release store, and one that reads them back.
 * No lock, no index, no roll check: what is left is the memory copy and, for appends, the page faults of a growing
 * file. Spool and Chronicle Queue do all this and more, so their figures are read as multiples of these.
 * <p>
 * Appends go to a new file each iteration, deleted after it: a file that grew for the whole run would fill the
 * disk (at ~25 ns an append, 2 s of 32-byte excerpts is 3 GB). Reads go round a pre-filled set of excerpts, see
 * {@link Payloads#READ_SET_LENGTH}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class FloorBenchmark {
    /** JMH instantiates the benchmark. */
    public FloorBenchmark() {
    }

    /**
     * Copies the payload after a header and publishes the header with a release store.
     *
     * @param state the file being appended to.
     * @return the position of the excerpt written.
     */
    @Benchmark
    public long append(final AppendState state) {
        return state.append();
    }

    /**
     * Reads a header with an acquire load and copies the payload into a byte array.
     *
     * @param state the pre-filled file being read.
     * @return the payload length read.
     */
    @Benchmark
    public int read(final ReadState state) {
        return state.read();
    }

    /** A new, empty mapped file for each iteration. */
    @State(Scope.Thread)
    public static class AppendState {
        /** Payload length in bytes. */
        @Param({"32", "256"})
        public int payloadLength;

        private byte[] payload;
        private BenchmarkDirectory directory;
        private FloorFile file;

        /** JMH instantiates the state. */
        public AppendState() {
        }

        /** Creates the payload. */
        @Setup(Level.Trial)
        public void createPayload() {
            payload = Payloads.create(payloadLength);
        }

        /** Creates and maps an empty file. */
        @Setup(Level.Iteration)
        public void createFile() {
            directory = BenchmarkDirectory.create("floor-append-");
            file = new FloorFile(directory.path().resolve("floor.data"));
        }

        /** Unmaps and deletes the file. */
        @TearDown(Level.Iteration)
        public void deleteFile() {
            file.close();
            directory.delete();
        }

        long append() {
            return file.append(payload);
        }
    }

    /** A mapped file pre-filled with {@link Payloads#readSetCount(int)} excerpts, read round and round. */
    @State(Scope.Thread)
    public static class ReadState {
        /** Payload length in bytes. */
        @Param({"32", "256"})
        public int payloadLength;

        private byte[] copy;
        private BenchmarkDirectory directory;
        private FloorFile file;

        /** JMH instantiates the state. */
        public ReadState() {
        }

        /** Creates, maps and fills the file, then goes back to its start. */
        @Setup(Level.Trial)
        public void fillFile() {
            directory = BenchmarkDirectory.create("floor-read-");
            file = new FloorFile(directory.path().resolve("floor.data"));
            final byte[] payload = Payloads.create(payloadLength);
            for (int i = Payloads.readSetCount(payloadLength); i > 0; i--) {
                file.append(payload);
            }
            file.rewind();
            copy = new byte[payloadLength];
        }

        /** Unmaps and deletes the file. */
        @TearDown(Level.Trial)
        public void deleteFile() {
            file.close();
            directory.delete();
        }

        int read() {
            final int length = file.read(copy);
            if (length >= 0) {
                return length;
            }
            // past the last excerpt: start again; once every READ_SET_LENGTH bytes, so it costs nothing per read
            file.rewind();
            return file.read(copy);
        }

        byte[] lastPayload() {
            return copy;
        }
    }

    /**
     * The floor's file: excerpts of a 4-byte length header and a payload, each starting on an 8-byte boundary as
     * in Spool, so both touch the same pages. One position serves the writer or the reader, never both.
     */
    static final class FloorFile implements ReferenceOwner {
        private final Path path;
        private final MappedFile mappedFile;
        private MappedBytesStore store;
        private long storeStart;
        private long storeSafeLimit;
        private long storeAddress;
        private long position;

        FloorFile(final Path path) {
            this.path = path;
            try {
                mappedFile = MappedFile.of(path.toFile(), Payloads.CHUNK_LENGTH, Payloads.OVERLAP_LENGTH, false);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot map " + path + ": " + e.getMessage(), e);
            }
            map(0);
        }

        /** @return the position the payload was written at. */
        long append(final byte[] payload) {
            final long at = position;
            final long address = address(at);
            final int length = payload.length;
            MEMORY.copyMemory(payload, 0, address + Payloads.HEADER_LENGTH, length);
            // release: a reader that sees the header sees the payload
            MEMORY.writeOrderedInt(address, length);
            position = at + Payloads.alignedLength(length);
            return at;
        }

        /** @return the payload length copied into {@code into}, or -1 past the last excerpt. */
        int read(final byte[] into) {
            final long at = position;
            final long address = address(at);
            // acquire: pairs with the writer's release store of the header
            final int length = MEMORY.readVolatileInt(address);
            if (length == 0) {
                return -1;
            }
            if (length > into.length) {
                throw new IllegalStateException("bad header " + length + " at position=" + at + " in " + path
                        + ": longer than the " + into.length + "-byte payloads written");
            }
            MEMORY.copyMemory(address + Payloads.HEADER_LENGTH, into, Jvm.arrayByteBaseOffset(), length);
            position = at + Payloads.alignedLength(length);
            return length;
        }

        void rewind() {
            position = 0;
        }

        private long address(final long at) {
            if (at >= storeSafeLimit || at < storeStart) {
                // the next chunk: its mapping starts at a multiple of the chunk length and covers the overlap too
                map(at);
            }
            return storeAddress + (at - storeStart);
        }

        private void map(final long at) {
            release();
            try {
                store = mappedFile.acquireByteStore(this, at);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot map position=" + at + " of " + path + ": " + e.getMessage(), e);
            }
            storeStart = store.start();
            storeSafeLimit = store.safeLimit();
            storeAddress = store.addressForWrite(storeStart);
        }

        private void release() {
            if (store != null) {
                final MappedBytesStore released = store;
                store = null;
                storeStart = 0;
                storeSafeLimit = 0;
                released.release(this);
            }
        }

        void close() {
            release();
            mappedFile.releaseLast();
        }
    }
}
