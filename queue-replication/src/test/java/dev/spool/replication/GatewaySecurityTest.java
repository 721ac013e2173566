package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.queue.ChildJvm;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.PublishFlyweight;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.protocol.FrameDescriptor.*;
import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The publish gateway as a server that cannot be knocked over: only clients that prove the secret publish; idle,
 * slow and surplus connections are closed; a flood of them in a JVM with little direct memory leaves it serving.
 */
class GatewaySecurityTest extends SpoolTestBase {
    /** Sent by the flood's child JVM: a gateway with 1 MiB messages in 16 MiB of direct memory. */
    static final String MAX_DIRECT_MEMORY = "-XX:MaxDirectMemorySize=16m";
    static final int FLOOD = 1000;

    @Test
    void shouldAppendNothingFromAClientThatDoesNotProveTheSecret() throws IOException {
        expectWarning("closing the connection");
        final byte[] wrong = "not the gateway's secret, 32 B".getBytes(StandardCharsets.US_ASCII);
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(SECRET).start()) {
            final UncheckedIOException refused = assertThrows(UncheckedIOException.class,
                    () -> PublishClient.connect(gateway.address(), 64, wrong));
            assertTrue(refused.getCause().getMessage().contains("did not prove the shared secret"),
                    refused.getCause().getMessage());
            try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), gateway.address().getPort())) {
                raw.setSoTimeout(30_000);
                final byte[] payload = message(1);
                final ByteBuffer publish = Wire.frame(PublishFlyweight.frameLength(payload.length), TYPE_PUBLISH);
                new PublishFlyweight().wrap(publish, 0).clientId(1).sequence(1).stage(CommitStage.WRITTEN.ordinal())
                        .payload(payload, 0, payload.length);
                Wire.write(raw, publish);
                final ByteBuffer error = Wire.read(raw);
                assertEquals(TYPE_ERROR, Wire.type(error));
                assertTrue(new ErrorFlyweight().wrap(error, 0).message(error.capacity())
                        .contains("PUBLISH frame from /127.0.0.1:" + raw.getLocalPort() + " where CLIENT_HELLO was expected"));
                Wire.awaitClosed(raw);
            }
            assertEquals(-1, primary.lastIndex(), "nothing appended");
            try (PublishClient client = PublishClient.connect(gateway.address(), 8192, SECRET)) {
                final byte[] message = message(2);
                assertTrue(client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN),
                        30, TimeUnit.SECONDS) >= 0, "an authenticated client is served");
            }
            assertNull(gateway.failure());
        }
    }

    @Test
    void shouldCloseConnectionsThatDoNotAuthenticateInTimeOrPassTheLimit() throws IOException {
        expectWarning("refusing new connections (1 so far): maxConnections=2 reached, none of which is still to prove"
                + " the secret");
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(SECRET).maxConnections(2)
                     .handshakeTimeout(Duration.ofMillis(300)).start();
             Socket first = new Socket(InetAddress.getLoopbackAddress(), gateway.address().getPort());
             Socket second = new Socket(InetAddress.getLoopbackAddress(), gateway.address().getPort());
             Socket third = new Socket(InetAddress.getLoopbackAddress(), gateway.address().getPort())) {
            first.setSoTimeout(30_000);
            second.setSoTimeout(30_000);
            third.setSoTimeout(30_000);
            assertEquals(-1, first.getInputStream().read(), "the oldest unproved connection made room for the third");
            assertEquals(-1, second.getInputStream().read(), "closed after the handshake timeout");
            assertEquals(-1, third.getInputStream().read(), "closed after the handshake timeout");
            try (PublishClient client = PublishClient.connect(gateway.address(), 8192, SECRET);
                 PublishClient other = PublishClient.connect(gateway.address(), 8192, SECRET)) {
                final byte[] message = message(3);
                assertTrue(client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN),
                        30, TimeUnit.SECONDS) >= 0, "the slots are free again");
                try (Socket past = new Socket(InetAddress.getLoopbackAddress(), gateway.address().getPort())) {
                    past.setSoTimeout(30_000);
                    assertEquals(-1, past.getInputStream().read(),
                            "with every slot proved, a connection past the limit is closed at once");
                }
                assertTrue(other.awaitCommit(other.publish(message, 0, message.length, CommitStage.WRITTEN),
                        30, TimeUnit.SECONDS) >= 0, "the clients that proved the secret keep their slots");
            }
        }
    }

    /** Idle sockets that never prove anything cannot lock a client that does out of a gateway: the oldest makes room. */
    @Test
    void shouldServeAnAuthenticatedClientWhenIdleUnprovedConnectionsHoldEverySlot() throws IOException {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(SECRET).maxConnections(32)
                     .start()) {
            final List<Socket> idle = new ArrayList<>();
            try {
                for (int i = 0; i < 32; i++) {
                    idle.add(new Socket(InetAddress.getLoopbackAddress(), gateway.address().getPort()));
                }
                try (PublishClient client = PublishClient.connect(gateway.address(), 8192, SECRET)) {
                    final byte[] message = message(5);
                    assertTrue(client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN),
                            30, TimeUnit.SECONDS) >= 0, "the authenticated client is served");
                }
                idle.get(0).setSoTimeout(30_000);
                assertEquals(-1, idle.get(0).getInputStream().read(), "the oldest idle connection made room");
            } finally {
                for (final Socket socket : idle) {
                    socket.close();
                }
            }
            assertNull(gateway.failure());
        }
    }

    /**
     * One address holds at most maxConnectionsPerAddress: a new connection from it closes its oldest unproved one, or
     * is closed itself when all of its connections have proved the secret; other addresses are served meanwhile.
     */
    @Test
    void shouldCapTheConnectionsFromOneAddressClosingItsOldestUnprovedOneFirst() throws IOException {
        expectWarning("maxConnectionsPerAddress=2 reached by /127.0.0.1, none of whose connections is still to prove"
                + " the secret");
        expectWarning("where CLIENT_HELLO was expected");
        final InetAddress other = InetAddress.getByName("127.0.0.2");
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(SECRET).maxConnections(8)
                     .maxConnectionsPerAddress(2).start();
             Socket oldest = new Socket(gateway.address().getAddress(), gateway.address().getPort(), other, 0);
             Socket newer = new Socket(gateway.address().getAddress(), gateway.address().getPort(), other, 0);
             Socket newest = new Socket(gateway.address().getAddress(), gateway.address().getPort(), other, 0)) {
            oldest.setSoTimeout(30_000);
            assertEquals(-1, oldest.getInputStream().read(), "the address's oldest unproved connection made room");
            try (PublishClient first = PublishClient.connect(gateway.address(), 8192, SECRET);
                 PublishClient second = PublishClient.connect(gateway.address(), 8192, SECRET)) {
                final byte[] message = message(6);
                assertTrue(first.awaitCommit(first.publish(message, 0, message.length, CommitStage.WRITTEN),
                        30, TimeUnit.SECONDS) >= 0);
                final UncheckedIOException refused = assertThrows(UncheckedIOException.class,
                        () -> PublishClient.connect(gateway.address(), 8192, SECRET),
                        "a third connection from an address whose two have proved the secret is closed");
                assertTrue(refused.getMessage().contains(String.valueOf(gateway.address())), refused.getMessage());
                assertTrue(second.awaitCommit(second.publish(message, 0, message.length, CommitStage.WRITTEN),
                        30, TimeUnit.SECONDS) >= 0, "the address's clients keep their slots");
                // the other address's unproved connections still hold theirs: it answers a PUBLISH with an ERROR
                // (one that fits a connection's handshake buffers)
                final byte[] payload = message(2);
                final ByteBuffer publish = Wire.frame(PublishFlyweight.frameLength(payload.length), TYPE_PUBLISH);
                new PublishFlyweight().wrap(publish, 0).clientId(1).sequence(1).stage(CommitStage.WRITTEN.ordinal())
                        .payload(payload, 0, payload.length);
                newest.setSoTimeout(30_000);
                Wire.write(newest, publish);
                assertEquals(TYPE_ERROR, Wire.type(Wire.read(newest)));
            }
            assertNull(gateway.failure());
        }
    }

    /**
     * Commits at ACKED on a gateway without a source never come: at maxPendingCommits the next such publish is not
     * appended, and its client learns the limit.
     */
    @Test
    void shouldRefuseAPublishPastTheMaxPendingCommitsNamingTheLimit() {
        expectWarning("maxPendingCommits=3 reached");
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(SECRET).maxPendingCommits(3)
                     .start()) {
            try (PublishClient client = PublishClient.connect(gateway.address(), 8192, SECRET)) {
                final byte[] message = message(8);
                for (int i = 0; i < 3; i++) {
                    client.publish(message, 0, message.length, CommitStage.ACKED);
                }
                final long refused = client.publish(message, 0, message.length, CommitStage.ACKED);
                final SpoolException error = assertThrows(SpoolException.class,
                        () -> client.awaitCommit(refused, 30, TimeUnit.SECONDS));
                assertTrue(error.getMessage().contains("reports error " + ERROR_BUSY + ": \"maxPendingCommits=3 reached"),
                        error.getMessage());
                assertTrue(error.getMessage().contains("a gateway without a source never gets"), error.getMessage());
            }
            assertEquals(3, count(primary), "the refused publish was not appended");
            try (PublishClient client = PublishClient.connect(gateway.address(), 8192, SECRET)) {
                final byte[] message = message(9);
                assertTrue(client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN),
                        30, TimeUnit.SECONDS) >= 0, "the gone client's commits no longer count");
            }
            assertNull(gateway.failure());
        }
    }

    private static long count(final SpoolQueue queue) {
        try (dev.spool.queue.ExcerptTailer tailer = queue.createTailer()) {
            long count = 0;
            while (tailer.read((bytes, offset, length, index) -> { })) {
                count++;
            }
            return count;
        }
    }

    @Test
    void shouldCloseAClientWhoseMessageWouldPassTheBytesInFlightAndServeOthersWhenTheyAreFreed() {
        expectWarning("maxBytesInFlight");
        final int maxMessageLength = 64 * 1024;
        final long oneClient = PublishGateway.HANDSHAKE_CAPACITY + PublishFlyweight.frameLength(maxMessageLength)
                + FrameMac.TAG_LENGTH + PublishGateway.COMMIT_CAPACITY;
        final byte[] big = new byte[60 * 1024];
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20)
                .maxMessageLength(maxMessageLength).openOrCreate();
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(SECRET)
                     .maxBytesInFlight(oneClient + 10_000).start()) {
            try (PublishClient first = PublishClient.connect(gateway.address(), maxMessageLength, SECRET);
                 PublishClient second = PublishClient.connect(gateway.address(), maxMessageLength, SECRET)) {
                assertTrue(first.awaitCommit(first.publish(big, 0, big.length, CommitStage.WRITTEN), 30,
                        TimeUnit.SECONDS) >= 0);
                final long correlation = second.publish(big, 0, big.length, CommitStage.WRITTEN);
                final RuntimeException refused = assertThrows(RuntimeException.class,
                        () -> second.awaitCommit(correlation, 30, TimeUnit.SECONDS));
                assertTrue(String.valueOf(refused.getMessage()).contains("reports error " + ERROR_BUSY)
                        || refused instanceof UncheckedIOException, String.valueOf(refused));
                assertEquals(0, primary.lastIndex() - firstIndex(primary), "only the first client's message");
            }
            try (PublishClient third = PublishClient.connect(gateway.address(), maxMessageLength, SECRET)) {
                assertTrue(third.awaitCommit(third.publish(big, 0, big.length, CommitStage.WRITTEN), 30,
                        TimeUnit.SECONDS) >= 0, "the first client's buffers were returned when it left");
            }
            assertNull(gateway.failure());
        }
    }

    private static long firstIndex(final SpoolQueue queue) {
        try (dev.spool.queue.ExcerptTailer tailer = queue.createTailer()) {
            final long[] first = {-1};
            tailer.read((bytes, offset, length, index) -> first[0] = index);
            return first[0];
        }
    }

    @Test
    void shouldCloseAClientIdleForTheIdleTimeout() {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(SECRET)
                     .idleTimeout(Duration.ofMillis(200)).start();
             PublishClient client = PublishClient.connect(gateway.address(), 8192, SECRET)) {
            final byte[] message = message(4);
            assertTrue(client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN), 30,
                    TimeUnit.SECONDS) >= 0);
            final long never = client.publish(message, 0, message.length, CommitStage.ACKED);
            assertThrows(UncheckedIOException.class, () -> client.awaitCommit(never, 30, TimeUnit.SECONDS),
                    "the gateway closed the idle client (no replica: the commit would never come)");
        }
    }

    @Test
    void shouldRefuseGatewayOptionsOutOfRangeNamingOptionAndValue() {
        try (SpoolQueue primary = open(tempDir.resolve("primary"))) {
            assertEquals("maxConnections=0 must be at least 1", assertThrows(SpoolException.class,
                    () -> PublishGateway.builder(primary, null).sharedSecret(SECRET).maxConnections(0).start())
                    .getMessage());
            assertTrue(assertThrows(SpoolException.class, () -> PublishGateway.builder(primary, null)
                    .sharedSecret(SECRET).maxBytesInFlight(1000).start()).getMessage()
                    .startsWith("maxBytesInFlight=1000 cannot hold one client's buffers"));
            assertEquals("handshakeTimeout=PT0S must be positive", assertThrows(SpoolException.class,
                    () -> PublishGateway.builder(primary, null).sharedSecret(SECRET).handshakeTimeout(Duration.ZERO)
                            .start()).getMessage());
            assertEquals("idleTimeout=PT-1S must be positive", assertThrows(SpoolException.class,
                    () -> PublishGateway.builder(primary, null).sharedSecret(SECRET)
                            .idleTimeout(Duration.ofSeconds(-1)).start()).getMessage());
        }
    }

    /**
     * A thousand connections that never authenticate, half idle and half trickling a CLIENT_HELLO a byte at a time,
     * against a gateway in a child JVM with 16 MiB of direct memory and 1 MiB messages (the gateway that allocated
     * a whole frame per connection ran out after about 16): an authenticated client is still served, and the child
     * is alive.
     */
    @Test
    void shouldServeAnAuthenticatedClientThroughAThousandIdleOrSlowConnectionsInLittleDirectMemory() throws Exception {
        final Path stderr = tempDir.resolve("gateway.err");
        try (ChildJvm child = ChildJvm.startWithOptions(FloodedGateway.class, stderr, List.of(MAX_DIRECT_MEMORY),
                tempDir.resolve("primary").toString())) {
            final String line = child.awaitLine("GATEWAY", 60, TimeUnit.SECONDS);
            final InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    Integer.parseInt(line.substring("GATEWAY ".length())));
            final List<Socket> flood = new ArrayList<>();
            try {
                for (int i = 0; i < FLOOD; i++) {
                    final Socket socket = new Socket(address.getAddress(), address.getPort());
                    flood.add(socket);
                    if (i % 2 == 1) {
                        // slowloris: the first byte of a CLIENT_HELLO, and nothing more
                        socket.getOutputStream().write(CLIENT_HELLO_LENGTH);
                    }
                }
                for (int round = 0; round < 3; round++) {
                    try (PublishClient client = PublishClient.connect(address, 1 << 20, SECRET)) {
                        final byte[] big = new byte[1 << 20];
                        big[0] = (byte) round;
                        assertTrue(client.awaitCommit(client.publish(big, 0, big.length, CommitStage.WRITTEN),
                                30, TimeUnit.SECONDS) >= 0, "round " + round + ": an authenticated client is served");
                    }
                }
                for (final Socket socket : flood) {
                    socket.setSoTimeout(30_000);
                    assertEquals(-1, socket.getInputStream().read(), "the gateway closes it after the handshake timeout");
                }
            } finally {
                for (final Socket socket : flood) {
                    socket.close();
                }
            }
            child.send("STOP");
            assertEquals("STOPPED alive", child.awaitLine("STOPPED", 60, TimeUnit.SECONDS), child.stderrTail());
        }
    }

    /**
     * A client whose send buffer cannot grow (direct memory exhausted) is closed, and nothing else: the gateway goes
     * on serving once memory is back (a growth that set the buffer aside before allocating left close() to throw,
     * which stopped the gateway).
     */
    @Test
    void shouldCloseOnlyTheClientWhoseBufferCannotGrowAndServeTheNextOnceMemoryIsBack() throws Exception {
        final Path stderr = tempDir.resolve("gateway.err");
        try (ChildJvm child = ChildJvm.startWithOptions(StarvedGateway.class, stderr, List.of(MAX_DIRECT_MEMORY),
                tempDir.resolve("primary").toString())) {
            final String line = child.awaitLine("GATEWAY", 60, TimeUnit.SECONDS);
            final InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    Integer.parseInt(line.substring("GATEWAY ".length())));
            final byte[] message = message(10);
            try (PublishClient starved = PublishClient.connect(address, 8192, SECRET)) {
                child.send("EXHAUST");
                child.awaitLine("EXHAUSTED", 60, TimeUnit.SECONDS);
                final long correlation = starved.publish(message, 0, message.length, CommitStage.WRITTEN);
                assertThrows(UncheckedIOException.class, () -> starved.awaitCommit(correlation, 30, TimeUnit.SECONDS),
                        "its commit buffer cannot grow: the gateway closes it");
            }
            child.send("FREE");
            child.awaitLine("FREED", 60, TimeUnit.SECONDS);
            try (PublishClient client = PublishClient.connect(address, 8192, SECRET)) {
                assertTrue(client.awaitCommit(client.publish(message, 0, message.length, CommitStage.WRITTEN), 30,
                        TimeUnit.SECONDS) >= 0, "the gateway serves the next client");
            }
            child.send("STOP");
            assertEquals("STOPPED alive", child.awaitLine("STOPPED", 60, TimeUnit.SECONDS), child.stderrTail());
        }
    }

    /**
     * {@code dir}: a gateway with a secret in 16 MiB of direct memory; prints its port; at EXHAUST takes all the
     * direct memory left, at FREE gives it back; at STOP prints STOPPED alive, or failed and why.
     */
    static final class StarvedGateway {
        public static void main(final String[] args) throws Exception {
            try (SpoolQueue queue = SpoolQueue.builder(Path.of(args[0])).chunkLength(1 << 20).openOrCreate();
                 PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(SECRET).start()) {
                System.out.println("GATEWAY " + gateway.address().getPort());
                final java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                        StandardCharsets.UTF_8));
                List<ByteBuffer> hoard = new ArrayList<>();
                String command;
                while ((command = in.readLine()) != null && !"STOP".equals(command)) {
                    if ("EXHAUST".equals(command)) {
                        try {
                            while (true) {
                                hoard.add(ByteBuffer.allocateDirect(1024));
                            }
                        } catch (OutOfMemoryError e) {
                            System.out.println("EXHAUSTED " + hoard.size() + " KiB");
                        }
                    } else if ("FREE".equals(command)) {
                        hoard = new ArrayList<>();
                        System.gc();
                        System.out.println("FREED");
                    }
                }
                System.out.println("STOPPED " + (gateway.failure() == null ? "alive" : "failed " + gateway.failure()));
            }
        }
    }

    /** {@code dir}: a gateway with a secret and 1 MiB messages; prints its port, then STOPPED alive at STOP. */
    static final class FloodedGateway {
        public static void main(final String[] args) throws Exception {
            try (SpoolQueue queue = SpoolQueue.builder(Path.of(args[0])).chunkLength(64L << 20)
                    .maxMessageLength(1 << 20).openOrCreate();
                 PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(SECRET)
                         .maxConnections(2 * FLOOD).maxConnectionsPerAddress(2 * FLOOD).maxBytesInFlight(8L << 20).handshakeTimeout(Duration.ofSeconds(10))
                         .start()) {
                System.out.println("GATEWAY " + gateway.address().getPort());
                ReplicationMains.awaitStop();
                System.out.println("STOPPED " + (gateway.failure() == null ? "alive" : "failed " + gateway.failure()));
            }
        }
    }
}
