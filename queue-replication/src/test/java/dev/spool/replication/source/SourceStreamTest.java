package dev.spool.replication.source;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.FrameDescriptor;
import dev.spool.replication.protocol.FrameMac;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The source's stream over a real loopback socket, its frames read and checked as the sink reads them, with a clock
 * the test moves: a stall of the source's thread becomes a step of the clock at a chosen call.
 */
class SourceStreamTest extends SpoolTestBase {
    private static final long HEARTBEAT_NS = 1_000;
    private static final int FRAME_LIMIT = 1024;
    private static final int SMALL = 100;
    private static final int BIG = 64 * 1024;

    /** A clock that moves {@link #step} on every call: as if the thread stalled that long before each reading. */
    private static final class SteppingClock implements NanoClock {
        private long now = 1_000_000_000L;
        private long step;

        @Override
        public long nanoTime() {
            now += step;
            return now;
        }
    }

    @Test
    void shouldSendTheExcerptCarriedIntoTheNextFrameIntactWhenAHeartbeatFallsDueAsTheFrameBeforeItLeaves()
            throws IOException {
        final SteppingClock clock = new SteppingClock();
        final byte[] sourceKey = key(1);
        final byte[] sinkKey = key(2);
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20)
                .maxMessageLength(BIG).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ServerSocketChannel server = ServerSocketChannel.open()) {
            final List<byte[]> appended = new ArrayList<>();
            final List<Long> indices = new ArrayList<>();
            for (final int length : new int[] {SMALL, SMALL, BIG}) {
                final byte[] message = pattern(length, appended.size());
                appended.add(message);
                indices.add(appender.append(message));
            }
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final InetSocketAddress address = (InetSocketAddress) server.getLocalAddress();
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final ReplicaPositions positions = new ReplicaPositions(internals, List.of(address));
            try (Connection source = new Connection(clock, 4096, Math.toIntExact(FRAME_LIMIT
                    + DataFlyweight.largestFrameLength(FRAME_LIMIT, queue.maxMessageLength(), internals.features())
                    + FrameMac.TAG_LENGTH + SourceStream.PARK_OFFSET));
                 Connection sink = new Connection(clock, 2 * BIG, 4096);
                 ExcerptTailer tailer = internals.createBodyTailer()) {
                source.attach(SocketChannel.open(address));
                sink.attach(server.accept());
                source.authenticate(sourceKey, sinkKey);
                sink.authenticate(sinkKey, sourceKey);
                final SourceStream stream = new SourceStream(new ReplicaAcks(internals, positions, 1, 1), 0, address,
                        source, FRAME_LIMIT, HEARTBEAT_NS, queue.checksums(), internals.schemaFiles(), clock);
                stream.resume(tailer, -1);

                // the two small excerpts go out, the big one waits for the next frame; the thread stalls past a
                // heartbeat interval between the frame's flush and its look at the time (a pause, a busy machine)
                clock.step = HEARTBEAT_NS + 1;
                sendHeartbeat(sink);
                assertTrue(stream.streamOnce());
                clock.step = 0;

                final List<Long> receivedIndices = new ArrayList<>();
                final List<byte[]> received = new ArrayList<>();
                final DataFlyweight data = new DataFlyweight();
                for (int pass = 0; pass < 1_000 && received.size() < appended.size(); pass++) {
                    sendHeartbeat(sink);
                    stream.streamOnce();
                    sink.receive();
                    while (sink.nextFrame()) {
                        if (sink.frameType() == FrameDescriptor.TYPE_DATA) {
                            final long previous = receivedIndices.isEmpty() ? -1 : receivedIndices.get(receivedIndices.size() - 1);
                            // the sink's check: what it refused with "entry 0 has index none (...)"
                            data.wrap(sink.received(), sink.frameOffset()).check(sink.peer(), sink.frameLength(), previous);
                            int entry = data.firstEntry();
                            for (int i = 0; i < data.count(); i++) {
                                receivedIndices.add(data.entryIndex(entry));
                                final byte[] payload = new byte[data.entryLength(entry)];
                                sink.received().get(data.entryPayload(entry), payload);
                                received.add(payload);
                                entry = data.nextEntry(entry);
                            }
                        }
                        sink.consumeFrame();
                    }
                }
                assertEquals(indices, receivedIndices, "every excerpt at its index");
                final int prefix = ExcerptDescriptor.bodyPrefixLength(internals.features());
                for (int i = 0; i < appended.size(); i++) {
                    // the stored body: the queue's prefix, then the payload
                    final byte[] body = received.get(i);
                    assertArrayEquals(appended.get(i), Arrays.copyOfRange(body, prefix, body.length),
                            "excerpt " + i + " byte for byte");
                }
            } finally {
                positions.close();
            }
        }
    }

    /** The sink's side says it is alive, so that only the source's clock decides what the source sends. */
    private static void sendHeartbeat(final Connection sink) throws IOException {
        sink.sendHeartbeat();
        assertTrue(sink.flush(), "a heartbeat fits the socket");
    }

    private static byte[] key(final int seed) {
        final byte[] key = new byte[32];
        Arrays.fill(key, (byte) seed);
        return key;
    }

    private static byte[] pattern(final int length, final int seed) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + seed * 977 + (i >>> 8));
        }
        return bytes;
    }
}
