package dev.spool.replication;

import dev.spool.replication.protocol.StartFlyweight;
import dev.spool.queue.internal.TermHistory;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameHeader;
import dev.spool.replication.protocol.HelloFlyweight;
import dev.spool.replication.protocol.ResumeFlyweight;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static dev.spool.replication.protocol.FrameDescriptor.*;
import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Replication of a queue with checksums: each excerpt's CRC32C travels in the DATA frame with it, the sink checks
 * every entry of a frame before writing any, and writes the stored bodies so that the replica's files equal the
 * primary's.
 */
class ReplicationChecksumTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    private static SpoolQueue openChecksummed(final Path directory) {
        return SpoolQueue.builder(directory).chunkLength(1 << 20).checksums(true).openOrCreate();
    }

    /** @return a sink that creates its replica as the source's HELLO says: checksums if the primary has them. */
    private ReplicationSink sink() {
        return sink(true);
    }

    /** @param secure false: insecure(), so that a test can speak the source's side with hand-made, unsigned frames. */
    private ReplicationSink sink(final boolean secure) {
        final ReplicationSink.Builder builder = ReplicationSink.builder(tempDir.resolve("replica"))
                .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT);
        return (secure ? builder.sharedSecret(Replicas.SECRET) : builder.insecure()).start();
    }

    private static ReplicationSource source(final SpoolQueue queue, final ReplicationSink sink) {
        return source(queue, sink, true);
    }

    private static ReplicationSource source(final SpoolQueue queue, final ReplicationSink sink, final boolean secure) {
        final ReplicationSource.Builder builder = ReplicationSource.builder(queue, sink.address())
                .heartbeatInterval(HEARTBEAT).reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100));
        return (secure ? builder.sharedSecret(Replicas.SECRET) : builder.insecure()).start();
    }

    private static List<Path> cycleFiles(final Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.toString().endsWith(".cycle")).sorted().toList();
        }
    }

    @Test
    void shouldReplicateAChecksummedQueueIntoByteIdenticalCycleFiles() throws IOException {
        try (SpoolQueue primary = openChecksummed(tempDir.resolve("primary"));
             ExcerptAppender appender = primary.createAppender(); ReplicationSink sink = sink();
             ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 500);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            assertTrue(source.isConnected());
        }
        final List<Path> primaryFiles = cycleFiles(tempDir.resolve("primary"));
        final List<Path> replicaFiles = cycleFiles(tempDir.resolve("replica"));
        assertEquals(primaryFiles.size(), replicaFiles.size());
        for (int i = 0; i < primaryFiles.size(); i++) {
            assertEquals(primaryFiles.get(i).getFileName(), replicaFiles.get(i).getFileName());
            assertArrayEquals(Files.readAllBytes(primaryFiles.get(i)), Files.readAllBytes(replicaFiles.get(i)),
                    "cycle file " + primaryFiles.get(i).getFileName());
        }
        try (SpoolQueue replica = SpoolQueue.builder(tempDir.resolve("replica")).openOrCreate()) {
            assertTrue(replica.checksums());
        }
        assertTrue(verify(tempDir.resolve("replica")).contains("OK"));
    }

    @Test
    void shouldReplicateAMessageOfExactlyMaxMessageLengthInAChecksummedQueue() throws IOException {
        // longer than a SCHEMA frame, whose bound the sink's receive buffer also holds
        final int maxMessageLength = 1 << 17;
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20).checksums(true)
                .maxMessageLength(maxMessageLength).openOrCreate();
             ExcerptAppender appender = primary.createAppender(); ReplicationSink sink = sink();
             ReplicationSource source = source(primary, sink)) {
            final byte[] largest = new byte[maxMessageLength];
            for (int i = 0; i < largest.length; i++) {
                largest[i] = (byte) i;
            }
            appender.append(message(0));
            appender.append(largest);
            appender.append(message(2));
            await(() -> sink.lastIndex() == primary.lastIndex(), "the largest message is replicated");
            assertNull(source.failure());
        }
        try (SpoolQueue primary = openChecksummed(tempDir.resolve("primary"));
             SpoolQueue replica = openChecksummed(tempDir.resolve("replica"))) {
            assertEquals(3, assertIdentical(primary, replica));
        }
    }

    @Test
    void shouldRefuseADataFrameWithADamagedChecksumWriteNothingOfItAndResumeOnReconnect() throws IOException {
        expectWarning("closing the connection");
        expectWarning("lost");
        expectWarning("insecure()");
        try (SpoolQueue primary = openChecksummed(tempDir.resolve("primary"));
             ExcerptAppender appender = primary.createAppender(); ReplicationSink sink = sink(false)) {
            append(appender, 0, 10);
            try (ReplicationSource source = source(primary, sink, false)) {
                await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            }
            final long last = sink.lastIndex();
            final String error = sendDamagedFrame(primary, sink, last);
            assertTrue(error.contains("CRC32C") && error.contains("entry 1 at index 0x" + Long.toHexString(last + 2) + " (cycle ")
                    && error.contains("nothing of the frame was written"), error);
            assertEquals(last, sink.lastIndex(), "nothing of the damaged frame is written");
            append(appender, 10, 20);
            try (ReplicationSource source = source(primary, sink, false)) {
                await(() -> sink.lastIndex() == primary.lastIndex(), "replicated after the reconnect");
            }
        }
        try (SpoolQueue primary = openChecksummed(tempDir.resolve("primary"));
             SpoolQueue replica = openChecksummed(tempDir.resolve("replica"))) {
            assertEquals(20, assertIdentical(primary, replica));
        }
    }

    /** Speaks the source's side to an insecure sink: a handshake, then a DATA frame of two good entries and one whose CRC32C is wrong. */
    private static String sendDamagedFrame(final SpoolQueue primary, final ReplicationSink sink, final long last)
            throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
            socket.setSoTimeout(30_000);
            final OutputStream out = socket.getOutputStream();
            final ByteBuffer hello = frame(HELLO_LENGTH, TYPE_HELLO);
            new HelloFlyweight().wrap(hello, 0).magic(MAGIC).rollCycleId(primary.rollCycle().id())
                    .queueId(primary.queueId()).epochMillis(primary.epochMillis()).term(0).lastIndex(primary.lastIndex())
                    .maxMessageLength(primary.maxMessageLength()).frameLimit(4096)
                    .features(MetadataDescriptor.FEATURE_CRC32C);
            out.write(hello.array());
            final InputStream in = socket.getInputStream();
            assertEquals(WELCOME_LENGTH, in.readNBytes(WELCOME_LENGTH).length);
            final ByteBuffer start = frame(startLength(1), TYPE_START);
            new StartFlyweight().wrap(start, 0).termHistory(TermHistory.of(0));
            out.write(start.array());
            final ByteBuffer resume = ByteBuffer.wrap(in.readNBytes(resumeLength(1))).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(last, new ResumeFlyweight().wrap(resume, 0).lastIndex());
            final byte[][] payloads = {{1, 2, 3}, {4, 5, 6, 7}, {8, 9}};
            int length = DATA_ENTRIES_OFFSET;
            for (final byte[] payload : payloads) {
                length += ENTRY_HEADER_LENGTH + Integer.BYTES + payload.length;
            }
            final ByteBuffer data = frame(length, TYPE_DATA);
            final DataFlyweight entries = new DataFlyweight().wrap(data, 0).count(payloads.length).flags(DATA_FLAG_CRC32C);
            int entry = entries.firstEntry();
            for (int i = 0; i < payloads.length; i++) {
                final int payloadAt = entries.entryPayload(entry);
                entry = entries.putEntry(entry, last + 1 + i, Integer.BYTES + payloads[i].length);
                final CRC32C crc = new CRC32C();
                crc.update(payloads[i]);
                // the middle entry's checksum is off by one bit: damaged on the way
                data.putInt(payloadAt, (int) crc.getValue() ^ (i == 1 ? 1 : 0));
                data.put(payloadAt + Integer.BYTES, payloads[i]);
            }
            out.write(data.array());
            out.flush();
            ByteBuffer header;
            FrameHeader received;
            // the acknowledgement of what the replica had may come first
            do {
                header = ByteBuffer.wrap(in.readNBytes(HEADER_LENGTH)).order(ByteOrder.LITTLE_ENDIAN);
                received = new FrameHeader().wrap(header, 0);
                if (received.type() != TYPE_ERROR) {
                    assertEquals(TYPE_ACK, received.type());
                    in.readNBytes(received.frameLength() - HEADER_LENGTH);
                }
            } while (received.type() != TYPE_ERROR);
            final ByteBuffer error = ByteBuffer.allocate(received.frameLength()).order(ByteOrder.LITTLE_ENDIAN);
            error.put(header.array()).put(in.readNBytes(received.frameLength() - HEADER_LENGTH));
            final ErrorFlyweight flyweight = new ErrorFlyweight().wrap(error, 0);
            assertEquals(ERROR_PROTOCOL, flyweight.code());
            assertEquals(-1, in.read(), "the sink closes the connection");
            return flyweight.message(received.frameLength());
        }
    }

    private static ByteBuffer frame(final int length, final int type) {
        final ByteBuffer frame = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        new FrameHeader().wrap(frame, 0).encode(type).version(VERSION).frameLength(length);
        return frame;
    }

    @Test
    void shouldRefuseASourceWhoseQueueDiffersFromTheReplicaInChecksums() {
        expectWarning("refusing the source");
        expectWarning("reports error");
        expectWarning("stopped");
        try (SpoolQueue primary = openChecksummed(tempDir.resolve("primary"));
             ExcerptAppender appender = primary.createAppender()) {
            // a replica made beforehand without checksums: the handshake, not the first DATA frame, refuses
            SpoolQueue.builder(tempDir.resolve("replica")).replicaOf(primary.queueId()).chunkLength(1 << 20).create().close();
            try (ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink)) {
                append(appender, 0, 3);
                await(() -> source.failure() != null, "the source is refused");
                assertTrue(source.failure().getMessage().contains("features=0x0, the source's queue 0x1"),
                        source.failure().getMessage());
                assertEquals(-1, sink.lastIndex());
            }
        }
    }
}
