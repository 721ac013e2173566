package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.RepairRefusedException;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.tools.SpoolTool;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.Handshake;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static dev.spool.replication.Replicas.*;
import static dev.spool.replication.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A queue repairs its damage from a replica over the network: a repairer proves the shared secret on the replica's
 * sink port, while the primary's source streams to it, and fetches the damaged range; a repair the replica cannot
 * answer, or one by a peer without the secret, writes nothing, and the sink goes on replicating.
 */
class NetworkRepairTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final byte[] WRONG_SECRET = "not the replication tests' secret, 40 b".getBytes(StandardCharsets.US_ASCII);

    private Path primaryDir() {
        return tempDir.resolve("primary");
    }

    private Path replicaDir() {
        return tempDir.resolve("replica");
    }

    private SpoolQueue primary() {
        return SpoolQueue.builder(primaryDir()).chunkLength(1 << 20).checksums(true).openOrCreate();
    }

    private ReplicationSink sink() {
        return ReplicationSink.builder(replicaDir()).queueSettings(b -> b.chunkLength(1 << 20))
                .heartbeatInterval(HEARTBEAT).sharedSecret(SECRET).start();
    }

    private static ReplicationSource source(final SpoolQueue primary, final ReplicationSink sink) {
        return ReplicationSource.builder(primary, sink.address()).heartbeatInterval(HEARTBEAT).sharedSecret(SECRET)
                .start();
    }

    @Test
    void shouldRestoreThePrimaryByteForByteFromAReplicaOverTheNetworkWhileItsSourceStreams() throws IOException {
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 300);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            final Path file = lastCycleFile(primaryDir());
            damage(file, 42);
            damage(file, 250);
            // message 5 is 6000 bytes: the answers hold several excerpts, or a long one alone
            damage(file, 5);

            final long rewritten = QueueRepair.fromReplica(sink.address()).sharedSecret(SECRET).repair(primary);

            assertEquals(3, rewritten);
            assertTrue(sink.isConnected(), "the source kept streaming to the sink during the repair");
            append(appender, 300, 320);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated after the repair");
            assertNull(source.failure());
        }
        assertArrayEquals(Files.readAllBytes(lastCycleFile(replicaDir())), Files.readAllBytes(lastCycleFile(primaryDir())));
        verify(primaryDir());
    }

    @Test
    void shouldRepairFromAReplicaWithTheCommandLine() throws IOException {
        final Path secretFile = tempDir.resolve("secret");
        Files.write(secretFile, SECRET);
        final String address;
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 200);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            address = "localhost:" + sink.address().getPort();
            source.close();
            primary.close();
            damage(lastCycleFile(primaryDir()), 77);

            final StringBuilder output = new StringBuilder();
            final int status = spool(output, "repair", primaryDir().toString(), "--replica", address, "--secret-file",
                    secretFile.toString());

            assertEquals(SpoolTool.EXIT_OK, status, output.toString());
            assertTrue(output.toString().contains("REPAIRED what a scan found: 1 rewritten from the replica at "
                    + address), output.toString());
            assertTrue(output.toString().contains("OK: no damage the checksums prove"), output.toString());
        }
        assertArrayEquals(Files.readAllBytes(lastCycleFile(replicaDir())), Files.readAllBytes(lastCycleFile(primaryDir())));
    }

    @Test
    void shouldSayTheReplicaWasNotContactedWhenNothingIsDamagedAndFailWhenItCannotBeReached() throws IOException {
        final Path secretFile = tempDir.resolve("secret");
        Files.write(secretFile, SECRET);
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender()) {
            append(appender, 0, 20);
        }
        final String nobody;
        try (ServerSocket free = new ServerSocket(0)) {
            nobody = "localhost:" + free.getLocalPort();
        }

        final StringBuilder undamaged = new StringBuilder();
        final int status = spool(undamaged, "repair", primaryDir().toString(), "--replica", nobody, "--secret-file",
                secretFile.toString());

        assertEquals(SpoolTool.EXIT_OK, status, undamaged.toString());
        assertTrue(undamaged.toString().contains("REPAIRED what a scan found: nothing was damaged, so the replica at "
                + nobody + " was not contacted"), undamaged.toString());
        assertFalse(undamaged.toString().contains("rewritten from"), undamaged.toString());
        assertTrue(undamaged.toString().contains("OK: no damage the checksums prove"), undamaged.toString());

        expectWarning("retrying");
        damage(lastCycleFile(primaryDir()), 7);
        final byte[] before = Files.readAllBytes(lastCycleFile(primaryDir()));
        final StringBuilder damaged = new StringBuilder();
        final int failed = spool(damaged, "repair", primaryDir().toString(), "--replica", nobody, "--secret-file",
                secretFile.toString());

        assertEquals(SpoolTool.EXIT_FAILED, failed, damaged.toString());
        assertTrue(damaged.toString().contains("cannot fetch from the replica at localhost"), damaged.toString());
        assertTrue(damaged.toString().contains(" attempts in "), damaged.toString());
        assertArrayEquals(before, Files.readAllBytes(lastCycleFile(primaryDir())));
    }

    private static int spool(final StringBuilder output, final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status;
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            status = SpoolTool.run(args, print, print);
        }
        output.append(out.toString(StandardCharsets.UTF_8));
        return status;
    }

    @Test
    void shouldRepairOnlyTheRangeGivenFromTheReplica() throws IOException {
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 100);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            final Path file = lastCycleFile(primaryDir());
            damage(file, 10);
            damage(file, 90);
            final long first = primary.firstIndex();

            assertEquals(1, QueueRepair.fromReplica(sink.address()).sharedSecret(SECRET)
                    .repair(primary, first + 5, first + 20));
            assertEquals(1, QueueRepair.fromReplica(sink.address()).sharedSecret(SECRET).repair(primary));
            assertNull(source.failure());
        }
        assertArrayEquals(Files.readAllBytes(lastCycleFile(replicaDir())), Files.readAllBytes(lastCycleFile(primaryDir())));
    }

    @Test
    void shouldRefuseARangeTheReplicaDoesNotHoldNamingItAndWriteNothing() throws IOException {
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            try (ReplicationSource source = source(primary, sink)) {
                append(appender, 0, 100);
                await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            }
            // the replica never gets these
            append(appender, 100, 110);
            final Path file = lastCycleFile(primaryDir());
            damage(file, 105);
            final byte[] before = Files.readAllBytes(file);

            final RepairRefusedException refused = assertThrows(RepairRefusedException.class,
                    () -> QueueRepair.fromReplica(sink.address()).sharedSecret(SECRET).repair(primary));

            final String message = refused.getMessage();
            assertTrue(message.contains("error " + ERROR_FETCH), message);
            assertTrue(message.contains("the replica holds"), message);
            assertTrue(message.contains("nothing was written"), message);
            assertEquals(primary.firstIndex() + 105, refused.fromIndex());
            assertArrayEquals(before, Files.readAllBytes(file));
        }
    }

    @Test
    void shouldRestoreEveryChecksumProvenFlipOverTheNetworkAndWriteNothingButTheReplicasBytes() throws IOException {
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            try (ReplicationSource source = source(primary, sink)) {
                append(appender, 0, 200);
                await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            }
            final byte[] replica = Files.readAllBytes(lastCycleFile(replicaDir()));
            final List<Long> headers = headerPositions(replica);
            for (int n = 0; n < 16; n++) {
                final SplittableRandom random = new SplittableRandom(20261126L + n);
                final Path work = tempDir.resolve("work-" + n);
                Files.createDirectories(work);
                try (Stream<Path> files = Files.list(primaryDir())) {
                    for (final Path file : (Iterable<Path>) files::iterator) {
                        if (!file.getFileName().toString().endsWith(".lock")) {
                            Files.copy(file, work.resolve(file.getFileName()));
                        }
                    }
                }
                final Path file = lastCycleFile(work);
                final byte[] bytes = Files.readAllBytes(file);
                final int excerpt = 1 + random.nextInt(headers.size() - 2);
                final long header = headers.get(excerpt);
                // a flip in the CRC32C field or payload, which checksums prove; one case in four in the header
                final boolean inHeader = random.nextInt(4) == 0;
                final long from = inHeader ? header : header + ExcerptDescriptor.CHECKSUM_OFFSET;
                final long to = inHeader ? header + ExcerptDescriptor.HEADER_LENGTH : headers.get(excerpt + 1);
                for (int flip = 1 + random.nextInt(3); flip > 0; flip--) {
                    bytes[(int) random.nextLong(from, to)] ^= (byte) (1 << random.nextInt(8));
                }
                Files.write(file, bytes);
                String outcome;
                try (SpoolQueue damaged = SpoolQueue.builder(work).open()) {
                    outcome = "repaired " + QueueRepair.fromReplica(sink.address()).sharedSecret(SECRET).repair(damaged);
                } catch (SpoolException e) {
                    outcome = "refused: " + e.getMessage();
                }
                final byte[] after = Files.readAllBytes(file);
                final String at = "case " + n + " (" + (inHeader ? "header" : "body") + " of excerpt " + excerpt + "), "
                        + outcome;
                if (!inHeader) {
                    assertArrayEquals(replica, after, at);
                }
                for (int i = 0; i < after.length; i++) {
                    if (after[i] != bytes[i]) {
                        assertEquals(replica[i], after[i], at + ": wrote a byte the replica does not hold at " + i);
                    }
                }
                if (outcome.startsWith("refused")) {
                    assertArrayEquals(bytes, after, at + ": a refused repair writes nothing");
                }
            }
        }
    }

    /** @return the position of every excerpt header of a cycle file, and where the next would go. */
    private static List<Long> headerPositions(final byte[] file) {
        final ByteBuffer bytes = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        final List<Long> positions = new ArrayList<>();
        long position = CycleDescriptor.DATA_OFFSET;
        while (position + Integer.BYTES <= file.length) {
            final int header = bytes.getInt((int) position);
            if (header == 0) {
                break;
            }
            if (ExcerptDescriptor.isData(header)) {
                positions.add(position);
            }
            position += ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(header));
        }
        positions.add(position);
        return positions;
    }

    @Test
    void shouldRefuseARepairerOfAnotherQueueWritingNothing() throws IOException {
        final Path otherDir = tempDir.resolve("other");
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink);
             SpoolQueue other = SpoolQueue.builder(otherDir).chunkLength(1 << 20).checksums(true).openOrCreate();
             ExcerptAppender otherAppender = other.createAppender()) {
            append(appender, 0, 50);
            append(otherAppender, 0, 50);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            final Path file = lastCycleFile(otherDir);
            damage(file, 20);
            final byte[] before = Files.readAllBytes(file);

            final RepairRefusedException refused = assertThrows(RepairRefusedException.class,
                    () -> QueueRepair.fromReplica(sink.address()).sharedSecret(SECRET).repair(other));

            assertTrue(refused.getMessage().contains("another queue, not a copy"), refused.getMessage());
            assertArrayEquals(before, Files.readAllBytes(file));
            assertNull(source.failure());
        }
    }

    @Test
    void shouldGiveNothingToARepairerWithoutTheSecretAndKeepReplicating() throws IOException {
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 100);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            final Path file = lastCycleFile(primaryDir());
            damage(file, 50);
            final byte[] before = Files.readAllBytes(file);
            expectWarning("refusing the repairer at");

            final SpoolException wrong = assertThrows(SpoolException.class,
                    () -> QueueRepair.fromReplica(sink.address()).sharedSecret(WRONG_SECRET).repair(primary));
            assertTrue(wrong.getMessage().contains("did not prove the shared secret"), wrong.getMessage());
            final RepairRefusedException none = assertThrows(RepairRefusedException.class,
                    () -> QueueRepair.fromReplica(sink.address()).insecure().repair(primary));
            assertTrue(none.getMessage().contains("error " + ERROR_AUTHENTICATION), none.getMessage());
            assertArrayEquals(before, Files.readAllBytes(file));

            append(appender, 100, 120);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated after the refused repairers");
            assertNull(source.failure());
        }
    }

    @Test
    void shouldRefuseAProofMadeForAGatewayAndAFetchWithoutAHandshake() throws IOException {
        try (SpoolQueue primary = primary(); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink)) {
            append(appender, 0, 10);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            expectWarning("refusing the repairer at");
            expectWarning("FETCH frame from");
            try (Socket socket = new Socket(sink.address().getAddress(), sink.address().getPort())) {
                final ByteBuffer hello = Wire.frame(CLIENT_HELLO_LENGTH, TYPE_CLIENT_HELLO);
                hello.put(CLIENT_HELLO_NONCE_OFFSET, Handshake.nonce());
                Wire.write(socket, hello);
                final ByteBuffer challenge = Wire.read(socket);
                assertEquals(TYPE_CHALLENGE, Wire.type(challenge));
                // right secret, a publish client's label: a proof of another kind of session
                final ByteBuffer proof = Wire.frame(PROOF_LENGTH, TYPE_PROOF);
                proof.put(PROOF_MAC_OFFSET, Handshake.mac(SECRET, Handshake.CLIENT_LABEL, Wire.bytes(hello, CLIENT_HELLO_LENGTH),
                        Wire.bytes(challenge, CHALLENGE_LENGTH), Wire.bytes(proof, PROOF_MAC_OFFSET)));
                Wire.write(socket, proof);
                final ByteBuffer error = Wire.read(socket);
                assertEquals(TYPE_ERROR, Wire.type(error));
                assertEquals(ERROR_AUTHENTICATION, new ErrorFlyweight().wrap(error, 0).code());
                Wire.awaitClosed(socket);
            }
            try (Socket socket = new Socket(sink.address().getAddress(), sink.address().getPort())) {
                final ByteBuffer fetch = Wire.frame(FETCH_LENGTH, TYPE_FETCH);
                fetch.putLong(FETCH_FROM_OFFSET, primary.firstIndex()).putLong(FETCH_TO_OFFSET, primary.firstIndex())
                        .putLong(FETCH_QUEUE_ID_MOST_OFFSET, primary.queueId().getMostSignificantBits())
                        .putLong(FETCH_QUEUE_ID_LEAST_OFFSET, primary.queueId().getLeastSignificantBits());
                Wire.write(socket, fetch);
                final ByteBuffer error = Wire.read(socket);
                assertEquals(TYPE_ERROR, Wire.type(error));
                final ErrorFlyweight flyweight = new ErrorFlyweight().wrap(error, 0);
                assertEquals(ERROR_PROTOCOL, flyweight.code());
                assertTrue(flyweight.message(error.capacity()).contains("FETCH frame"), flyweight.message(error.capacity()));
                Wire.awaitClosed(socket);
            }
            append(appender, 10, 20);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated after the attacks");
            assertNull(source.failure());
        }
    }
}
