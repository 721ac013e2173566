package dev.spool.queue;

import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.*;

class DamageTest extends SpoolTestBase {

    private Path queueDir() {
        return tempDir.resolve("q");
    }

    private long[] fill(final int count) {
        final long[] indices = new long[count];
        try (SpoolQueue queue = SpoolQueue.builder(queueDir()).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < count; i++) {
                indices[i] = appender.append(new byte[16]);
            }
        }
        return indices;
    }

    private Path onlyCycleFile() throws IOException {
        try (var files = Files.list(queueDir())) {
            return files.filter(f -> f.toString().endsWith(RollCycle.FILE_SUFFIX)).findFirst().orElseThrow();
        }
    }

    private static void writeInt(final Path file, final long position, final int value) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value), position);
        }
    }

    @Test
    void shouldNameFileAndPositionOfACorruptHeader() throws IOException {
        fill(10);
        final Path cycleFile = onlyCycleFile();
        // excerpt 3 of 16 bytes: 24 bytes each; index block of sequence 0 sits after excerpt 0
        final long blockLength = ExcerptDescriptor.alignedLength(CycleDescriptor.blockPayloadLength(SpoolQueueBuilder.DEFAULT_INDEX_BLOCK_ENTRIES));
        final long damaged = CycleDescriptor.DATA_OFFSET + 24 + blockLength + 2 * 24;
        writeInt(cycleFile, damaged, 0x3000_0010);
        try (SpoolQueue queue = SpoolQueue.open(queueDir());
             ExcerptTailer tailer = queue.createTailer()) {
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            for (int i = 0; i < 3; i++) {
                assertTrue(tailer.read(into) >= 0);
            }
            final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> tailer.read(into));
            assertEquals(cycleFile, e.file());
            assertEquals(damaged, e.position());
            assertTrue(e.getMessage().contains("0x30000010") && e.getMessage().contains(cycleFile.toString()), e.getMessage());
            try (ExcerptAppender appender = queue.createAppender()) {
                final CorruptQueueException refused = assertThrows(CorruptQueueException.class, () -> appender.append(new byte[16]),
                        "an appender never writes past damage");
                assertEquals(damaged, refused.position());
            }
        }
    }

    @Test
    void shouldRefuseAMetadataFileWithABadMagic() throws IOException {
        fill(1);
        writeInt(queueDir().resolve(MetadataDescriptor.FILE_NAME), 0, 0x12345678);
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> SpoolQueue.open(queueDir()));
        assertEquals(0, e.position());
        assertTrue(e.getMessage().contains("0x12345678") && e.getMessage().contains(MetadataDescriptor.FILE_NAME), e.getMessage());
    }

    @Test
    void shouldRefuseAQueueCreatedWithAFeatureThisBuildDoesNotKnow() throws IOException {
        fill(1);
        final Path metadata = queueDir().resolve(MetadataDescriptor.FILE_NAME);
        writeInt(metadata, MetadataDescriptor.VERSION_OFFSET, MetadataDescriptor.VERSION_WITH_FEATURES);
        writeInt(metadata, MetadataDescriptor.FEATURES_OFFSET, 0x4000_0000);
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> SpoolQueue.open(queueDir()));
        assertEquals(MetadataDescriptor.FEATURES_OFFSET, e.position());
        assertTrue(e.getMessage().contains("0x40000000") && e.getMessage().contains("newer Spool"), e.getMessage());
    }

    @Test
    void shouldRefuseACycleFileWithABadMagic() throws IOException {
        fill(1);
        final Path cycleFile = onlyCycleFile();
        writeInt(cycleFile, 0, 0x0BADF00D);
        try (SpoolQueue queue = SpoolQueue.open(queueDir())) {
            final CorruptQueueException e = assertThrows(CorruptQueueException.class, queue::createTailer);
            assertEquals(cycleFile, e.file());
            assertTrue(e.getMessage().contains("0x0badf00d"), e.getMessage());
        }
    }

    @Test
    void shouldRefuseATruncatedMetadataFile() throws IOException {
        fill(1);
        try (FileChannel channel = FileChannel.open(queueDir().resolve(MetadataDescriptor.FILE_NAME), StandardOpenOption.WRITE)) {
            channel.truncate(100);
        }
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> SpoolQueue.open(queueDir()));
        assertTrue(e.getMessage().contains("truncated") && e.getMessage().contains("length=100"), e.getMessage());
    }

    @Test
    void shouldRefuseADirectoryThatIsNotAQueue() throws IOException {
        final Path dir = tempDir.resolve("photos");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("holiday.jpg"), "not a queue");
        final SpoolException e = assertThrows(SpoolException.class, () -> SpoolQueue.openOrCreate(dir));
        assertTrue(e.getMessage().contains("not a Spool queue") && e.getMessage().contains("holiday.jpg"), e.getMessage());
        assertFalse(Files.exists(dir.resolve(MetadataDescriptor.FILE_NAME)), "nothing was created there");
    }

    @Test
    void shouldRefuseToCreateWhenAskedToOpenOnly() {
        final SpoolException e = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(tempDir.resolve("absent")).open());
        assertTrue(e.getMessage().contains("no Spool queue at " + tempDir.resolve("absent").toAbsolutePath()), e.getMessage());
    }

    @Test
    void shouldReportABadIndexEntry() throws IOException {
        final long[] indices = fill(200);
        final Path cycleFile = onlyCycleFile();
        final long blockPosition = CycleDescriptor.DATA_OFFSET + 24;
        // entry 2 (sequence 128) points into the middle of nowhere
        final long entry = blockPosition + CycleDescriptor.BLOCK_ENTRIES_OFFSET + 2 * Long.BYTES;
        writeInt(cycleFile, entry, 13);
        try (SpoolQueue queue = SpoolQueue.open(queueDir());
             ExcerptTailer tailer = queue.createTailer()) {
            final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> tailer.moveToIndex(indices[130]));
            assertEquals(entry, e.position());
            assertTrue(tailer.moveToIndex(indices[20]), "the rest of the index still works");
        }
    }

    private static long positionOf(final int n) {
        final long blockLength = ExcerptDescriptor.alignedLength(CycleDescriptor.blockPayloadLength(SpoolQueueBuilder.DEFAULT_INDEX_BLOCK_ENTRIES));
        return n == 0 ? CycleDescriptor.DATA_OFFSET : CycleDescriptor.DATA_OFFSET + 24 + blockLength + (n - 1) * 24L;
    }

    @Test
    void shouldRecoverATornTailWhereTheHeaderReachedTheDiskButTheExcerptsDidNot() throws IOException {
        expectWarning("torn tail");
        final long[] indices = fill(1000);
        final Path cycleFile = onlyCycleFile();
        // as after a power loss: the last 50 excerpts never reached the disk, the header page with its hints did
        try (FileChannel channel = FileChannel.open(cycleFile, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate((int) (positionOf(1000) - positionOf(950))), positionOf(950));
        }
        try (SpoolQueue queue = SpoolQueue.open(queueDir());
             ExcerptTailer tailer = queue.createTailer();
             ExcerptAppender appender = queue.createAppender()) {
            final long next = appender.append(new byte[16]);
            assertEquals(indices[950], next, "the sequence continues from the last excerpt that survived");
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            for (int i = 0; i < 950; i++) {
                assertEquals(indices[i], tailer.read(into));
            }
            assertEquals(next, tailer.read(into), "readers see the new excerpt right after the survivors");
            assertFalse(tailer.moveToIndex(indices[990]), "no index entry points into the lost tail");
            assertEquals(-1, tailer.read(into));
        }
    }

    @Test
    void shouldRefuseATruncatedCycleFileInsteadOfWritingPastTheGap() throws IOException {
        fill(1000);
        final Path cycleFile = onlyCycleFile();
        try (FileChannel channel = FileChannel.open(cycleFile, StandardOpenOption.WRITE)) {
            channel.truncate(positionOf(500));
        }
        try (SpoolQueue queue = SpoolQueue.open(queueDir());
             ExcerptAppender appender = queue.createAppender()) {
            final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> appender.append(new byte[16]));
            assertEquals(cycleFile, e.file());
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
            assertThrows(CorruptQueueException.class, queue::createTailer);
        }
    }
    private static void writeLong(final Path file, final long position, final long value) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value), position);
        }
    }

    @Test
    void shouldThrowNotCrashWhenARootIndexEntryPointsFarOutsideTheFile() throws IOException {
        final long[] indices = fill(200);
        final Path cycleFile = onlyCycleFile();
        // one flipped bit in the root entry of block 0: Chronicle would map chunk 0 for it and read far outside (SIGSEGV)
        writeLong(cycleFile, CycleDescriptor.rootEntryPosition(0), (1L << 62) | (CycleDescriptor.DATA_OFFSET + 24));
        try (SpoolQueue queue = SpoolQueue.open(queueDir());
             ExcerptTailer tailer = queue.createTailer()) {
            final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> tailer.moveToIndex(indices[100]));
            assertEquals(CycleDescriptor.rootEntryPosition(0), e.position());
            assertThrows(CorruptQueueException.class, () -> tailer.direction(Direction.BACKWARD).toEnd());
        }
    }

    @Test
    void shouldReportAHeaderDamagedToInProgressInTheMiddleRatherThanEndTheQueueThere() throws IOException {
        final long[] indices = fill(1000);
        final Path cycleFile = onlyCycleFile();
        // after the last index entry (sequence 960): in the window the next writer walks, where a torn tail would be
        writeInt(cycleFile, positionOf(990), ExcerptDescriptor.IN_PROGRESS_FLAG | 16);
        try (SpoolQueue queue = SpoolQueue.open(queueDir());
             ExcerptTailer tailer = queue.createTailer()) {
            try (ExcerptAppender appender = queue.createAppender()) {
                final CorruptQueueException refused = assertThrows(CorruptQueueException.class, () -> appender.append(new byte[16]),
                        "not a torn tail to write over: the 9 excerpts after it would be lost");
                assertEquals(positionOf(990), refused.position());
                assertThrows(CorruptQueueException.class, () -> appender.append(new byte[16]), "and refused again");
            }
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            for (int i = 0; i < 990; i++) {
                assertEquals(indices[i], tailer.read(into));
            }
            final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> tailer.read(into),
                    "not the end of the queue: 9 excerpts follow");
            assertEquals(positionOf(990), e.position());
            assertThrows(CorruptQueueException.class, () -> tailer.moveToIndex(indices[995]));
        }
    }

    @Test
    void shouldStopAWalkThatADamagedLengthSentAstrayAtTheNextIndexEntry() throws IOException {
        final long[] indices = fill(300);
        final Path cycleFile = onlyCycleFile();
        // excerpt 130 claims 24 bytes instead of 16: the walk lands 8 bytes into excerpt 131
        writeInt(cycleFile, positionOf(130), 24);
        try (SpoolQueue queue = SpoolQueue.open(queueDir());
             ExcerptTailer tailer = queue.createTailer()) {
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            long last = -1;
            try {
                while (true) {
                    into.clear();
                    last = tailer.read(into);
                    assertTrue(last >= 0, "the read never ends quietly");
                }
            } catch (CorruptQueueException e) {
                assertTrue(e.getMessage().contains(cycleFile.toString()), e.getMessage());
            }
            assertTrue(last < indices[192], "stopped by the index entry of sequence 192 at the latest: " + Long.toHexString(last));
        }
    }

    @Test
    void shouldRefuseToAppendAfterADamagedSequenceHint() throws IOException {
        fill(100);
        final Path cycleFile = onlyCycleFile();
        writeLong(cycleFile, CycleDescriptor.WRITE_SEQUENCE_OFFSET, 1L << 63 | 100);
        try (SpoolQueue queue = SpoolQueue.open(queueDir());
             ExcerptAppender appender = queue.createAppender()) {
            final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> appender.append(new byte[16]));
            assertEquals(CycleDescriptor.WRITE_SEQUENCE_OFFSET, e.position());
        }
    }

    @Test
    void shouldRefuseToOpenWhenTheMetadataNoLongerNamesTheCycleFiles() throws IOException {
        fill(10);
        final Path metadata = queueDir().resolve(MetadataDescriptor.FILE_NAME);
        writeInt(metadata, MetadataDescriptor.ROLL_CYCLE_OFFSET, RollCycle.MINUTELY.id());
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> SpoolQueue.open(queueDir()),
                "the queue would look empty");
        assertEquals(MetadataDescriptor.ROLL_CYCLE_OFFSET, e.position());
        assertTrue(e.getMessage().contains(onlyCycleFile().getFileName().toString()), e.getMessage());
    }

    @Test
    void shouldRefuseToOpenWhenAFilePastTheHighestCycleHoldsExcerpts() throws IOException {
        fill(10);
        final Path metadata = queueDir().resolve(MetadataDescriptor.FILE_NAME);
        final long highest;
        try (SpoolQueue queue = SpoolQueue.open(queueDir())) {
            highest = queue.cycles()[0];
        }
        writeLong(metadata, MetadataDescriptor.HIGHEST_CYCLE_OFFSET, highest - 1);
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> SpoolQueue.open(queueDir()),
                "readers would stop before that cycle");
        assertEquals(MetadataDescriptor.HIGHEST_CYCLE_OFFSET, e.position());
    }
}
