package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.protocol.Handshake;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.spool.replication.Replicas.*;
import static dev.spool.replication.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A repairer that proved the shared secret keeps its connection while peers without the secret open connections
 * faster than the sink's handshake places free: they compete among themselves, never with a proven peer; and a
 * repairer that cannot get through says why.
 */
class RepairUnderFloodTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    /** The handshakes a sink serves at once besides its source (docs/operations/security.md, "Security model"). */
    private static final int PLACES = 8;
    /** Twice the sink's handshake places: each burst closes every other peer that proved nothing. */
    private static final int BURST = 16;

    @Test
    void shouldRepairFromAReplicaWhileUnauthenticatedHellosFloodItsSink() throws Exception {
        final Path primaryDir = tempDir.resolve("primary");
        final Path replicaDir = tempDir.resolve("replica");
        final List<Socket> flood = new ArrayList<>();
        try (SpoolQueue primary = SpoolQueue.builder(primaryDir).chunkLength(1 << 20).checksums(true).openOrCreate();
             ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = ReplicationSink.builder(replicaDir).queueSettings(b -> b.chunkLength(1 << 20))
                     .heartbeatInterval(HEARTBEAT).sharedSecret(SECRET).start();
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).heartbeatInterval(HEARTBEAT)
                     .sharedSecret(SECRET).start()) {
            append(appender, 0, 400);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            // a range apart for each: the repairer asks for them one by one, over many round trips
            final Path file = lastCycleFile(primaryDir);
            for (int n = 7; n < 400; n += 10) {
                damage(file, n);
            }
            final ByteBuffer[] frames = {clientHello(), Wire.hello(primary, primary.queueId())};
            // the repairer reads its clock before each FETCH: bursts come while it fetches, after it proved the secret
            final AtomicLong reads = new AtomicLong();
            final NanoClock clock = () -> {
                final long read = reads.incrementAndGet();
                if (read == 30 || read == 90) {
                    burst(sink.address(), frames, flood);
                }
                return System.nanoTime();
            };

            final long rewritten = QueueRepair.fromReplica(sink.address()).sharedSecret(SECRET).nanoClock(clock)
                    .repair(primary);

            assertEquals(40, rewritten);
            assertEquals(0, countLogged("retrying"), "the repairer kept the connection it proved the secret on");
            assertTrue(reads.get() > 90, "both bursts came during the repair: " + reads.get() + " clock reads");
            assertEquals(2 * BURST, flood.size());
            append(appender, 400, 420);
            await(() -> sink.lastIndex() == primary.lastIndex(), "replicated after the flood");
            assertNull(source.failure());
        } finally {
            closeAll(flood);
        }
        assertArrayEquals(Files.readAllBytes(lastCycleFile(replicaDir)), Files.readAllBytes(lastCycleFile(primaryDir)));
    }

    @Test
    void shouldSayWhyARepairFailedAfterRetryingTheConnection() throws IOException {
        expectWarning("retrying");
        final Path primaryDir = tempDir.resolve("primary");
        final int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        try (SpoolQueue primary = SpoolQueue.builder(primaryDir).chunkLength(1 << 20).checksums(true).openOrCreate();
             ExcerptAppender appender = primary.createAppender()) {
            append(appender, 0, 20);
            damage(lastCycleFile(primaryDir), 5);
            final InetSocketAddress nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            final long start = System.nanoTime();

            final SpoolException failed = assertThrows(SpoolException.class, () -> QueueRepair.fromReplica(nobody)
                    .sharedSecret(SECRET).timeout(Duration.ofMillis(1500)).repair(primary));

            final String message = failed.getMessage();
            assertTrue(message.contains("the replica at " + nobody), message);
            assertTrue(message.matches("(?s).* after [0-9]+ attempts in [0-9]+ ms.*"), message);
            assertTrue(message.contains("Connection refused"), "the last cause: " + message);
            final int attempts = Integer.parseInt(message.replaceAll("(?s).* after ([0-9]+) attempts.*", "$1"));
            assertTrue(attempts > 1, message);
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(1500), "kept trying until the deadline");
            assertNotNull(failed.getCause(), "the last attempt's exception is the cause");
        }
    }

    private static ByteBuffer clientHello() {
        final ByteBuffer hello = Wire.frame(CLIENT_HELLO_LENGTH, TYPE_CLIENT_HELLO);
        hello.put(CLIENT_HELLO_NONCE_OFFSET, Handshake.nonce());
        return hello;
    }

    /**
     * A peer without the secret: {@link #BURST} connections that each send one frame, a CLIENT_HELLO or a source's
     * HELLO, and stay open; returns once the sink closed {@link #BURST} - {@link #PLACES} of them or more, so
     * the places they competed for were given out.
     */
    private static void burst(final InetSocketAddress sink, final ByteBuffer[] frames, final List<Socket> flood) {
        final List<Socket> burst = new ArrayList<>();
        try {
            for (int i = 0; i < BURST; i++) {
                final Socket socket = new Socket(sink.getAddress(), sink.getPort());
                socket.setSoTimeout(1);
                burst.add(socket);
                Wire.write(socket, frames[i % frames.length]);
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (closed(burst) < BURST - PLACES) {
                assertTrue(System.nanoTime() - deadline < 0, "the sink took every connection of the burst");
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        } finally {
            flood.addAll(burst);
        }
    }

    /** @return how many of the sockets the peer closed (or reset). */
    private static int closed(final List<Socket> sockets) {
        int closed = 0;
        final byte[] discard = new byte[4096];
        for (final Socket socket : sockets) {
            try {
                while (true) {
                    if (socket.getInputStream().read(discard) < 0) {
                        closed++;
                        break;
                    }
                }
            } catch (SocketTimeoutException e) {
                // open still
            } catch (IOException e) {
                closed++;
            }
        }
        return closed;
    }

    private static void closeAll(final List<Socket> sockets) {
        for (final Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException e) {
                // gone already
            }
        }
        sockets.clear();
    }
}
