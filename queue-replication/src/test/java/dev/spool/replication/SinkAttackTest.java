package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.TermHistory;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.HelloFlyweight;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayDeque;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static dev.spool.replication.protocol.FrameDescriptor.*;
import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A peer without the shared secret against a running sink, over real sockets: it may cost a refused connection or a
 * pending-handshake slot, never the live source, the sink itself, the replica's settings, a source's term or
 * anything about the replica.
 */
class SinkAttackTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    private ReplicationSink sink() {
        return ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(SECRET)
                .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).start();
    }

    private static ReplicationSource source(final SpoolQueue primary, final InetSocketAddress sink) {
        return ReplicationSource.builder(primary, sink).sharedSecret(SECRET).heartbeatInterval(HEARTBEAT)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50)).start();
    }

    private static Socket connect(final InetSocketAddress address) throws IOException {
        final Socket socket = new Socket(InetAddress.getLoopbackAddress(), address.getPort());
        socket.setSoTimeout(30_000);
        return socket;
    }

    /** @return every byte the peer sends within {@code millis} or until it closes the connection. */
    private static byte[] readFor(final Socket socket, final int millis) throws IOException {
        socket.setSoTimeout(millis);
        final ByteArrayOutputStream all = new ByteArrayOutputStream();
        final InputStream in = socket.getInputStream();
        final byte[] chunk = new byte[4096];
        try {
            int read;
            while ((read = in.read(chunk)) >= 0) {
                all.write(chunk, 0, read);
            }
        } catch (SocketTimeoutException e) {
            // what came in the time is what the test looks at
        }
        return all.toByteArray();
    }

    /** Writes excerpts until stopped, so that the source streams all along. */
    private static Thread writer(final SpoolQueue primary, final AtomicBoolean stop, final AtomicInteger written) {
        final Thread thread = new Thread(() -> {
            try (ExcerptAppender appender = primary.createAppender()) {
                while (!stop.get()) {
                    appender.append(message(written.getAndIncrement()));
                    if (written.get() % 64 == 0) {
                        // a steady stream, not a disk-filling one
                        LockSupport.parkNanos(100_000);
                    }
                }
            }
        }, "writer");
        thread.start();
        return thread;
    }

    @Test
    void shouldKeepTheStreamingSourceWhileConnectionsConnectAndReset() throws Exception {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ReplicationSink sink = sink();
             ReplicationSource source = source(primary, sink.address())) {
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicInteger written = new AtomicInteger();
            final Thread writer = writer(primary, stop, written);
            await(sink::isConnected, "the source streams");
            for (int burst = 0; burst < 20; burst++) {
                for (int i = 0; i < 10; i++) {
                    try (Socket reset = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                        reset.setSoLinger(true, 0);
                    }
                }
                final long before = sink.lastIndex();
                await(() -> sink.lastIndex() > before, "the stream goes on after burst");
            }
            stop.set(true);
            writer.join();
            Replicas.awaitReplicated(primary, sink);
            assertNull(sink.failure(), "the sink still serves");
            assertTrue(source.isConnected(0), "and the same source streams");
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertIdentical(primary, replica);
        }
    }

    @Test
    void shouldCompleteAHandshakeWhileAPeerKeepsConnectingAndSendingNothing() throws Exception {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            append(appender, 0, 100);
            final AtomicBoolean stop = new AtomicBoolean();
            final Thread attacker = new Thread(() -> {
                final ArrayDeque<Socket> open = new ArrayDeque<>();
                try {
                    while (!stop.get()) {
                        open.add(new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort()));
                        if (open.size() > 32) {
                            open.poll().close();
                        }
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } finally {
                    for (final Socket socket : open) {
                        try {
                            socket.close();
                        } catch (IOException ignored) {
                            // closing a test's socket
                        }
                    }
                }
            }, "attacker");
            attacker.start();
            try (ReplicationSource source = source(primary, sink.address())) {
                Replicas.awaitReplicated(primary, sink);
            } finally {
                stop.set(true);
                attacker.join();
            }
            assertNull(sink.failure());
        }
    }

    @Test
    void shouldCreateANewReplicaAsItsSourceAfterAnUnauthenticatedHelloOfTheOtherRollKind() throws IOException {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            append(appender, 0, 10);
            try (Socket attacker = connect(sink.address())) {
                final ByteBuffer zoned = Wire.hello(primary, primary.queueId());
                new HelloFlyweight().wrap(zoned, 0).features(MetadataDescriptor.FEATURE_ZONED_ROLL)
                        .roll(LocalTime.of(17, 0), ZoneId.of("America/New_York"));
                Wire.write(attacker, zoned);
                readFor(attacker, 300);
            }
            try (ReplicationSource source = source(primary, sink.address())) {
                Replicas.awaitReplicated(primary, sink);
            }
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(primary.rollCycle(), replica.rollCycle());
            assertEquals(10, assertIdentical(primary, replica));
        }
    }

    @Test
    void shouldRetryNotStopWhenARelayFlipsABitOfTheHellosQueueId() throws Exception {
        expectWarning("did not prove the shared secret: its WELCOME's MAC is wrong");
        expectWarning("reports error " + ERROR_AUTHENTICATION);
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            append(appender, 0, 10);
            try (ReplicationSource source = source(primary, sink.address())) {
                Replicas.awaitReplicated(primary, sink);
            }
            append(appender, 10, 20);
            try (TamperingRelay relay = new TamperingRelay(sink.address().getPort(), 2);
                 ReplicationSource source = source(primary, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                         relay.port()))) {
                Replicas.awaitReplicated(primary, sink);
                assertTrue(relay.tampered.get() >= 2, "the relay altered two HELLOs");
                assertEquals(1, source.runningReplicas(), "the source never stopped");
                assertNull(source.failure(0));
            }
        }
    }

    @Test
    void shouldNeitherFenceASourceWithABusySinksRecordedRefusalNorWithAnotherQueuesBusySink() throws Exception {
        expectWarning("lost");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            append(appender, 0, 10);
            try (ReplicationSink first = ReplicationSink.builder(tempDir.resolve("first")).sharedSecret(SECRET)
                    .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).start();
                 ReplicationSource source = source(primary, first.address())) {
                Replicas.awaitReplicated(primary, first);
                assertEquals(1, first.promote(), "a replica of term 1");
            }
        }
        try (SpoolQueue promoted = open(tempDir.resolve("first")); ReplicationSink busy = sink();
             ReplicationSource streaming = source(promoted, busy.address());
             SpoolQueue other = open(tempDir.resolve("other"))) {
            await(busy::isConnected, "the promoted queue streams to the sink, which takes term 1");
            final byte[] recorded;
            try (Socket attacker = connect(busy.address())) {
                recorded = readFor(attacker, 1_000);
            }
            try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                 ReplicationSource victim = source(other, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                         fake.getLocalPort()))) {
                fake.setSoTimeout(30_000);
                for (int i = 0; i < 3; i++) {
                    try (Socket socket = fake.accept()) {
                        assertEquals(TYPE_HELLO, Wire.type(Wire.read(socket)));
                        socket.getOutputStream().write(recorded);
                        socket.getOutputStream().flush();
                    }
                }
                assertEquals(ReplicationRole.PRIMARY, Failover.role(other), "a replayed refusal fences nothing");
                assertNull(victim.failure());
            }
            expectWarning("has queue id");
            expectWarning("stopped");
            try (ReplicationSource misdirected = source(other, busy.address())) {
                await(() -> misdirected.failure() != null || Failover.role(other) != ReplicationRole.PRIMARY,
                        "the sink of another queue answers");
                assertEquals(ReplicationRole.PRIMARY, Failover.role(other), "another queue's term fences nothing");
                assertEquals(0, Failover.term(other));
            }
        }
    }

    @Test
    void shouldRevealNothingAboutTheReplicaBeforeThePeerProvedTheSecret() throws IOException {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            append(appender, 0, 10);
            try (ReplicationSink sink = sink(); ReplicationSource source = source(primary, sink.address())) {
                Replicas.awaitReplicated(primary, sink);
            }
            try (ReplicationSink sink = sink()) {
                final byte[] last = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(0, primary.lastIndex()).array();
                for (final UUID queueId : new UUID[] {primary.queueId(), UUID.randomUUID()}) {
                    try (Socket attacker = connect(sink.address())) {
                        final ByteBuffer hello = Wire.hello(primary, queueId);
                        new HelloFlyweight().wrap(hello, 0).maxMessageLength(Integer.MAX_VALUE);
                        Wire.write(attacker, hello);
                        final byte[] answer = readFor(attacker, 500);
                        final String text = new String(answer, StandardCharsets.ISO_8859_1);
                        assertFalse(text.contains(tempDir.resolve("replica").toString()), "no path: " + text);
                        assertFalse(text.contains(primary.queueId().toString()), "no queue id: " + text);
                        assertFalse(text.contains("" + Integer.MAX_VALUE) || text.contains("maximum frame length"),
                                "no limit: " + text);
                        assertEquals(-1, indexOf(answer, last), "no last index");
                    }
                }
                assertNull(sink.failure());
            }
        }
    }

    @Test
    void shouldRefuseAHelloTermOutOfRangeNamingPeerAndValueAndAPromotionPastTheLastTerm() throws IOException {
        expectWarning("closing the connection");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            append(appender, 0, 3);
            try (Socket peer = connect(sink.address())) {
                final ByteBuffer hello = Wire.hello(primary, primary.queueId());
                new HelloFlyweight().wrap(hello, 0).term(Long.MAX_VALUE);
                Wire.write(peer, hello);
                final ByteBuffer refused = Wire.read(peer);
                assertEquals(TYPE_ERROR, Wire.type(refused));
                final String message = new ErrorFlyweight().wrap(refused, 0).message(refused.capacity());
                assertTrue(message.startsWith("\"HELLO frame from /127.0.0.1:" + peer.getLocalPort() + ": term="
                        + Long.MAX_VALUE), message);
            }
            try (ReplicationSource source = source(primary, sink.address())) {
                Replicas.awaitReplicated(primary, sink);
            }
        }
        try (SpoolQueue replica = open(tempDir.resolve("replica"))) {
            final QueueInternals internals = replica.unwrap(QueueInternals.class);
            assertThrows(SpoolException.class, () -> internals.adoptTerm(TermHistory.of(Long.MAX_VALUE)));
            internals.adoptTerm(TermHistory.of(MetadataDescriptor.MAX_TERM));
            final SpoolException past = assertThrows(SpoolException.class, () -> Failover.promote(replica));
            assertTrue(past.getMessage().contains("cannot be promoted"), past.getMessage());
            assertEquals(MetadataDescriptor.MAX_TERM, Failover.term(replica));
        }
    }

    @Test
    void shouldReportARefusedSecretThroughFailureBackOffAndLogOnceThenACount() throws Exception {
        expectWarning("refused this source's proof");
        expectWarning("did not prove the shared secret");
        expectWarning("insecure()");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink(); TamperingRelay relay = new TamperingRelay(sink.address().getPort(), 0);
             ReplicationSource source = ReplicationSource.builder(primary, new InetSocketAddress(
                     InetAddress.getLoopbackAddress(), relay.port())).insecure().heartbeatInterval(HEARTBEAT).start();
             CommitWaiter waiter = source.commitWaiter(appender)) {
            final long index = appender.append(message(0));
            final long started = System.nanoTime();
            await(() -> source.failure(0) != null, "the refusals are reported");
            assertTrue(source.failure(0).getMessage().contains("refused this source's proof"),
                    source.failure(0).getMessage());
            assertNotNull(source.failure(), "no replica can acknowledge");
            final long waitStarted = System.nanoTime();
            final ReplicationException failed = assertThrows(ReplicationException.class,
                    () -> waiter.await(index, CommitStage.ACKED, 30, TimeUnit.SECONDS));
            assertTrue(System.nanoTime() - waitStarted < TimeUnit.SECONDS.toNanos(5),
                    "the wait fails fast");
            assertTrue(failed.getMessage().contains("refused this source's proof"), failed.getMessage());
            final long elapsed = System.nanoTime() - started;
            await(() -> System.nanoTime() - started > TimeUnit.SECONDS.toNanos(3), "3 s pass");
            assertTrue(relay.connections.get() <= 12, relay.connections.get() + " attempts in "
                    + elapsed / 1_000_000 + " ms and 3 s: the source backs off");
            assertTrue(countLogged("refused this source's proof") <= 4, "the source logs once, then with a count");
            assertTrue(countLogged("refusing the source at") <= 4, "the sink logs once, then with a count");
            assertEquals(1, source.runningReplicas(), "and it still retries");
        }
    }

    private static int indexOf(final byte[] all, final byte[] part) {
        for (int i = 0; i + part.length <= all.length; i++) {
            boolean found = true;
            for (int j = 0; j < part.length && found; j++) {
                found = all[i + j] == part[j];
            }
            if (found) {
                return i;
            }
        }
        return -1;
    }

    /** Relays connections to the sink, flipping one bit of the queue id in the first {@code count} HELLOs. */
    private static final class TamperingRelay implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        private final int target;
        private final int count;
        final AtomicInteger tampered = new AtomicInteger();
        final AtomicInteger connections = new AtomicInteger();
        private final Thread acceptor;

        TamperingRelay(final int target, final int count) throws IOException {
            this.target = target;
            this.count = count;
            this.acceptor = new Thread(this::accept, "relay");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    final Socket from = server.accept();
                    connections.incrementAndGet();
                    final Socket to = new Socket(InetAddress.getLoopbackAddress(), target);
                    final byte[] hello = from.getInputStream().readNBytes(HELLO_LENGTH);
                    if (tampered.get() < count) {
                        hello[HELLO_QUEUE_ID_MOST_OFFSET] ^= 1;
                        tampered.incrementAndGet();
                    }
                    to.getOutputStream().write(hello);
                    pump(from, to);
                    pump(to, from);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void pump(final Socket in, final Socket out) {
            final Thread thread = new Thread(() -> {
                try {
                    final InputStream input = in.getInputStream();
                    final OutputStream output = out.getOutputStream();
                    final byte[] chunk = new byte[8192];
                    int read;
                    while ((read = input.read(chunk)) >= 0) {
                        output.write(chunk, 0, read);
                    }
                } catch (IOException e) {
                    // one side went: the relay of this connection ends
                } finally {
                    try {
                        in.close();
                        out.close();
                    } catch (IOException ignored) {
                        // closing a test's socket
                    }
                }
            }, "pump");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
