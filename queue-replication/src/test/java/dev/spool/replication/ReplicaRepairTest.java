package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.tools.SpoolTool;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A primary and its replica heal each other's damage that checksums prove: the primary from the replica's files,
 * the replica from the primary's; and a sink whose last cycle is damaged does not start, so it never acknowledges
 * from damaged files.
 */
class ReplicaRepairTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    private Path primaryDir() {
        return tempDir.resolve("primary");
    }

    private Path replicaDir() {
        return tempDir.resolve("replica");
    }

    private ReplicationSink sink() {
        return ReplicationSink.builder(replicaDir()).queueSettings(b -> b.chunkLength(1 << 20))
                .heartbeatInterval(HEARTBEAT).sharedSecret(Replicas.SECRET).start();
    }

    /** Replicates 300 excerpts of a checksummed primary and closes both. */
    private void replicate() {
        try (SpoolQueue primary = SpoolQueue.builder(primaryDir()).chunkLength(1 << 20).checksums(true).openOrCreate();
             ExcerptAppender appender = primary.createAppender(); ReplicationSink sink = sink();
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).heartbeatInterval(HEARTBEAT)
                     .sharedSecret(Replicas.SECRET).start()) {
            append(appender, 0, 300);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            assertNull(source.failure());
        }
    }

    /** Takes 1 from the length in the header of the {@code n}th data excerpt, which keeps its aligned length. */
    private static void shortenLength(final Path file, final int n) throws IOException {
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        long position = CycleDescriptor.DATA_OFFSET;
        int sequence = 0;
        while (true) {
            final int header = bytes.getInt((int) position);
            final int length = ExcerptDescriptor.length(header);
            if (ExcerptDescriptor.isData(header) && sequence++ == n) {
                assertEquals(ExcerptDescriptor.alignedLength(length), ExcerptDescriptor.alignedLength(length - 1));
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    raf.seek(position);
                    raf.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(0, header - 1)
                            .array());
                }
                return;
            }
            position += ExcerptDescriptor.alignedLength(length);
        }
    }

    private static int repair(final Path queue, final Path copy, final StringBuilder output) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status;
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            status = SpoolTool.run(new String[]{"repair", queue.toString(), "--copy", copy.toString()}, print, print);
        }
        output.append(out.toString(StandardCharsets.UTF_8));
        return status;
    }

    @Test
    void shouldRestoreThePrimaryByteForByteFromItsReplicasFiles() throws IOException {
        replicate();
        final Path file = lastCycleFile(primaryDir());
        damage(file, 42);
        damage(file, 250);
        final StringBuilder output = new StringBuilder();
        assertEquals(SpoolTool.EXIT_OK, repair(primaryDir(), replicaDir(), output), output.toString());
        assertArrayEquals(Files.readAllBytes(lastCycleFile(replicaDir())), Files.readAllBytes(file));
        verify(primaryDir());
    }

    @Test
    void shouldRepairADamagedTailFromThePrimaryWhenTheSourceConnectsAndEndByteIdentical() throws IOException {
        replicate();
        final Path replicaFile = lastCycleFile(replicaDir());
        damage(replicaFile, 123);
        damage(replicaFile, 124);
        damage(replicaFile, 290);
        expectWarning("the replica's checksums prove excerpts of its last cycle damaged");
        try (SpoolQueue primary = SpoolQueue.builder(primaryDir()).chunkLength(1 << 20).checksums(true).openOrCreate();
             ExcerptAppender appender = primary.createAppender(); ReplicationSink sink = sink()) {
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).heartbeatInterval(HEARTBEAT)
                    .sharedSecret(Replicas.SECRET).start()) {
                append(appender, 300, 310);
                await(() -> sink.lastIndex() == primary.lastIndex(), "replicated after the repair");
                await(() -> source.ackedIndex(0) == primary.lastIndex(), "acknowledged after the repair");
                assertNull(source.failure());
            }
        }
        assertArrayEquals(Files.readAllBytes(lastCycleFile(primaryDir())), Files.readAllBytes(replicaFile));
        verify(replicaDir());
    }

    @Test
    void shouldRefuseTheSourceNamingTheRangeAndAcknowledgeNothingPastTheDamageWhenTheRepairIsRefused()
            throws IOException {
        replicate();
        final Path replicaFile = lastCycleFile(replicaDir());
        // a length changed within its alignment: the primary's body, of the original length, cannot be written there
        shortenLength(replicaFile, 200);
        expectWarning("the replica's checksums prove excerpts of its last cycle damaged");
        expectWarning("cannot repair its damaged excerpts");
        expectWarning("refusing the source at");
        expectWarning("reports error");
        final byte[] before = Files.readAllBytes(replicaFile);
        try (SpoolQueue primary = SpoolQueue.builder(primaryDir()).chunkLength(1 << 20).checksums(true).openOrCreate();
             ReplicationSink sink = sink();
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).heartbeatInterval(HEARTBEAT)
                     .sharedSecret(Replicas.SECRET).reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
                     .start()) {
            final long firstDamaged = primary.firstIndex() + 200;
            await(() -> logged("cannot repair its damaged excerpts"), "the repair refused");
            assertTrue(logged("(cycle " + primary.rollCycle().toCycle(firstDamaged) + " seq 200)"), "names the range");
            assertTrue(source.ackedIndex(0) < firstDamaged, "acknowledged " + source.ackedIndex(0));
            assertTrue(sink.lastIndex() < firstDamaged, "the sink's last index " + sink.lastIndex());
        }
        assertArrayEquals(before, Files.readAllBytes(replicaFile), "a refused repair writes nothing");
    }
}
