package dev.spool.replication;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameHeader;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.HelloFlyweight;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

import static dev.spool.replication.protocol.FrameDescriptor.*;
import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/** Malformed, oversized and wrong-version frames close the connection with a logged reason and change no queue. */
class BadFrameTest extends SpoolTestBase {
    private ReplicationSink sink() {
        return ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(1 << 20))
                .heartbeatInterval(Duration.ofMillis(200)).start();
    }

    private static ByteBuffer frame(final int length, final int type, final int version) {
        final ByteBuffer frame = ByteBuffer.allocate(Math.max(HEADER_LENGTH, Math.min(length, 1 << 16))).order(ByteOrder.LITTLE_ENDIAN);
        new FrameHeader().wrap(frame, 0).encode(type).version(version).frameLength(length);
        return frame;
    }

    private static ByteBuffer hello(final UUID queueId, final int magic, final int version) {
        final ByteBuffer hello = frame(HELLO_LENGTH, TYPE_HELLO, version);
        new HelloFlyweight().wrap(hello, 0).magic(magic).rollCycleId(dev.spool.queue.RollCycle.DAILY.id())
                .queueId(queueId).epochMillis(0).term(0).lastIndex(-1).maxMessageLength(1024).frameLimit(4096);
        return hello;
    }

    private static ByteBuffer hello(final UUID queueId, final int magic) {
        return hello(queueId, magic, VERSION);
    }

    /** Sends a frame and returns the message of the ERROR frame the sink answers with before it closes. */
    private static String refusal(final ReplicationSink sink, final ByteBuffer frame) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(frame.array(), 0, frame.capacity());
            final InputStream in = socket.getInputStream();
            final ByteBuffer header = ByteBuffer.wrap(in.readNBytes(HEADER_LENGTH)).order(ByteOrder.LITTLE_ENDIAN);
            final FrameHeader received = new FrameHeader().wrap(header, 0);
            assertEquals(TYPE_ERROR, received.type());
            assertEquals(VERSION, received.version());
            final ByteBuffer error = ByteBuffer.allocate(received.frameLength()).order(ByteOrder.LITTLE_ENDIAN);
            error.put(header.array()).put(in.readNBytes(received.frameLength() - HEADER_LENGTH));
            assertEquals(-1, in.read(), "the sink closes the connection");
            final ErrorFlyweight flyweight = new ErrorFlyweight().wrap(error, 0);
            assertEquals(ERROR_PROTOCOL, flyweight.code());
            final String message = flyweight.message(received.frameLength());
            assertTrue(message.contains(":" + socket.getLocalPort()), "names the peer: " + message);
            return message;
        }
    }

    /** Sends the frames and asserts that the sink closes the connection. */
    private static void assertClosedAfter(final ReplicationSink sink, final ByteBuffer... frames) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
            socket.setSoTimeout(30_000);
            final OutputStream out = socket.getOutputStream();
            for (final ByteBuffer frame : frames) {
                out.write(frame.array(), 0, frame.capacity());
            }
            out.flush();
            final InputStream in = socket.getInputStream();
            final byte[] discard = new byte[4096];
            int read;
            do {
                read = in.read(discard);
            } while (read >= 0);
        }
    }

    @Test
    void shouldCloseTheConnectionOnABadHandshakeAndCreateNoReplica() throws IOException {
        expectWarning("closing the connection");
        try (ReplicationSink sink = sink()) {
            assertClosedAfter(sink, frame(HELLO_LENGTH, TYPE_HELLO, VERSION + 1));
            assertClosedAfter(sink, frame(1 << 30, TYPE_DATA, VERSION));
            assertClosedAfter(sink, frame(3, TYPE_HELLO, VERSION));
            assertClosedAfter(sink, frame(HEADER_LENGTH, 99, VERSION));
            assertClosedAfter(sink, hello(UUID.randomUUID(), 0x12345678));
            assertClosedAfter(sink, frame(HEADER_LENGTH + 40, TYPE_DATA, VERSION));
            assertFalse(SpoolQueue.exists(tempDir.resolve("replica")));
            assertEquals(-1, sink.lastIndex());
            assertNull(sink.failure(), "the sink goes on listening");
        }
    }

    @Test
    void shouldRefuseAnOlderSpoolAtTheHandshakeNamingTheVersionFoundAndExpected() throws IOException {
        expectWarning("closing the connection");
        try (ReplicationSink sink = sink()) {
            final String message = refusal(sink, hello(UUID.randomUUID(), VERSION_1_MAGIC, 1));
            assertTrue(message.contains("HELLO frame from /"), message);
            assertTrue(message.contains("protocol version=1, this build speaks " + VERSION + ": the peer runs an older Spool"), message);
            assertFalse(SpoolQueue.exists(tempDir.resolve("replica")), "nothing in the frame is acted on");
            assertEquals(-1, sink.lastIndex());
            assertNull(sink.failure(), "the sink goes on listening");
        }
    }

    @Test
    void shouldRefuseAVersionThreeOrFourPeerNamingBothVersions() throws IOException {
        expectWarning("closing the connection");
        try (ReplicationSink sink = sink()) {
            for (final int version : new int[] {3, 4}) {
                final String message = refusal(sink, hello(UUID.randomUUID(), MAGIC, version));
                assertTrue(message.contains("protocol version=" + version + ", this build speaks " + VERSION + ": the peer runs an"
                        + " older Spool"), message);
            }
            assertFalse(SpoolQueue.exists(tempDir.resolve("replica")), "nothing in the frame is acted on");
            assertNull(sink.failure(), "the sink goes on listening");
        }
    }

    @Test
    void shouldRefuseTheOldMagicAtTheHandshakeNamingTheMagicFoundAndExpected() throws IOException {
        expectWarning("closing the connection");
        try (ReplicationSink sink = sink()) {
            final String message = refusal(sink, hello(UUID.randomUUID(), VERSION_1_MAGIC));
            assertTrue(message.contains("magic=0x524c5053, protocol version 1's (the peer runs an older Spool),"
                    + " expected 0x464c5053 of version " + VERSION), message);
            assertFalse(SpoolQueue.exists(tempDir.resolve("replica")), "nothing in the frame is acted on");
            assertNull(sink.failure(), "the sink goes on listening");
        }
    }

    @Test
    void shouldCloseTheConnectionOnAMalformedDataFrameAndLeaveTheReplicaUntouched() throws IOException {
        expectWarning("closing the connection");
        expectWarning("lost");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            append(appender, 0, 10);
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET)
                    .heartbeatInterval(Duration.ofMillis(200)).start()) {
                await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            }
            final long last = sink.lastIndex();
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                socket.setSoTimeout(30_000);
                final Wire.Session session = Wire.Session.open(socket, primary);
                // two entries announced, one present, and its index follows the replica's last one: nothing is written
                final ByteBuffer data = frame((int) DataFlyweight.frameLength(4), TYPE_DATA, VERSION);
                final DataFlyweight entries = new DataFlyweight().wrap(data, 0).count(2);
                entries.putEntry(entries.firstEntry(), last + 1, 4);
                Wire.write(socket, Wire.sealed(data, session.mac));
                Wire.awaitClosed(socket);
            }
            assertEquals(last, sink.lastIndex());
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(10, assertIdentical(primary, replica));
        }
    }

    /**
     * Without a secret no MAC vouches for a frame, so the header's length is all that bounds its body: an ERROR, DATA
     * or SCHEMA frame shorter than its type's fixed fields is refused there, naming the peer, before a field is read.
     * The last one sits at the very end of the sink's receive buffer, where reading its fields threw out of the sink.
     */
    @Test
    void shouldRefuseAShortErrorDataOrSchemaFrameNamingThePeerAndKeepServing() throws IOException {
        expectWarning("closing the connection");
        expectWarning("insecure");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).insecure()
                     .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(Duration.ofMillis(200)).start()) {
            // the sink's receive buffer holds the longest DATA frame: the first excerpt's fills it but for 8 bytes
            final int bufferLength = (int) DataFlyweight.frameLength(primary.maxMessageLength());
            final byte[] first = new byte[bufferLength - HEADER_LENGTH - (int) DataFlyweight.frameLength(0)];
            Arrays.fill(first, (byte) 7);
            final long firstIndex = appender.append(first);
            append(appender, 0, 10);
            final int[] types = {TYPE_ERROR, TYPE_DATA, TYPE_SCHEMA};
            final int[] lengths = {ERROR_MESSAGE_OFFSET, DATA_ENTRIES_OFFSET, SCHEMA_NAME_OFFSET};
            for (int i = 0; i < types.length; i++) {
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                    socket.setSoTimeout(30_000);
                    Wire.Session.open(socket, primary);
                    Wire.write(socket, Wire.frame(lengths[i] - 1, types[i]));
                    assertEquals("\"" + typeName(types[i]) + " frame from /127.0.0.1:" + socket.getLocalPort() + ": length="
                            + (lengths[i] - 1) + ", shorter than the " + lengths[i] + " bytes of its fixed fields\"", refusalOf(socket));
                }
            }
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                socket.setSoTimeout(30_000);
                Wire.Session.open(socket, primary);
                final ByteBuffer data = Wire.frame((int) DataFlyweight.frameLength(first.length), TYPE_DATA);
                final DataFlyweight entries = new DataFlyweight().wrap(data, 0).count(1);
                entries.putEntry(entries.firstEntry(), firstIndex, first.length);
                data.put(entries.entryPayload(entries.firstEntry()), first);
                final OutputStream out = socket.getOutputStream();
                // the DATA frame fills the sink's buffer but for its last byte, which arrives with an 8-byte ERROR
                out.write(data.array(), 0, data.capacity() - 1);
                out.flush();
                final byte[] end = new byte[1 + HEADER_LENGTH];
                end[0] = data.get(data.capacity() - 1);
                System.arraycopy(Wire.frame(HEADER_LENGTH, TYPE_ERROR).array(), 0, end, 1, HEADER_LENGTH);
                out.write(end);
                out.flush();
                assertTrue(refusalOf(socket).endsWith("ERROR frame from /127.0.0.1:" + socket.getLocalPort()
                        + ": length=" + HEADER_LENGTH + ", shorter than the " + ERROR_MESSAGE_OFFSET
                        + " bytes of its fixed fields\""));
            }
            assertNull(sink.failure(), "the sink goes on listening");
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).insecure()
                    .heartbeatInterval(Duration.ofMillis(200)).start()) {
                await(() -> sink.lastIndex() == primary.lastIndex(), "replicated after the short frames");
            }
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(11, assertIdentical(primary, replica));
        }
    }

    /** @return the message of the ERROR frame the sink refused with, once it closed the connection. */
    private static String refusalOf(final Socket socket) throws IOException {
        final ByteBuffer error = Wire.read(socket);
        assertEquals(TYPE_ERROR, Wire.type(error));
        assertEquals(ERROR_PROTOCOL, new ErrorFlyweight().wrap(error, 0).code());
        final String message = new ErrorFlyweight().wrap(error, 0).message(error.capacity());
        Wire.awaitClosed(socket);
        return message;
    }

    @Test
    void shouldReconnectWhenTheSinkSendsABadFrame() throws IOException {
        expectWarning("closing the connection");
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ReplicationSource source = ReplicationSource.builder(primary,
                     new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), fake.getLocalPort())).sharedSecret(Replicas.SECRET)
                     .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50)).start()) {
            fake.setSoTimeout(30_000);
            // an older Spool's sink (version 1), then a newer one's
            for (final int version : new int[]{1, VERSION + 1}) {
                try (Socket socket = fake.accept()) {
                    final byte[] hello = socket.getInputStream().readNBytes(HELLO_LENGTH);
                    assertEquals(HELLO_LENGTH, hello.length);
                    socket.getOutputStream().write(frame(WELCOME_LENGTH, TYPE_WELCOME, version).array());
                    assertEquals(-1, socket.getInputStream().read(), "the source closes the connection");
                }
            }
            assertNull(source.failure(), "a bad frame is retried, not fatal");
            assertFalse(source.isConnected());
        }
    }

    @Test
    void shouldDropASilentSinkAfterThreeHeartbeatIntervalsAndReconnect() throws IOException {
        expectWarning("no frame from the sink");
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ReplicationSource source = ReplicationSource.builder(primary,
                     new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), fake.getLocalPort())).sharedSecret(Replicas.SECRET)
                     .heartbeatInterval(Duration.ofMillis(100)).reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
                     .start()) {
            fake.setSoTimeout(30_000);
            try (Socket socket = fake.accept()) {
                socket.setSoTimeout(30_000);
                Wire.resume(socket, -1, -1, 0);
                await(source::isConnected, "the source streams");
                // the fake sink never writes again: the source sends heartbeats, each with its MAC, then gives up on it
                final byte[] heartbeat = socket.getInputStream().readNBytes(HEARTBEAT_LENGTH + FrameMac.TAG_LENGTH);
                assertEquals(HEARTBEAT_LENGTH + FrameMac.TAG_LENGTH, heartbeat.length);
                assertEquals(TYPE_HEARTBEAT, new FrameHeader().wrap(ByteBuffer.wrap(heartbeat).order(ByteOrder.LITTLE_ENDIAN), 0).type());
                int read;
                do {
                    read = socket.getInputStream().read();
                } while (read >= 0);
            }
            try (Socket again = fake.accept()) {
                assertEquals(HELLO_LENGTH, again.getInputStream().readNBytes(HELLO_LENGTH).length, "it reconnects");
            }
        }
    }
}
