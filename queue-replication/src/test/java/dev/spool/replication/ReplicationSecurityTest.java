package dev.spool.replication;

import dev.spool.queue.internal.TermHistory;
import dev.spool.queue.SpoolException;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.protocol.AckFlyweight;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.HelloFlyweight;
import dev.spool.replication.protocol.StartFlyweight;
import dev.spool.replication.protocol.WelcomeFlyweight;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import static dev.spool.replication.protocol.FrameDescriptor.*;
import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Attacks on replication, each as a regression test: a peer that has not proved the shared secret
 * changes no persistent state (fence, term, replica identity) and stops no service; a source retries it; a frame
 * replayed, injected or reordered after the handshake is refused; bad HELLO fields are named.
 */
class ReplicationSecurityTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    private ReplicationSink sink() {
        return ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(SECRET)
                .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).start();
    }

    private static ReplicationSource source(final SpoolQueue primary, final ServerSocket fake) {
        return ReplicationSource.builder(primary, new InetSocketAddress(InetAddress.getLoopbackAddress(),
                fake.getLocalPort())).sharedSecret(SECRET).heartbeatInterval(HEARTBEAT)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50)).start();
    }

    private static ByteBuffer error(final int code, final long term, final String message) {
        final byte[] utf8 = message.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer frame = Wire.frame(ErrorFlyweight.frameLength(utf8.length), TYPE_ERROR);
        new ErrorFlyweight().wrap(frame, 0).code(code).term(term).message(utf8, utf8.length);
        return frame;
    }

    private static void assertStillAPrimary(final SpoolQueue primary, final ReplicationSource source) {
        assertEquals(ReplicationRole.PRIMARY, Failover.role(primary), "not fenced");
        assertEquals(0, Failover.term(primary), "the term is untouched");
        assertNull(source.failure(), "the source retries, it does not stop");
        try (ExcerptAppender appender = primary.createAppender()) {
            assertTrue(appender.append(message(1)) >= 0, "appends still work");
        }
    }

    @Test
    void shouldRefuseToStartWithoutASecretUnlessToldInsecure() {
        expectWarning("is insecure()");
        try (SpoolQueue primary = open(tempDir.resolve("primary"))) {
            final InetSocketAddress nowhere = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
            assertTrue(assertThrows(SpoolException.class, () -> ReplicationSink.builder(tempDir.resolve("r"))
                    .start()).getMessage().contains("has no shared secret: give it sharedSecret(...), or call insecure()"));
            assertTrue(assertThrows(SpoolException.class, () -> ReplicationSource.builder(primary, nowhere)
                    .start()).getMessage().contains("the source of " + primary.directory() + " has no shared secret"));
            assertTrue(assertThrows(SpoolException.class, () -> PublishGateway.builder(primary, null).start())
                    .getMessage().contains("the publish gateway of " + primary.directory() + " has no shared secret"));
            assertTrue(assertThrows(SpoolException.class, () -> ReplicationSource.builder(primary, nowhere)
                    .sharedSecret(SECRET).insecure().start()).getMessage().contains("choose one"));
            assertThrows(SpoolException.class, () -> ReplicationSink.builder(tempDir.resolve("r"))
                    .sharedSecret(new byte[15]));
            try (ReplicationSink insecure = ReplicationSink.builder(tempDir.resolve("r")).insecure().start()) {
                assertTrue(logged("replication sink of " + tempDir.resolve("r") + " is insecure(): any process that"
                        + " can reach " + insecure.address()));
            }
        }
    }

    /** What a fake sink does with the connections a source makes to it. */
    @FunctionalInterface
    private interface FakeSink {
        void answer(ServerSocket fake) throws IOException;
    }

    /**
     * Points a source at {@code sink}, then checks that the source connects again, unfenced, unstopped and with
     * appends still working: what nothing unauthenticated may change.
     */
    private void assertRetriedAndStillAPrimaryAfter(final FakeSink sink) throws IOException {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ReplicationSource source = source(primary, fake)) {
            fake.setSoTimeout(30_000);
            sink.answer(fake);
            try (Socket again = fake.accept()) {
                assertEquals(TYPE_HELLO, Wire.type(Wire.read(again)), "the source retries");
            }
            assertStillAPrimary(primary, source);
        }
    }

    @Test
    void shouldNeitherFenceNorStopOnAnUnauthenticatedErrorWithAHigherTerm() throws IOException {
        assertRetriedAndStillAPrimaryAfter(fake -> {
            for (final int code : new int[] {ERROR_FENCED, ERROR_QUEUE_MISMATCH, ERROR_DIVERGED, ERROR_BUSY}) {
                try (Socket socket = fake.accept()) {
                    assertEquals(TYPE_HELLO, Wire.type(Wire.read(socket)));
                    Wire.write(socket, error(code, 99, "you are fenced by term 99"));
                    Wire.awaitClosed(socket);
                }
            }
        });
    }

    @Test
    void shouldRetryAfterAWelcomeWithABadMacAndActOnNothingInIt() throws IOException {
        expectWarning("did not prove the shared secret: its WELCOME's MAC is wrong");
        assertRetriedAndStillAPrimaryAfter(fake -> {
            try (Socket socket = fake.accept()) {
                assertEquals(TYPE_HELLO, Wire.type(Wire.read(socket)));
                final ByteBuffer welcome = Wire.frame(WELCOME_LENGTH, TYPE_WELCOME);
                new WelcomeFlyweight().wrap(welcome, 0).nonce(Handshake.nonce()).mac(new byte[MAC_LENGTH]);
                Wire.write(socket, welcome);
                final ByteBuffer told = Wire.read(socket);
                assertEquals(TYPE_ERROR, Wire.type(told));
                assertEquals(ERROR_AUTHENTICATION, new ErrorFlyweight().wrap(told, 0).code());
                Wire.awaitClosed(socket);
            }
        });
    }

    @Test
    void shouldRetryAnAuthenticationErrorAnsweringHelloBlamingNothing() throws IOException {
        assertRetriedAndStillAPrimaryAfter(fake -> {
            try (Socket socket = fake.accept()) {
                assertEquals(TYPE_HELLO, Wire.type(Wire.read(socket)));
                Wire.write(socket, error(ERROR_AUTHENTICATION, 99, "wrong secret"));
                Wire.awaitClosed(socket);
            }
        });
        // this source sent no proof yet: nothing the peer says there is a refusal of it
        assertFalse(logged("check this source's secret"));
    }

    @Test
    void shouldStopOnlyWhenASinkThatProvedTheSecretSaysTheQueuesDiffer() {
        expectWarning("refusing the source");
        expectWarning("stopped");
        try (SpoolQueue first = open(tempDir.resolve("first")); ExcerptAppender appender = first.createAppender();
             SpoolQueue other = open(tempDir.resolve("other")); ReplicationSink sink = sink()) {
            append(appender, 0, 3);
            try (ReplicationSource source = ReplicationSource.builder(first, sink.address()).sharedSecret(SECRET).start()) {
                Replicas.awaitReplicated(first, sink);
            }
            try (ReplicationSource stranger = ReplicationSource.builder(other, sink.address()).sharedSecret(SECRET)
                    .start()) {
                await(() -> stranger.failure() != null, "a source of another queue stops");
                assertTrue(stranger.failure().getMessage().contains("has queue id " + first.queueId()),
                        stranger.failure().getMessage());
            }
        }
    }

    @Test
    void shouldNotLetAnUnauthenticatedFirstConnectionCreateAFreshReplica() throws IOException {
        expectWarning("did not prove the shared secret: its START's MAC is wrong");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            append(appender, 0, 10);
            try (Socket attacker = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                attacker.setSoTimeout(30_000);
                Wire.write(attacker, Wire.hello(primary, UUID.randomUUID()));
                assertEquals(TYPE_WELCOME, Wire.type(Wire.read(attacker)));
                final ByteBuffer start = Wire.frame(startLength(1), TYPE_START);
                new StartFlyweight().wrap(start, 0).termHistory(TermHistory.of(0)).mac(new byte[MAC_LENGTH]);
                Wire.write(attacker, start);
                final ByteBuffer refused = Wire.read(attacker);
                assertEquals(ERROR_AUTHENTICATION, new ErrorFlyweight().wrap(refused, 0).code());
                Wire.awaitClosed(attacker);
                assertEquals(1, countLogged(":" + attacker.getLocalPort()), "the sink logs the failure once");
            }
            assertFalse(SpoolQueue.exists(tempDir.resolve("replica")), "the attacker created no replica");
            assertNull(sink.failure(), "the sink still serves");
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(SECRET)
                    .start()) {
                Replicas.awaitReplicated(primary, sink);
            }
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(primary.queueId(), replica.queueId(), "the replica is the real source's");
            assertEquals(10, assertIdentical(primary, replica));
        }
    }

    @Test
    void shouldRefuseAReplayedSessionAndAReplayedOrInjectedFrame() throws IOException {
        expectWarning("did not prove the shared secret: its START's MAC is wrong");
        expectWarning("MAC wrong for frame");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            append(appender, 0, 3);
            final long[] indices = indices(primary);
            final byte[] recorded;
            try (Socket genuine = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                genuine.setSoTimeout(30_000);
                final Wire.Session session = Wire.Session.open(genuine, primary);
                final ByteBuffer data = session.data(indices[0], message(0));
                Wire.write(genuine, data);
                await(() -> sink.lastIndex() == indices[0], "the first excerpt is written");
                recorded = concat(session.hello, session.start, Wire.bytes(data, data.capacity()));
                // the same frame again: its MAC is for sequence 0, the sink expects 1
                Wire.write(genuine, data);
                Wire.awaitClosed(genuine);
            }
            assertEquals(indices[0], sink.lastIndex(), "the replayed frame wrote nothing");
            try (Socket replay = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                replay.setSoTimeout(30_000);
                replay.getOutputStream().write(recorded);
                Wire.awaitClosed(replay);
            }
            assertEquals(indices[0], sink.lastIndex(), "the replayed session wrote nothing");
            try (Socket injecting = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                injecting.setSoTimeout(30_000);
                final Wire.Session session = Wire.Session.open(injecting, primary);
                final FrameMac forged = new FrameMac();
                forged.key(new byte[32]);
                Wire.write(injecting, Wire.sealed(session.plainData(indices[1], message(1)), forged));
                Wire.awaitClosed(injecting);
            }
            assertEquals(indices[0], sink.lastIndex(), "the injected frame wrote nothing");
            assertNull(sink.failure(), "the sink still serves");
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(SECRET)
                    .start()) {
                Replicas.awaitReplicated(primary, sink);
            }
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(3, assertIdentical(primary, replica));
        }
    }

    @Test
    void shouldSendNothingButTheHandshakeBeforeTheSessionAndOnlyAuthenticatedFramesAfter()
            throws IOException {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            append(appender, 0, 3);
            try (ReplicationSink sink = sink();
                 ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(SECRET)
                         .start()) {
                Replicas.awaitReplicated(primary, sink);
            }
            // a sink started afresh on a replica that holds excerpts: it owes its source an acknowledgement
            try (ReplicationSink sink = sink();
                 Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                socket.setSoTimeout(30_000);
                final Wire.Session session = Wire.Session.open(socket, primary);
                Wire.write(socket, session.heartbeat());
                final ByteBuffer ack = Wire.read(socket);
                assertEquals(TYPE_ACK, Wire.type(ack));
                assertEquals(ACK_LENGTH + FrameMac.TAG_LENGTH, ack.capacity(), "the first frame after START has a MAC");
                assertTrue(session.sinkMac.verify(ack, 0, ACK_LENGTH), "and it is the session's first");
                assertEquals(primary.lastIndex(), new AckFlyweight().wrap(ack, 0).checkedIndex("sink", primary.lastIndex()));
            }
        }
    }

    @Test
    void shouldRefuseHelloFieldsThatCannotBeNamingThePeerFrameFieldAndValue() throws IOException {
        expectWarning("closing the connection");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ReplicationSink sink = sink()) {
            final String[] expected = {"maxMessageLength=-1 is not positive", "maxMessageLength=0 is not positive",
                    "frameLimit=7 cannot hold one excerpt, which takes at least " + DataFlyweight.frameLength(1)};
            final int[][] fields = {{-1, 4096}, {0, 4096}, {1024, 7}};
            for (int i = 0; i < fields.length; i++) {
                try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                    peer.setSoTimeout(30_000);
                    final ByteBuffer hello = Wire.hello(primary, primary.queueId());
                    new HelloFlyweight().wrap(hello, 0).maxMessageLength(fields[i][0]).frameLimit(fields[i][1]);
                    Wire.write(peer, hello);
                    final ByteBuffer refused = Wire.read(peer);
                    final ErrorFlyweight error = new ErrorFlyweight().wrap(refused, 0);
                    assertEquals(ERROR_PROTOCOL, error.code());
                    final String message = error.message(refused.capacity());
                    assertTrue(message.startsWith("\"HELLO frame from /127.0.0.1:" + peer.getLocalPort() + ": "), message);
                    assertTrue(message.endsWith(expected[i] + "\""), message);
                    Wire.awaitClosed(peer);
                }
            }
            assertFalse(SpoolQueue.exists(tempDir.resolve("replica")), "nothing in the frames is acted on");
            assertNull(sink.failure(), "the sink still serves");
        }
    }

    private static long[] indices(final SpoolQueue queue) {
        final long[] indices = new long[3];
        try (ExcerptTailer tailer = queue.createTailer()) {
            for (int i = 0; i < indices.length; i++) {
                final int at = i;
                assertTrue(tailer.read((bytes, offset, length, index) -> indices[at] = index));
            }
        }
        return indices;
    }

    private static byte[] concat(final byte[]... parts) {
        int length = 0;
        for (final byte[] part : parts) {
            length += part.length;
        }
        final byte[] all = new byte[length];
        int at = 0;
        for (final byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }
}
