package dev.spool.queue.tools;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code spool repair}: the damage a scan finds, or a range, rewritten from a copy of the queue; refusals and usage
 * errors with the CLI's exit statuses.
 */
class RepairToolTest extends SpoolTestBase {
    /** 2024-01-01T00:00Z. */
    private static final long START_MILLIS = 1_704_067_200_000L;

    /** @return the queue and a copy of it, each with 100 excerpts in one hourly cycle. */
    private Path[] queueAndCopy(final boolean checksums) throws IOException {
        final Path queue = tempDir.resolve("q");
        try (SpoolQueue opened = SpoolQueue.builder(queue).rollCycle(RollCycle.HOURLY).epochClock(() -> START_MILLIS)
                .checksums(checksums).openOrCreate();
             ExcerptAppender appender = opened.createAppender()) {
            for (int i = 0; i < 100; i++) {
                appender.append(("excerpt number " + i + " of the queue under repair").getBytes(StandardCharsets.UTF_8));
            }
        }
        final Path copy = Files.createDirectories(tempDir.resolve("copy"));
        try (var files = Files.list(queue)) {
            for (final Path file : files.toList()) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }
        return new Path[]{queue, copy};
    }

    private static Path cycleFile(final Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.filter(f -> f.toString().endsWith(RollCycle.FILE_SUFFIX)).findFirst().orElseThrow();
        }
    }

    /** Flips a payload bit of the {@code n}th data excerpt; @return its header's position. */
    private static long damage(final Path cycleFile, final int n) throws IOException {
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(cycleFile)).order(ByteOrder.LITTLE_ENDIAN);
        long position = CycleDescriptor.DATA_OFFSET;
        int sequence = 0;
        while (true) {
            final int header = bytes.getInt((int) position);
            if (ExcerptDescriptor.isData(header) && sequence++ == n) {
                try (RandomAccessFile file = new RandomAccessFile(cycleFile.toFile(), "rw")) {
                    final long at = position + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET + 2;
                    file.seek(at);
                    final int value = file.read();
                    file.seek(at);
                    file.write(value ^ 0x10);
                }
                return position;
            }
            position += ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(header));
        }
    }

    @Test
    void shouldRepairEveryDamagedExcerptAScanFindsFromTheCopy() throws IOException {
        final Path[] dirs = queueAndCopy(true);
        final Path file = cycleFile(dirs[0]);
        damage(file, 3);
        damage(file, 4);
        damage(file, 70);
        assertEquals(SpoolTool.EXIT_FAILED, ToolRun.of("verify", dirs[0].toString()).status());
        final ToolRun result = ToolRun.of("repair", dirs[0].toString(), "--copy", dirs[1].toString());
        assertEquals(SpoolTool.EXIT_OK, result.status(), result.out() + result.err());
        assertTrue(result.out().contains("REPAIRED what a scan found: 3 rewritten from " + dirs[1]), result.out());
        assertTrue(result.out().contains("OK: no damage the checksums prove"), result.out());
        assertArrayEquals(Files.readAllBytes(cycleFile(dirs[1])), Files.readAllBytes(file));
        verify(dirs[0]);
    }

    @Test
    void shouldRepairOnlyTheRangeGiven() throws IOException {
        final Path[] dirs = queueAndCopy(true);
        final Path file = cycleFile(dirs[0]);
        damage(file, 10);
        damage(file, 50);
        final ToolRun result = ToolRun.of("repair", dirs[0].toString(), "--copy", dirs[1].toString(), "--range", "473352:8..473352:12");
        assertEquals(SpoolTool.EXIT_FAILED, result.status(), result.out() + result.err());
        assertTrue(result.out().contains(": 1 rewritten"), result.out());
        assertTrue(result.out().contains("DAMAGE 0x"), result.out());
        assertTrue(result.out().contains("seq 50)"), result.out());
    }

    @Test
    void shouldRefuseWithTheRangeAndWriteNothingWhenTheCopyIsDamagedToo() throws IOException {
        final Path[] dirs = queueAndCopy(true);
        damage(cycleFile(dirs[0]), 20);
        damage(cycleFile(dirs[1]), 20);
        final Map<String, byte[]> before = contents(dirs[0]);
        final ToolRun result = ToolRun.of("repair", dirs[0].toString(), "--copy", dirs[1].toString());
        assertEquals(SpoolTool.EXIT_FAILED, result.status(), result.out() + result.err());
        assertTrue(result.err().contains("seq 20"), result.err());
        final Map<String, byte[]> after = contents(dirs[0]);
        assertArrayEquals(before.get(cycleFile(dirs[0]).getFileName().toString()),
                after.get(cycleFile(dirs[0]).getFileName().toString()));
    }

    @Test
    void shouldRefuseAQueueWithoutChecksums() throws IOException {
        final Path[] dirs = queueAndCopy(false);
        final ToolRun result = ToolRun.of("repair", dirs[0].toString(), "--copy", dirs[1].toString());
        assertEquals(SpoolTool.EXIT_FAILED, result.status(), result.out() + result.err());
        assertTrue(result.err().contains("without checksums"), result.err());
    }

    @Test
    void shouldExplainItselfAndRefuseBadArguments() throws IOException {
        final Path[] dirs = queueAndCopy(true);
        final ToolRun help = ToolRun.of("repair", "--help");
        assertEquals(SpoolTool.EXIT_OK, help.status());
        assertTrue(help.out().contains("--copy=DIR") && help.out().contains("--range=FROM..TO"), help.out());
        assertTrue(ToolRun.of("--help").out().contains("repair"), ToolRun.of("--help").out());
        assertEquals(SpoolTool.EXIT_USAGE, ToolRun.of("repair", dirs[0].toString()).status(), "--copy or --replica is required");
        assertEquals(SpoolTool.EXIT_USAGE, ToolRun.of("repair", dirs[0].toString(), "--copy", dirs[1].toString(),
                "--replica", "localhost:1").status(), "not both");
        final ToolRun noSecret = ToolRun.of("repair", dirs[0].toString(), "--replica", "localhost:1");
        assertEquals(SpoolTool.EXIT_USAGE, noSecret.status());
        assertTrue(noSecret.err().contains("--secret-file FILE or --insecure"), noSecret.err());
        assertEquals(SpoolTool.EXIT_USAGE, ToolRun.of("repair", dirs[0].toString(), "--copy", tempDir.resolve("none").toString()).status());
        final ToolRun badRange = ToolRun.of("repair", dirs[0].toString(), "--copy", dirs[1].toString(), "--range", "end..3");
        assertEquals(SpoolTool.EXIT_USAGE, badRange.status());
        assertTrue(badRange.err().contains("bad index 'end'"), badRange.err());
    }

    @Test
    void shouldSayRepairFromAReplicaNeedsQueueReplicationsJar() throws IOException {
        final Path[] dirs = queueAndCopy(true);
        final ToolRun result = ToolRun.of("repair", dirs[0].toString(), "--replica", "localhost:1", "--insecure");
        assertEquals(SpoolTool.EXIT_USAGE, result.status());
        assertTrue(result.err().contains("needs queue-replication's cli jar"), result.err());
    }
}
