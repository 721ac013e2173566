package dev.spool.queue;

import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.internal.QueueInternals;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CRC32C per excerpt of a queue created with {@link SpoolQueueBuilder#checksums(boolean)}: its bytes on disk,
 * the readers' checks, the option to skip them, the body path of the replica and the drainer, and no allocation.
 */
class ChecksumTest extends SpoolTestBase {
    private static final long CHUNK = 1 << 20;

    private SpoolQueue open(final Path directory, final boolean checksums) {
        return SpoolQueue.builder(directory).chunkLength(CHUNK).indexSpacing(4).checksums(checksums).openOrCreate();
    }

    private static byte[] message(final int i) {
        final byte[] message = new byte[5 + i % 40];
        for (int b = 0; b < message.length; b++) {
            message[b] = (byte) (i * 31 + b);
        }
        return message;
    }

    private static int crc(final byte[] bytes) {
        final CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (int) crc.getValue();
    }

    private static Path cycleFile(final Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.filter(f -> f.toString().endsWith(".cycle")).findFirst().orElseThrow();
        }
    }

    private static ByteBuffer readFile(final Path file) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Flips one bit of the payload of the excerpt {@code skip} data excerpts from the start of the cycle file. */
    private static long flipPayloadBit(final Path file, final int skip, final int payloadByte) throws IOException {
        final ByteBuffer bytes = readFile(file);
        long position = CycleDescriptor.DATA_OFFSET;
        int seen = 0;
        while (true) {
            final int header = bytes.getInt((int) position);
            if (ExcerptDescriptor.isData(header) && seen++ == skip) {
                break;
            }
            position += ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(header));
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            final long at = position + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET + payloadByte;
            raf.seek(at);
            final int old = raf.read();
            raf.seek(at);
            raf.write(old ^ 0x10);
        }
        return position;
    }

    @Test
    void shouldStoreTheCrc32cBeforeThePayloadAndCountItInTheHeaderLength() throws IOException {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = open(directory, true); ExcerptAppender appender = queue.createAppender()) {
            assertTrue(queue.checksums());
            appender.append(message(3));
        }
        final ByteBuffer metadata = readFile(directory.resolve(MetadataDescriptor.FILE_NAME));
        assertEquals(MetadataDescriptor.VERSION_WITH_FEATURES, metadata.getInt(MetadataDescriptor.VERSION_OFFSET));
        assertEquals(MetadataDescriptor.FEATURE_CRC32C, metadata.getInt(MetadataDescriptor.FEATURES_OFFSET));
        final ByteBuffer cycle = readFile(cycleFile(directory));
        final int at = CycleDescriptor.DATA_OFFSET;
        final byte[] expected = message(3);
        assertEquals(ExcerptDescriptor.CHECKSUM_LENGTH + expected.length, cycle.getInt(at));
        assertEquals(crc(expected), cycle.getInt(at + ExcerptDescriptor.CHECKSUM_OFFSET));
        final byte[] payload = new byte[expected.length];
        cycle.get(at + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET, payload);
        assertArrayEquals(expected, payload);
    }

    @Test
    void shouldWriteAQueueWithoutChecksumsAsBefore() throws IOException {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = open(directory, false); ExcerptAppender appender = queue.createAppender()) {
            assertFalse(queue.checksums());
            appender.append(message(3));
        }
        final ByteBuffer metadata = readFile(directory.resolve(MetadataDescriptor.FILE_NAME));
        assertEquals(MetadataDescriptor.VERSION, metadata.getInt(MetadataDescriptor.VERSION_OFFSET));
        assertEquals(0, metadata.getInt(MetadataDescriptor.FEATURES_OFFSET));
        final ByteBuffer cycle = readFile(cycleFile(directory));
        assertEquals(message(3).length, cycle.getInt(CycleDescriptor.DATA_OFFSET));
        final byte[] payload = new byte[message(3).length];
        cycle.get(CycleDescriptor.DATA_OFFSET + ExcerptDescriptor.HEADER_LENGTH, payload);
        assertArrayEquals(message(3), payload);
    }

    @Test
    void shouldReadBackEveryPayloadWrittenByEachAppendPath() {
        try (SpoolQueue queue = open(tempDir.resolve("q"), true); ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appender.append(message(0));
            appender.append(ByteBuffer.wrap(message(1)));
            final BytesStore<?, ?> direct = BytesStore.nativeStoreFrom(message(2));
            try {
                appender.append(direct, direct.start(), message(2).length);
            } finally {
                direct.releaseLast();
            }
            final long at = appender.claim(100);
            appender.claimedBytes().write(at, message(3));
            appender.commit(message(3).length);
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            for (int i = 0; i < 4; i++) {
                into.clear();
                assertTrue(tailer.read(into) >= 0);
                assertArrayEquals(message(i), into.toByteArray(), "excerpt " + i);
            }
            assertEquals(-1, tailer.read(into));
        }
    }

    @Test
    void shouldReportAFlippedPayloadBitReadForwardBackwardOrByIndexNamingFilePositionIndexExpectedAndFound() throws IOException {
        final Path directory = tempDir.resolve("q");
        final long[] indices = new long[10];
        try (SpoolQueue queue = open(directory, true); ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < indices.length; i++) {
                indices[i] = appender.append(message(i));
            }
        }
        final Path file = cycleFile(directory);
        final long position = flipPayloadBit(file, 6, 2);
        final byte[] original = message(6);
        try (SpoolQueue queue = open(directory, true)) {
            final String expected = String.format("0x%08x", crc(original));
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            try (ExcerptTailer forward = queue.createTailer()) {
                for (int i = 0; i < 6; i++) {
                    assertEquals(indices[i], forward.read(into));
                }
                assertMismatch(assertThrows(CorruptQueueException.class, () -> forward.read(into)), file, position,
                        indices[6], expected);
            }
            try (ExcerptTailer backward = queue.createTailer().direction(Direction.BACKWARD).toEnd()) {
                for (int i = 9; i > 6; i--) {
                    assertEquals(indices[i], backward.read(into));
                }
                assertMismatch(assertThrows(CorruptQueueException.class, () -> backward.read((b, o, l, x) -> { })),
                        file, position, indices[6], expected);
            }
            try (ExcerptTailer byIndex = queue.createTailer()) {
                assertTrue(byIndex.moveToIndex(indices[6]));
                assertMismatch(assertThrows(CorruptQueueException.class, () -> byIndex.read(into)), file, position,
                        indices[6], expected);
                assertTrue(byIndex.moveToIndex(indices[7]));
                into.clear();
                assertEquals(indices[7], byIndex.read(into));
                assertArrayEquals(message(7), into.toByteArray());
            }
        }
    }

    private static void assertMismatch(final CorruptQueueException e, final Path file, final long position,
                                       final long index, final String expected) {
        assertEquals(file.toAbsolutePath().normalize(), e.file().toAbsolutePath().normalize());
        assertEquals(position, e.position());
        final String message = e.getMessage();
        assertTrue(message.contains("CRC32C mismatch in the excerpt of index 0x"
                + Long.toHexString(index) + " (cycle "), message);
        assertTrue(message.contains("expected " + expected), message);
        assertTrue(message.contains("found 0x"), message);
        assertTrue(message.contains(file.getFileName().toString()), message);
    }

    @Test
    void shouldReportAnIndexEntryMovedToAnotherExcerptInsteadOfReadingItUnderTheWrongIndex() throws IOException {
        final Path directory = tempDir.resolve("q");
        final long[] indices = new long[16];
        try (SpoolQueue queue = open(directory, true); ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < indices.length; i++) {
                indices[i] = appender.append(message(i));
            }
        }
        // with index spacing 4, entry 2 points at sequence 8: make it point at sequence 9, a good excerpt
        final Path file = cycleFile(directory);
        final ByteBuffer bytes = readFile(file);
        final long block = bytes.getLong((int) CycleDescriptor.rootEntryPosition(0));
        final int entryPosition = (int) CycleDescriptor.indexEntryPosition(block, 2);
        final long eighth = bytes.getLong(entryPosition);
        final long ninth = eighth + ExcerptDescriptor.alignedLength(bytes.getInt((int) eighth));
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(entryPosition);
            raf.write(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, ninth).array());
        }
        try (SpoolQueue queue = open(directory, true); ExcerptTailer tailer = queue.createTailer()) {
            final CorruptQueueException e = assertThrows(CorruptQueueException.class,
                    () -> tailer.moveToIndex(indices[9]));
            assertEquals(entryPosition, e.position(), e.getMessage());
            assertTrue(e.getMessage().contains("bad index entry"), e.getMessage());
            assertTrue(tailer.moveToIndex(indices[3]));
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(indices[3], tailer.read(into));
            assertArrayEquals(message(3), into.toByteArray());
        }
    }

    private static String[] tool(final String... args) {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        final int status;
        try (java.io.PrintStream print = new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8)) {
            status = dev.spool.queue.tools.SpoolTool.run(args, print, print);
        }
        return new String[]{String.valueOf(status), out.toString(java.nio.charset.StandardCharsets.UTF_8)};
    }

    @Test
    void shouldMakeVerifyReportEveryMismatchWithFilePositionAndIndexAndDumpShowIt() throws IOException {
        final Path directory = tempDir.resolve("q");
        final long[] indices = new long[12];
        try (SpoolQueue queue = open(directory, true); ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < indices.length; i++) {
                indices[i] = appender.append(message(i));
            }
        }
        final String[] healthy = tool("verify", directory.toString());
        assertEquals("0", healthy[0], healthy[1]);
        final Path file = cycleFile(directory);
        final long first = flipPayloadBit(file, 3, 0);
        final long second = flipPayloadBit(file, 9, 4);
        final String[] verify = tool("verify", directory.toString());
        assertEquals(String.valueOf(dev.spool.queue.tools.SpoolTool.EXIT_FAILED), verify[0], verify[1]);
        for (final long[] damaged : new long[][]{{first, indices[3]}, {second, indices[9]}}) {
            assertTrue(verify[1].contains("CRC32C mismatch in the excerpt of index 0x"
                + Long.toHexString(damaged[1]) + " (cycle "), verify[1]);
            assertTrue(verify[1].contains("position=" + damaged[0]), verify[1]);
        }
        assertTrue(verify[1].contains(file.getFileName().toString()), verify[1]);
        assertTrue(verify[1].contains("DAMAGED: 2 problems"), verify[1]);
        final String[] dump = tool("dump", directory.toString());
        assertTrue(dump[1].contains("crc32c=0x"), dump[1]);
        assertTrue(dump[1].contains(String.format("crc32c=0x%08x ok", crc(message(0)))), dump[1]);
        assertEquals(2, dump[1].split("MISMATCH", -1).length - 1, dump[1]);
    }

    @Test
    void shouldSkipTheCheckWhenTheInstanceIsOpenedWithoutVerifying() throws IOException {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = open(directory, true); ExcerptAppender appender = queue.createAppender()) {
            appender.append(message(0));
        }
        flipPayloadBit(cycleFile(directory), 0, 0);
        try (SpoolQueue queue = SpoolQueue.builder(directory).verifyChecksums(false).openOrCreate();
             ExcerptTailer tailer = queue.createTailer()) {
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(0, tailer.read(into) & 0xFFFF);
            assertEquals(message(0).length, into.readRemaining());
        }
    }

    @Test
    void shouldAdoptThePersistedChoiceAndRefuseADifferentOne() {
        final Path directory = tempDir.resolve("q");
        open(directory, true).close();
        try (SpoolQueue queue = SpoolQueue.builder(directory).openOrCreate()) {
            assertTrue(queue.checksums());
        }
        final SpoolException e = assertThrows(SpoolException.class, () -> open(directory, false));
        assertTrue(e.getMessage().contains("checksums"), e.getMessage());
    }

    @Test
    void shouldCopyBodiesVerbatimSoTheCopyHoldsTheSameBytesAndRefuseADamagedBody() throws IOException {
        final Path primaryDirectory = tempDir.resolve("primary");
        final Path copyDirectory = tempDir.resolve("copy");
        try (SpoolQueue primary = open(primaryDirectory, true); SpoolQueue copy = open(copyDirectory, true);
             ExcerptAppender appender = primary.createAppender()) {
            for (int i = 0; i < 20; i++) {
                appender.append(message(i));
            }
            final QueueInternals internals = copy.unwrap(QueueInternals.class);
            try (ExcerptTailer bodies = primary.unwrap(QueueInternals.class).createBodyTailer();
                 IndexedAppender writer = internals.createIndexedAppender()) {
                while (bodies.read((bytes, offset, length, index) -> writer.appendBodyAt(index, bytes, offset, length))) {
                    // copies one body a read
                }
                final BytesStore<?, ?> damaged = BytesStore.nativeStoreWithFixedCapacity(16);
                try {
                    damaged.writeInt(0, crc(message(1)));
                    damaged.write(4, message(2), 0, 5);
                    final long next = copy.lastIndex() + 1;
                    final SpoolException e = assertThrows(SpoolException.class,
                            () -> writer.appendBodyAt(next, damaged, damaged.start(), 9));
                    assertTrue(e.getMessage().contains("index 0x" + Long.toHexString(next) + " (cycle "), e.getMessage());
                    assertEquals(next - 1, copy.lastIndex());
                } finally {
                    damaged.releaseLast();
                }
            }
        }
        assertArrayEquals(Files.readAllBytes(cycleFile(primaryDirectory)), Files.readAllBytes(cycleFile(copyDirectory)));
    }

    @Test
    void shouldAllocateNothingWhenAppendingAndReadingWithChecksums() {
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // one 64 MiB chunk holds every excerpt: mapping the next chunk is not the append path's cost
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).checksums(true).openOrCreate();
             ExcerptAppender appender = queue.createAppender(); ExcerptTailer tailer = queue.createTailer()) {
            final byte[] message = new byte[256];
            final long[] sum = {0};
            final ExcerptHandler handler = (bytes, offset, length, index) -> sum[0] += bytes.readByte(offset) + length;
            for (int i = 0; i < 20_000; i++) {
                appender.append(message);
                tailer.read(handler);
            }
            // the least of a few rounds: on a loaded machine a round may still run code the JIT has not finished
            // compiling, whose allocations escape analysis later removes; a per-excerpt allocation shows in every one
            long allocated = Long.MAX_VALUE;
            for (int round = 0; round < 5 && allocated >= 1024; round++) {
                final long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 20_000; i++) {
                    message[0] = (byte) i;
                    appender.append(message);
                    tailer.read(handler);
                }
                allocated = Math.min(allocated, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(allocated < 1024, "appending and reading 20,000 checksummed excerpts allocated at least "
                    + allocated + " bytes in each of 5 rounds");
            assertTrue(sum[0] != 0);
        }
    }
}
