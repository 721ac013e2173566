package dev.spool.queue.tools;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

class SpoolToolTest extends SpoolTestBase {
    /** 2024-01-01T00:00Z: a cycle boundary of every roll cycle but WEEKLY. */
    private static final long START_MILLIS = 1_704_067_200_000L;
    private static final long HOUR = 3_600_000L;

    private final AtomicLong now = new AtomicLong(START_MILLIS);

    private Path dir() {
        return tempDir.resolve("q");
    }

    private SpoolQueueBuilder builder() {
        return SpoolQueue.builder(dir()).chunkLength(1 << 20).rollCycle(RollCycle.HOURLY).epochClock(now::get);
    }

    private SpoolQueue open() {
        return builder().openOrCreate();
    }

    /** Appends {@code perCycle} text excerpts in each of {@code cycles} consecutive hours. */
    private List<Long> fill(final SpoolQueueBuilder builder, final int cycles, final int perCycle) {
        final List<Long> indices = new ArrayList<>();
        try (SpoolQueue queue = builder.openOrCreate(); ExcerptAppender appender = queue.createAppender()) {
            for (int cycle = 0; cycle < cycles; cycle++) {
                for (int i = 0; i < perCycle; i++) {
                    indices.add(appender.append(("c" + cycle + "-m" + i).getBytes(StandardCharsets.UTF_8)));
                }
                now.addAndGet(HOUR);
            }
        }
        return indices;
    }

    /** @return the header position of each excerpt of the queue, in index order, as the tailer finds them. */
    private List<Long> headerPositions() {
        final List<Long> positions = new ArrayList<>();
        try (SpoolQueue queue = open(); ExcerptTailer tailer = queue.createTailer()) {
            while (tailer.read((bytes, offset, length, index) -> positions.add(offset - ExcerptDescriptor.HEADER_LENGTH))) {
                assertTrue(positions.size() < 1_000_000);
            }
        }
        return positions;
    }

    private List<Path> cycleFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir())) {
            return files.filter(f -> f.toString().endsWith(RollCycle.FILE_SUFFIX)).sorted().toList();
        }
    }

    private static int readInt(final Path file, final long position) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final ByteBuffer buffer = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(buffer, position);
            return buffer.getInt(0);
        }
    }

    private static long readLong(final Path file, final long position) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final ByteBuffer buffer = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(buffer, position);
            return buffer.getLong(0);
        }
    }

    private static void writeInt(final Path file, final long position, final int value) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value), position);
        }
    }

    private static void writeLong(final Path file, final long position, final long value) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value), position);
        }
    }

    private static void assertDamage(final ToolRun result, final Path file, final long position) {
        assertEquals(SpoolTool.EXIT_FAILED, result.status(), result.out());
        final String expected = "DAMAGE " + file + " position=" + position + ": ";
        assertTrue(result.out().contains(expected), "expected '" + expected + "' in:\n" + result.out());
    }

    private static void assertNoProblems(final ToolRun result) {
        assertEquals(SpoolTool.EXIT_OK, result.status(), result.out() + result.err());
        assertFalse(result.out().contains("DAMAGE"), result.out());
        assertFalse(result.out().contains("WARNING"), result.out());
    }

    @Test
    void shouldPassVerifyOnHealthyRolledQueue() {
        fill(builder(), 3, 100);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertNoProblems(result);
        assertTrue(result.out().contains("OK: 3 cycles, 300 excerpts"), result.out());
    }

    @Test
    void shouldPassVerifyWithManyIndexBlocksAndEntries() {
        fill(builder().indexSpacing(8).indexBlockEntries(8), 2, 1000);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertNoProblems(result);
        assertTrue(result.out().contains("OK: 2 cycles, 2000 excerpts"), result.out());
    }

    @Test
    void shouldPassVerifyOnQueueWithoutCycles() {
        open().close();
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertNoProblems(result);
        assertTrue(result.out().contains("OK: 0 cycles, 0 excerpts"), result.out());
    }

    @Test
    void shouldReportExactPositionOfCorruptHeader() throws IOException {
        fill(builder(), 2, 100);
        final long position = headerPositions().get(150);
        final Path file = cycleFiles().get(1);
        writeInt(file, position, readInt(file, position) | ExcerptDescriptor.END_OF_CYCLE_FLAG);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, position);
        assertTrue(result.out().contains("malformed header"), result.out());
    }

    @Test
    void shouldReportIndexEntryThatPointsAtTheWrongExcerpt() throws IOException {
        fill(builder(), 1, 200);
        final List<Long> positions = headerPositions();
        final Path file = cycleFiles().get(0);
        final long block = readLong(file, CycleDescriptor.rootEntryPosition(0));
        final long entry = block + CycleDescriptor.BLOCK_ENTRIES_OFFSET + Long.BYTES;
        assertEquals(positions.get(64), readLong(file, entry), "entry 1 indexes sequence 64");
        writeLong(file, entry, positions.get(65));
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, entry);
        assertTrue(result.out().contains("index entry 1 (sequence 64) = " + positions.get(65) + ", but that sequence is at position="
                + positions.get(64)), result.out());
    }

    @Test
    void shouldReportIndexEntryOfASequenceNotWritten() throws IOException {
        fill(builder(), 1, 100);
        final Path file = cycleFiles().get(0);
        final long entry = readLong(file, CycleDescriptor.rootEntryPosition(0)) + CycleDescriptor.BLOCK_ENTRIES_OFFSET + 2 * Long.BYTES;
        writeLong(file, entry, readLong(file, CycleDescriptor.WRITE_POSITION_OFFSET) + 1024);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, entry);
        assertTrue(result.out().contains("index entry 2 (sequence 128) = "), result.out());
        assertTrue(result.out().contains("but the cycle holds only 100 data excerpts"), result.out());
    }

    @Test
    void shouldReportEmptyIndexEntryBeforeAWrittenOne() throws IOException {
        fill(builder().indexSpacing(8).indexBlockEntries(8), 1, 100);
        final Path file = cycleFiles().get(0);
        final long entry = readLong(file, CycleDescriptor.rootEntryPosition(0)) + CycleDescriptor.BLOCK_ENTRIES_OFFSET + 3 * Long.BYTES;
        writeLong(file, entry, 0);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, entry);
        assertTrue(result.out().contains("entries are written in order"), result.out());
    }

    @Test
    void shouldReportRootEntryThatPointsAtNoIndexBlock() throws IOException {
        fill(builder().indexSpacing(8).indexBlockEntries(8), 1, 100);
        final Path file = cycleFiles().get(0);
        final long root = CycleDescriptor.rootEntryPosition(1);
        writeLong(file, root, readLong(file, root) + ExcerptDescriptor.ALIGNMENT);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, root);
        assertTrue(result.out().contains("no index-block excerpt starts there"), result.out());
    }

    @Test
    void shouldWarnButPassWhenTrailingIndexEntriesAreNotWrittenYet() throws IOException {
        fill(builder(), 1, 100);
        final Path file = cycleFiles().get(0);
        final long entry = readLong(file, CycleDescriptor.rootEntryPosition(0)) + CycleDescriptor.BLOCK_ENTRIES_OFFSET + Long.BYTES;
        writeLong(file, entry, 0);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertEquals(SpoolTool.EXIT_OK, result.status(), result.out());
        assertTrue(result.out().contains("WARNING " + file + " position=" + entry + ": index entries 1 to 1"), result.out());
        assertTrue(result.out().contains("OK: 1 cycles, 100 excerpts"), result.out());
    }

    @Test
    void shouldReportCorruptCycleMagic() throws IOException {
        fill(builder(), 3, 10);
        final Path file = cycleFiles().get(1);
        writeInt(file, CycleDescriptor.MAGIC_OFFSET, 0x12345678);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, CycleDescriptor.MAGIC_OFFSET);
        assertTrue(result.out().contains("not a Spool cycle file: magic=0x12345678"), result.out());
    }

    @Test
    void shouldReportCorruptMetadataMagic() throws IOException {
        fill(builder(), 1, 10);
        final Path metadata = dir().resolve(MetadataDescriptor.FILE_NAME);
        writeInt(metadata, MetadataDescriptor.MAGIC_OFFSET, 0);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, metadata, MetadataDescriptor.MAGIC_OFFSET);
        assertTrue(result.out().contains("not a Spool metadata file: magic=0x00000000"), result.out());
    }

    @Test
    void shouldReportCycleFileWhoseHeaderNamesAnotherCycle() throws IOException {
        fill(builder(), 2, 10);
        final Path file = cycleFiles().get(1);
        writeLong(file, CycleDescriptor.CYCLE_OFFSET, readLong(file, CycleDescriptor.CYCLE_OFFSET) + 1);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, CycleDescriptor.CYCLE_OFFSET);
    }

    @Test
    void shouldReportCycleFileTruncatedInsideAnExcerpt() throws IOException {
        fill(builder(), 2, 100);
        final long position = headerPositions().get(50);
        final Path file = cycleFiles().get(0);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(position + ExcerptDescriptor.HEADER_LENGTH + 2);
        }
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, position);
        assertTrue(result.out().contains("past the end of the file (length=" + (position + 6) + ")"), result.out());
    }

    @Test
    void shouldReportCycleFileTruncatedAtAnExcerptBoundary() throws IOException {
        fill(builder(), 2, 100);
        final long position = headerPositions().get(50);
        final Path file = cycleFiles().get(0);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(position);
        }
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, position);
        assertTrue(result.out().contains("where the next excerpt header should be: truncated"), result.out());
    }

    @Test
    void shouldReportCycleFileTruncatedInsideItsHeader() throws IOException {
        fill(builder(), 2, 10);
        final Path file = cycleFiles().get(1);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(100);
        }
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, 100);
        assertTrue(result.out().contains("cycle file truncated: length=100"), result.out());
    }

    @Test
    void shouldWarnButPassOnTornTail() throws IOException {
        fill(builder(), 2, 10);
        final Path file = cycleFiles().get(1);
        final long tail = readLong(file, CycleDescriptor.WRITE_POSITION_OFFSET);
        // what a writer that died between claim and commit leaves
        writeInt(file, tail, ExcerptDescriptor.IN_PROGRESS_FLAG | 100);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertEquals(SpoolTool.EXIT_OK, result.status(), result.out());
        assertTrue(result.out().contains("WARNING " + file + " position=" + tail + ": torn tail"), result.out());
        assertTrue(result.out().contains("OK: 2 cycles, 20 excerpts"), result.out());
    }

    @Test
    void shouldReportWritePositionHintPastTheLastExcerpt() throws IOException {
        fill(builder(), 1, 10);
        final Path file = cycleFiles().get(0);
        writeLong(file, CycleDescriptor.WRITE_POSITION_OFFSET, readLong(file, CycleDescriptor.WRITE_POSITION_OFFSET) + 64);
        assertDamage(ToolRun.of("verify", dir().toString()), file, CycleDescriptor.WRITE_POSITION_OFFSET);
    }

    @Test
    void shouldReportExcerptsHiddenBehindAnEmptyOne() throws IOException {
        fill(builder(), 1, 10);
        final Path file = cycleFiles().get(0);
        final long tail = readLong(file, CycleDescriptor.WRITE_POSITION_OFFSET);
        // what appending an empty payload used to leave: header 0, then the writer carrying on 8 bytes later
        final long next = tail + ExcerptDescriptor.ALIGNMENT;
        writeInt(file, next, 1);
        writeInt(file, next + ExcerptDescriptor.HEADER_LENGTH, 'x');
        writeLong(file, CycleDescriptor.WRITE_POSITION_OFFSET, next + ExcerptDescriptor.alignedLength(1));
        writeLong(file, CycleDescriptor.WRITE_SEQUENCE_OFFSET, 12);
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, file, tail);
        assertTrue(result.out().contains("an empty excerpt (length 0) was appended here"), result.out());
    }

    @Test
    void shouldReportCycleFilePastTheHighestCycleThatHoldsExcerpts() throws IOException {
        fill(builder(), 2, 10);
        final Path metadata = dir().resolve(MetadataDescriptor.FILE_NAME);
        writeLong(metadata, MetadataDescriptor.HIGHEST_CYCLE_OFFSET, readLong(metadata, MetadataDescriptor.LOWEST_CYCLE_OFFSET));
        final ToolRun result = ToolRun.of("verify", dir().toString());
        assertDamage(result, metadata, MetadataDescriptor.HIGHEST_CYCLE_OFFSET);
        assertTrue(result.out().contains("tailers stop before it"), result.out());
    }

    @Test
    void shouldFindNoDamageInAQueueBeingAppendedTo() throws Exception {
        fill(builder().indexSpacing(1).indexBlockEntries(8), 1, 1);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger appended = new AtomicInteger();
        final Thread writer = new Thread(() -> {
            try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender()) {
                final byte[] payload = new byte[200];
                while (!stop.get() && appended.get() < 60_000) {
                    appender.append(payload);
                    if (appended.incrementAndGet() % 5_000 == 0) {
                        now.addAndGet(HOUR);
                    }
                }
            }
        }, "writer");
        writer.start();
        try {
            // while the writer grows files past their first chunk, allocates index blocks and rolls cycles
            for (int round = 0; round < 10 || writer.isAlive(); round++) {
                final ToolRun result = ToolRun.of("verify", dir().toString());
                assertFalse(result.out().contains("DAMAGE"), "round " + round + ":\n" + result.out());
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertNoProblems(ToolRun.of("verify", dir().toString()));
    }

    @Test
    void shouldNeverFailOnDamagedBytesAnywhere() throws IOException {
        fill(builder().indexSpacing(4).indexBlockEntries(8), 2, 60);
        final List<Path> files = new ArrayList<>(cycleFiles());
        files.add(dir().resolve(MetadataDescriptor.FILE_NAME));
        final Random random = new Random(42);
        final AtomicInteger damaged = new AtomicInteger();
        for (int round = 0; round < 200; round++) {
            final Path file = files.get(random.nextInt(files.size()));
            final byte[] original = Files.readAllBytes(file);
            final int length = file.getFileName().toString().equals(MetadataDescriptor.FILE_NAME) ? 400
                    : (int) readLong(file, CycleDescriptor.WRITE_POSITION_OFFSET) + 64;
            final byte[] damagedBytes = original.clone();
            if (round % 10 == 9) {
                Files.write(file, java.util.Arrays.copyOf(original, random.nextInt(length)));
            } else {
                for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                    // most bytes that matter are in the first page and the data area; the root index is in between
                    final int at = random.nextBoolean() ? random.nextInt(128) : random.nextBoolean()
                            ? CycleDescriptor.ROOT_OFFSET + random.nextInt(64)
                            : Math.max(0, length - 1 - random.nextInt(Math.min(length, 4096)));
                    damagedBytes[at] ^= (byte) (1 << random.nextInt(8));
                }
                Files.write(file, damagedBytes);
            }
            for (final String command : new String[]{"verify", "dump", "stats"}) {
                final ToolRun result = ToolRun.of(command, dir().toString());
                assertTrue(result.status() == SpoolTool.EXIT_OK || result.status() == SpoolTool.EXIT_FAILED,
                        command + " round " + round + ": " + result.err());
                if (command.equals("verify") && result.status() == SpoolTool.EXIT_FAILED) {
                    damaged.incrementAndGet();
                }
            }
            Files.write(file, original);
        }
        assertTrue(damaged.get() > 60, "most rounds damage something verify sees: " + damaged.get());
        assertNoProblems(ToolRun.of("verify", dir().toString()));
    }

    @Test
    void shouldDumpMetadataCycleHeadersAndExcerpts() {
        final List<Long> indices = fill(builder(), 2, 100);
        try (SpoolQueue queue = open(); ExcerptTailer tailer = queue.createTailer("audit")) {
            for (int i = 0; i < 3; i++) {
                assertTrue(tailer.read((bytes, offset, length, index) -> { }));
            }
        }
        final ToolRun result = ToolRun.of("dump", dir().toString());
        assertEquals(SpoolTool.EXIT_OK, result.status(), result.err());
        final String out = result.out();
        assertTrue(out.contains("  roll cycle           HOURLY (id 3)"), out);
        assertTrue(out.contains("  index spacing        64"), out);
        assertTrue(out.contains("  highest cycle        " + RollCycle.HOURLY.toCycle(indices.get(199)) + " (20240101-01.cycle)"), out);
        assertTrue(out.contains("  queue id             "), out);
        assertTrue(out.contains("'audit' last read index=" + IndexFormat.format(indices.get(2), RollCycle.HOURLY)), out);
        assertTrue(out.contains("cycle file " + dir().resolve("20240101-00.cycle") + " cycle="), out);
        assertTrue(out.contains("header magic=0x434c5053 version=1"), out);
        assertTrue(out.contains("root index: 1 block: 0=" + (CycleDescriptor.DATA_OFFSET + 16)), out);
        assertTrue(out.contains("  position=" + CycleDescriptor.DATA_OFFSET + " header=0x00000005 data index=" + IndexFormat.format(indices.get(0), RollCycle.HOURLY)
                + " length=5"), out);
        assertTrue(IndexFormat.format(indices.get(0), RollCycle.HOURLY).endsWith(" seq 0)"), "the first of its cycle");
        assertTrue(out.contains("    0000  63 30 2d 6d 30                                    |c0-m0|"), out);
        assertTrue(out.contains("metadata index-block block=0 length=" + CycleDescriptor.blockPayloadLength(8192)), out);
        assertTrue(out.contains("end-of-cycle: the cycle has ended"), out);
        assertTrue(out.contains("empty: end of the excerpts"), out);
    }

    @Test
    void shouldDumpFromAnIndexUpToALimit() {
        final List<Long> indices = fill(builder(), 3, 10);
        final ToolRun result = ToolRun.of("dump", dir().toString(), "--from", "0x" + Long.toHexString(indices.get(15)), "--limit", "3");
        assertEquals(SpoolTool.EXIT_OK, result.status(), result.err());
        final List<String> excerpts = result.out().lines().filter(line -> line.startsWith("  position=")).toList();
        assertEquals(3, excerpts.size(), result.out());
        assertTrue(excerpts.get(0).contains("data index=" + IndexFormat.format(indices.get(15), RollCycle.HOURLY)), result.out());
        assertTrue(excerpts.get(2).contains("data index=" + IndexFormat.format(indices.get(17), RollCycle.HOURLY)), result.out());
        assertFalse(result.out().contains("cycle file " + dir().resolve("20240101-00.cycle")), "cycles before the index are skipped");
        assertTrue(result.out().contains("cycle file " + dir().resolve("20240101-01.cycle")), result.out());
        assertTrue(result.out().contains("(limit of 3 excerpts reached)"), result.out());
    }

    @Test
    void shouldDumpWholePayloadsOnlyWithFull() {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender()) {
            appender.append(new byte[100]);
        }
        final String preview = ToolRun.of("dump", dir().toString()).out();
        assertTrue(preview.contains("... 36 more bytes (--full shows them)"), preview);
        assertFalse(preview.contains("    0060 "), preview);
        final String full = ToolRun.of("dump", dir().toString(), "--full").out();
        assertTrue(full.contains("    0060  00 00 00 00 "), full);
        assertFalse(full.contains("more bytes"), full);
    }

    @Test
    void shouldShowDamageInDumpAndStats() throws IOException {
        fill(builder(), 1, 10);
        final long position = headerPositions().get(4);
        final Path file = cycleFiles().get(0);
        writeInt(file, position, ExcerptDescriptor.MAX_LENGTH);
        final ToolRun dump = ToolRun.of("dump", dir().toString());
        assertEquals(SpoolTool.EXIT_FAILED, dump.status());
        assertTrue(dump.out().contains("  !! position=" + position + " header=0x1fffffff too-long"), dump.out());
        final ToolRun stats = ToolRun.of("stats", dir().toString());
        assertEquals(SpoolTool.EXIT_FAILED, stats.status());
        assertTrue(stats.out().contains("excerpts=4 "), stats.out());
        assertTrue(stats.out().contains("!! counted up to position=" + position), stats.out());
    }

    @Test
    void shouldCountExcerptsPerCycleAndNamedTailerLag() {
        final List<Long> indices = fill(builder(), 3, 10);
        try (SpoolQueue queue = open();
             ExcerptTailer behind = queue.createTailer("behind");
             ExcerptTailer done = queue.createTailer("done")) {
            for (int i = 0; i < 12; i++) {
                assertTrue(behind.read((bytes, offset, length, index) -> { }));
            }
            while (done.read((bytes, offset, length, index) -> { })) {
                assertTrue(done.index() != -1);
            }
            queue.createTailer("idle").close();
        }
        final ToolRun result = ToolRun.of("stats", dir().toString());
        assertEquals(SpoolTool.EXIT_OK, result.status(), result.err());
        final String out = result.out();
        assertTrue(out.contains("cycles: 3, first " + RollCycle.HOURLY.toCycle(indices.get(0)) + " (20240101-00.cycle), last "
                + RollCycle.HOURLY.toCycle(indices.get(29)) + " (20240101-02.cycle)"), out);
        assertEquals(3, out.lines().filter(line -> line.startsWith("cycle ") && line.contains(" excerpts=10 payload bytes=50 ")).count(), out);
        assertTrue(out.contains("total: excerpts=30 payload bytes=150 "), out);
        assertTrue(out.contains("first index=" + IndexFormat.format(indices.get(0), RollCycle.HOURLY) + " last index="
                + IndexFormat.format(indices.get(29), RollCycle.HOURLY)), out);
        assertTrue(out.contains("named tailers: 3"), out);
        assertTrue(out.contains("'behind' last read index=" + IndexFormat.format(indices.get(11), RollCycle.HOURLY) + " lag=18"), out);
        assertTrue(out.contains("'done' last read index=" + IndexFormat.format(indices.get(29), RollCycle.HOURLY) + " lag=0"), out);
        assertTrue(out.contains("'idle' last read index=none (-1) lag=30"), out);
    }

    @Test
    void shouldTailExcerptsAsIndexLengthAndTextOrHex() {
        final long text;
        final long binary;
        final long tab;
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender()) {
            text = appender.append("hello, wörld".getBytes(StandardCharsets.UTF_8));
            binary = appender.append(new byte[]{0, 1, 2, (byte) 0xFF});
            tab = appender.append("tab\there".getBytes(StandardCharsets.UTF_8));
        }
        final ToolRun result = ToolRun.of("tail", dir().toString());
        assertEquals(SpoolTool.EXIT_OK, result.status(), result.err());
        final List<String> lines = result.out().lines().toList();
        assertEquals(List.of(printed(text) + "\t13\thello, wörld", printed(binary) + "\t4\t0x000102ff",
                printed(tab) + "\t8\t0x7461620968657265"), lines);
        assertEquals(List.of(printed(binary) + "\t4\t0x000102ff"), ToolRun.of("tail", dir().toString(), "--from", "0x" + Long.toHexString(binary))
                .out().lines().limit(1).toList());
        assertEquals("", ToolRun.of("tail", dir().toString(), "--from", "end").out());
    }

    /** @return the index as the tools print it, the queue's roll cycle being hourly. */
    private static String printed(final long index) {
        return IndexFormat.format(index, RollCycle.HOURLY);
    }

    @Test
    void shouldNameTheFirstAndLastIndexWhenTailOrDumpStartsAtAnIndexThatHoldsNoExcerpt() {
        final List<Long> indices = fill(builder(), 2, 3);
        final long missing = indices.get(2) + 1;
        final String expected = "no excerpt has index " + printed(missing) + " in " + dir() + ": the first is "
                + printed(indices.get(0)) + ", the last is " + printed(indices.get(5));
        for (final String command : new String[]{"tail", "dump"}) {
            for (final String form : new String[]{"0x" + Long.toHexString(missing), String.valueOf(missing),
                    RollCycle.HOURLY.toCycle(missing) + ":" + RollCycle.HOURLY.toSequence(missing)}) {
                final ToolRun result = ToolRun.of(command, dir().toString(), "--from", form);
                assertEquals(SpoolTool.EXIT_FAILED, result.status(), command + " --from " + form);
                assertTrue(result.err().contains(expected), command + " --from " + form + ": " + result.err());
                assertEquals("", result.out(), "nothing is printed before the start is found");
            }
        }
    }

    @Test
    void shouldStartDumpAndTailAtEveryFormOfFrom() {
        final List<Long> indices = fill(builder().indexTimes(true).indexSpacing(1), 3, 2);
        final long third = indices.get(2);
        // the third excerpt went in at the start of the second hour, the fillers' clock being one step an hour
        final String[][] forms = {{"start", printed(indices.get(0))}, {"0x" + Long.toHexString(third), printed(third)},
                {String.valueOf(third), printed(third)},
                {RollCycle.HOURLY.toCycle(third) + ":" + RollCycle.HOURLY.toSequence(third), printed(third)},
                {Instant.ofEpochMilli(START_MILLIS + HOUR).toString(), printed(third)}};
        for (final String[] form : forms) {
            final ToolRun tail = ToolRun.of("tail", dir().toString(), "--from", form[0]);
            assertEquals(SpoolTool.EXIT_OK, tail.status(), form[0] + ": " + tail.err());
            assertTrue(tail.out().startsWith(form[1] + "\t"), "tail --from " + form[0] + ":\n" + tail.out());
            final ToolRun dump = ToolRun.of("dump", dir().toString(), "--from", form[0], "--limit", "1");
            assertEquals(SpoolTool.EXIT_OK, dump.status(), form[0] + ": " + dump.err());
            assertEquals(List.of(form[1]), dump.out().lines().filter(line -> line.startsWith("  position="))
                    .map(line -> line.substring(line.indexOf("index=") + "index=".length(), line.indexOf(" length="))).toList(),
                    "dump --from " + form[0] + ":\n" + dump.out());
        }
        assertEquals("", ToolRun.of("tail", dir().toString(), "--from", "end").out());
        assertFalse(ToolRun.of("dump", dir().toString(), "--from", "end").out().contains("  position="), "dump --from end shows no excerpt");
    }

    @Test
    void shouldPrintHelpToStandardOutputAndExit0() {
        for (final String[] args : new String[][]{{"--help"}, {"-h"}, {"tail", "--help", dir().toString()}, {"dump", "--help"}}) {
            final ToolRun result = ToolRun.of(args);
            assertEquals(SpoolTool.EXIT_OK, result.status(), String.join(" ", args) + ": " + result.err());
            assertEquals("", result.err(), String.join(" ", args));
            assertTrue(result.out().startsWith("usage: spool"), result.out());
        }
        final String help = ToolRun.of("--help").out();
        for (final String expected : new String[]{"dump", "tail", "stats", "verify", "queue-core-VERSION-cli.jar",
                "<cycle>:<seq>", "ISO-8601", "Exit status"}) {
            assertTrue(help.contains(expected), expected + " in:\n" + help);
        }
        assertTrue(ToolRun.of("tail", "--help").out().contains("--from=START"), ToolRun.of("tail", "--help").out());
    }

    @Test
    void shouldFollowAppendsMadeAfterTailStartedUntilInterrupted() throws Exception {
        fill(builder(), 1, 2);
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
        final AtomicInteger status = new AtomicInteger(-1);
        final Thread follower = new Thread(() -> status.set(SpoolTool.run(new String[]{"tail", dir().toString(), "-f"}, out,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))), "tail-f");
        follower.start();
        try {
            awaitOutput(captured, "c0-m1");
            try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender()) {
                appender.append("live-1".getBytes(StandardCharsets.UTF_8));
                now.addAndGet(HOUR);
                appender.append("live-2, next cycle".getBytes(StandardCharsets.UTF_8));
            }
            awaitOutput(captured, "live-2, next cycle");
        } finally {
            follower.interrupt();
            follower.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertFalse(follower.isAlive(), "tail -f ends when interrupted");
        assertEquals(SpoolTool.EXIT_OK, status.get());
        final List<String> payloads = captured.toString(StandardCharsets.UTF_8).lines().map(line -> line.split("\t")[2]).toList();
        assertEquals(List.of("c0-m0", "c0-m1", "live-1", "live-2, next cycle"), payloads);
    }

    @Test
    void shouldStopFollowingWhenAsked() throws Exception {
        fill(builder(), 1, 1);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger status = new AtomicInteger(-1);
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        final PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
        final Thread follower = new Thread(() -> status.set(SpoolTool.run(new String[]{"tail", "-f", dir().toString(), "--from", "start"},
                out, out, stop::get)), "tail-f");
        follower.start();
        awaitOutput(captured, "c0-m0");
        stop.set(true);
        follower.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(follower.isAlive(), "tail -f ends when asked to stop");
        assertEquals(SpoolTool.EXIT_OK, status.get());
    }

    private static void awaitOutput(final ByteArrayOutputStream captured, final String expected) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!captured.toString(StandardCharsets.UTF_8).contains(expected)) {
            assertTrue(System.nanoTime() < deadline, "no '" + expected + "' in: " + captured.toString(StandardCharsets.UTF_8));
            Thread.sleep(10);
        }
    }

    @Test
    void shouldPrintUsageToStderrAndExit2OnBadArguments() throws IOException {
        open().close();
        final String queue = dir().toString();
        final String[][] cases = {{}, {"verify"}, {"frobnicate", queue}, {"verify", queue, "extra"}, {"dump", queue, "--from"},
                {"dump", queue, "--from", "twelve"}, {"tail", queue, "--from", "12:x"}, {"dump", queue, "--limit", "-1"},
                {"stats", queue, "-f"}, {"tail", queue, "--full"}};
        final String[] messages = {"no command", "Missing required parameter: '<queueDir>'", "unknown command 'frobnicate'",
                "Unmatched argument at index 2: 'extra'", "Missing required parameter for option '--from'",
                "bad start 'twelve': expected start, end, an index", "bad start '12:x'", "bad count '-1' for --limit",
                "Unknown option: '-f'", "Unknown option: '--full'"};
        for (int i = 0; i < cases.length; i++) {
            final String[] args = cases[i];
            final ToolRun result = ToolRun.of(args);
            assertEquals(SpoolTool.EXIT_USAGE, result.status(), String.join(" ", args));
            assertTrue(result.err().startsWith("spool: ") && result.err().contains(messages[i]), result.err());
            assertTrue(result.err().contains("usage: spool"), result.err());
            assertEquals("", result.out());
        }
    }

    @Test
    void shouldSayThereIsNoSpoolQueueAtAPathThatHoldsNone() throws IOException {
        Files.createDirectories(tempDir.resolve("empty"));
        Files.writeString(tempDir.resolve("file"), "not a queue");
        final String[] reasons = {"the directory has no metadata", "the directory does not exist", "it is a file, not a directory"};
        final Path[] paths = {tempDir.resolve("empty"), tempDir.resolve("missing"), tempDir.resolve("file")};
        for (final String command : new String[]{"dump", "tail", "stats", "verify"}) {
            for (int i = 0; i < paths.length; i++) {
                final ToolRun result = ToolRun.of(command, paths[i].toString());
                assertEquals(SpoolTool.EXIT_USAGE, result.status(), command + " " + paths[i]);
                assertTrue(result.err().contains("spool: no Spool queue at " + paths[i] + ": " + reasons[i]), result.err());
            }
        }
        assertFalse(Files.exists(tempDir.resolve("missing")), "the tools never create a queue");
    }
}
