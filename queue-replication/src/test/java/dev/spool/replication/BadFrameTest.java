package dev.spool.replication;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
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
import java.util.UUID;

import static dev.spool.replication.FrameDescriptor.*;
import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/** Malformed, oversized and wrong-version frames close the connection with a logged reason and change no queue. */
class BadFrameTest extends SpoolTestBase {
    private ReplicationSink sink() {
        return ReplicationSink.builder(tempDir.resolve("replica")).queueSettings(b -> b.chunkLength(1 << 20))
                .heartbeatInterval(Duration.ofMillis(200)).start();
    }

    private static ByteBuffer frame(final int length, final int type, final int version) {
        final ByteBuffer frame = ByteBuffer.allocate(Math.max(HEADER_LENGTH, Math.min(length, 1 << 16))).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(LENGTH_OFFSET, length).putShort(TYPE_OFFSET, (short) type).putShort(VERSION_OFFSET, (short) version);
        return frame;
    }

    private static ByteBuffer hello(final UUID queueId, final int magic) {
        final ByteBuffer hello = frame(HELLO_LENGTH, TYPE_HELLO, VERSION);
        hello.putInt(HELLO_MAGIC_OFFSET, magic).putInt(HELLO_ROLL_CYCLE_OFFSET, dev.spool.queue.RollCycle.DAILY.id())
                .putLong(HELLO_QUEUE_ID_OFFSET, queueId.getMostSignificantBits())
                .putLong(HELLO_QUEUE_ID_OFFSET + Long.BYTES, queueId.getLeastSignificantBits())
                .putLong(HELLO_EPOCH_OFFSET, 0).putLong(HELLO_TERM_OFFSET, 0).putLong(HELLO_LAST_INDEX_OFFSET, -1)
                .putInt(HELLO_MAX_MESSAGE_LENGTH_OFFSET, 1024).putInt(HELLO_FRAME_LIMIT_OFFSET, 4096);
        return hello;
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
    void shouldCloseTheConnectionOnAMalformedDataFrameAndLeaveTheReplicaUntouched() throws IOException {
        expectWarning("closing the connection");
        expectWarning("lost");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink()) {
            append(appender, 0, 10);
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address())
                    .heartbeatInterval(Duration.ofMillis(200)).start()) {
                await(() -> sink.lastIndex() == primary.lastIndex(), "replicated");
            }
            final long last = sink.lastIndex();
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                socket.setSoTimeout(30_000);
                final OutputStream out = socket.getOutputStream();
                final ByteBuffer hello = hello(primary.queueId(), MAGIC);
                hello.putInt(HELLO_ROLL_CYCLE_OFFSET, primary.rollCycle().id()).putLong(HELLO_TERM_OFFSET, 0)
                        .putInt(HELLO_MAX_MESSAGE_LENGTH_OFFSET, primary.maxMessageLength());
                out.write(hello.array());
                final InputStream in = socket.getInputStream();
                final byte[] welcome = in.readNBytes(WELCOME_LENGTH);
                assertEquals(WELCOME_LENGTH, welcome.length);
                final ByteBuffer start = frame(START_LENGTH, TYPE_START, VERSION);
                start.putLong(START_INDEX_OFFSET, last);
                out.write(start.array());
                // two entries announced, one present, and its index follows the replica's last one: nothing is written
                final ByteBuffer data = frame(DATA_ENTRIES_OFFSET + ENTRY_HEADER_LENGTH + 4, TYPE_DATA, VERSION);
                data.putInt(DATA_COUNT_OFFSET, 2).putLong(DATA_ENTRIES_OFFSET + ENTRY_INDEX_OFFSET, last + 1)
                        .putInt(DATA_ENTRIES_OFFSET + ENTRY_LENGTH_OFFSET, 4);
                out.write(data.array());
                out.flush();
                final byte[] discard = new byte[4096];
                int read;
                do {
                    read = in.read(discard);
                } while (read >= 0);
            }
            assertEquals(last, sink.lastIndex());
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue replica = open(tempDir.resolve("replica"))) {
            assertEquals(10, assertIdentical(primary, replica));
        }
    }

    @Test
    void shouldReconnectWhenTheSinkSendsABadFrame() throws IOException {
        expectWarning("closing the connection");
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ReplicationSource source = ReplicationSource.builder(primary,
                     new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), fake.getLocalPort()))
                     .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50)).start()) {
            fake.setSoTimeout(30_000);
            for (int attempt = 0; attempt < 2; attempt++) {
                try (Socket socket = fake.accept()) {
                    final byte[] hello = socket.getInputStream().readNBytes(HELLO_LENGTH);
                    assertEquals(HELLO_LENGTH, hello.length);
                    socket.getOutputStream().write(frame(WELCOME_LENGTH, TYPE_WELCOME, 7).array());
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
                     new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), fake.getLocalPort()))
                     .heartbeatInterval(Duration.ofMillis(100)).reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
                     .start()) {
            fake.setSoTimeout(30_000);
            try (Socket socket = fake.accept()) {
                socket.setSoTimeout(30_000);
                assertEquals(HELLO_LENGTH, socket.getInputStream().readNBytes(HELLO_LENGTH).length);
                final ByteBuffer welcome = frame(WELCOME_LENGTH, TYPE_WELCOME, VERSION);
                welcome.putLong(WELCOME_LAST_INDEX_OFFSET, -1).putLong(WELCOME_CHECKSUM_OFFSET, -1).putLong(WELCOME_TERM_OFFSET, 0);
                socket.getOutputStream().write(welcome.array());
                assertEquals(START_LENGTH, socket.getInputStream().readNBytes(START_LENGTH).length);
                await(source::isConnected, "the source streams");
                // the fake sink never writes again: the source sends heartbeats, then gives up on it
                final byte[] heartbeat = socket.getInputStream().readNBytes(HEARTBEAT_LENGTH);
                assertEquals(HEARTBEAT_LENGTH, heartbeat.length);
                assertEquals(TYPE_HEARTBEAT, ByteBuffer.wrap(heartbeat).order(ByteOrder.LITTLE_ENDIAN).getShort(TYPE_OFFSET));
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
