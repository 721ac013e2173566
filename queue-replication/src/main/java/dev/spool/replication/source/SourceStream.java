package dev.spool.replication.source;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.internal.MemoryMove;
import dev.spool.queue.internal.SchemaFiles;
import dev.spool.replication.protocol.AckFlyweight;
import dev.spool.replication.protocol.AuthenticationException;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameDescriptor;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.net.InetSocketAddress;

import static dev.spool.replication.protocol.FrameDescriptor.DATA_FLAG_CRC32C;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_DIVERGED;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_FENCED;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_QUEUE_MISMATCH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ACK;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_DATA;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_HEARTBEAT;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The source's streaming cursor to one sink, after the handshake: reads the sink's acknowledgements into the
 * source's {@link ReplicaAcks} (and through them the queue's metadata),
 * batches what the tailer has into DATA frames up to the frame limit, and heartbeats. A DATA frame is built at the
 * start of the send buffer, the payloads copied straight from the queue; an excerpt that would take the frame past
 * the limit is read anyway (a tailer cannot peek at a length) and carried to the next frame, unless it is alone;
 * once the frame before it has gone, it waits at the start of the send buffer, so no heartbeat is built there
 * until the next DATA frame has taken it.
 * It counts the payload bytes it read for its sink and the bytes at the end of each frame it sent (a ring of the
 * last {@value #FRAME_MARKS}; when it is full the newest mark moves forward, so an acknowledgement in that range
 * counts to the mark before it): the bytes read but not yet acknowledged are the replica's lag in bytes.
 * Before any DATA after the handshake, and between DATA frames whenever the queue counts a new schema file, it
 * sends the typed schema files the sink is owed ({@link SourceSchemas}), one SCHEMA frame per pass; an excerpt
 * carried for the next DATA frame is parked past the SCHEMA frame meanwhile ({@link #PARK_OFFSET}). A batch read
 * while a schema file was stored is dropped and read again after the file is sent ({@link #rewind()}), so a sink
 * holds a schema file before any excerpt whose writer stored it.
 * Used by one thread at a time (the source's, or a caller of {@link
 * dev.spool.replication.ReplicationSource#doWork()}); allocates nothing
 * but when a schema file is sent.
 */
final class SourceStream {
    /** Frames whose end is remembered, to tell the bytes an acknowledgement covers. */
    static final int FRAME_MARKS = 64;
    /**
     * Where an excerpt carried for the next DATA frame waits while a SCHEMA frame goes out from the start of the send
     * buffer: past the longest SCHEMA frame and its MAC. The send buffer has room for both.
     */
    static final int PARK_OFFSET = FrameDescriptor.SCHEMA_MAX_FRAME_LENGTH + FrameMac.TAG_LENGTH;
    /** Where acknowledgements are recorded, for waiters in this process and others. */
    private final ReplicaAcks acks;
    /** This sink's number among the source's replicas. */
    private final int replica;
    private final InetSocketAddress sink;
    /** The sink's address as text, built once: errors name it, and an ACK's check must not allocate. */
    private final String sinkName;
    private final Connection connection;
    private final int frameLimit;
    private final long heartbeatNs;
    private final NanoClock clock;
    private final ExcerptHandler batcher = this::addToBatch;
    private final DataFlyweight data = new DataFlyweight();
    private final int dataFlags;
    private final AckFlyweight ack = new AckFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private final SourceSchemas schemas;

    private ExcerptTailer tailer;
    private int batchPosition;
    private int batchCount;
    private int carryStart;
    private int carryLength;
    /**
     * A DATA or SCHEMA frame is in the send buffer: its completed flush moves the carried (or parked) excerpt to the
     * front of the next DATA frame, a heartbeat's does not.
     */
    private boolean dataInFlight;
    private long highestRead = -1;
    private long acked = -1;
    /** Payload bytes read for this sink since the stream resumed, and of those, sent and acknowledged. */
    private long readBytes;
    private long sentBytes;
    private long ackedBytes;
    /** For readers on other threads, published once a frame: the last index sent, and the bytes not acknowledged. */
    private volatile long sent = -1;
    private volatile long unacked;
    /** Ring of frame ends sent and not yet acknowledged: last index and {@link #readBytes} at that index. */
    private final long[] markIndex = new long[FRAME_MARKS];
    private final long[] markBytes = new long[FRAME_MARKS];
    private int markHead;
    private int markCount;

    /**
     * @param replica    this sink's number among the source's replicas.
     * @param frameLimit the most bytes of a DATA frame, unless one excerpt alone is longer.
     * @param checksums  whether the queue's excerpts carry a CRC32C, which the tailer delivers with each payload.
     * @param schemas    the queue's typed schema files.
     */
    SourceStream(final ReplicaAcks acks, final int replica, final InetSocketAddress sink, final Connection connection,
                 final int frameLimit, final long heartbeatNs, final boolean checksums, final SchemaFiles schemas,
                 final NanoClock clock) {
        this.acks = acks;
        this.schemas = new SourceSchemas(schemas);
        this.replica = replica;
        // the tailer delivers stored bodies: with checksums, each entry carries its CRC32C to the sink
        this.dataFlags = checksums ? DATA_FLAG_CRC32C : 0;
        this.sink = sink;
        this.sinkName = String.valueOf(sink);
        this.connection = connection;
        this.frameLimit = frameLimit;
        this.heartbeatNs = heartbeatNs;
        this.clock = clock;
    }

    /**
     * Starts a stream on a connection past its handshake.
     *
     * @param tailer   the source's tailer, after the sink's last index.
     * @param sinkLast the sink's last index.
     */
    void resume(final ExcerptTailer tailer, final long sinkLast) {
        this.tailer = tailer;
        data.wrap(connection.send(), 0);
        highestRead = sinkLast;
        acked = sinkLast;
        sent = sinkLast;
        readBytes = 0;
        sentBytes = 0;
        ackedBytes = 0;
        unacked = 0;
        markCount = 0;
        dataInFlight = false;
        batchPosition = data.firstEntry();
        batchCount = 0;
        carryLength = 0;
        schemas.resume();
    }

    /**
     * One pass of streaming: reads the sink's frames, sends what the queue has, heartbeats.
     *
     * @return true if anything was received or sent.
     * @throws IOException if the connection failed, the sink went silent or sent a bad frame or an error.
     */
    boolean streamOnce() throws IOException {
        final Connection c = connection;
        boolean worked = false;
        if (c.receive() > 0) {
            worked = true;
            while (c.nextFrame()) {
                onFrame();
                c.consumeFrame();
            }
        }
        if (!c.sendIdle()) {
            if (c.flush()) {
                afterFlush();
                worked = true;
            }
        } else if (schemas.due()) {
            sendSchema();
            worked = true;
        } else if (fillBatch()) {
            worked = true;
            dataInFlight = true;
            if (c.flush()) {
                afterFlush();
            }
        }
        final long now = clock.nanoTime();
        // a heartbeat is built at the start of the send buffer, where a carried excerpt waits for the next DATA frame
        // once the frame before it has gone (its MAC would land on the excerpt's index): that frame goes out on the
        // next pass instead, and tells the sink as much
        if (c.sendIdle() && batchCount == 0 && now - c.lastSentNs() > heartbeatNs) {
            c.sendHeartbeat();
            c.flush();
        }
        if (now - c.lastReceivedNs() > 3 * heartbeatNs) {
            throw new IOException("no frame from the sink for " + (now - c.lastReceivedNs()) / 1_000_000 + " ms");
        }
        return worked;
    }

    private void onFrame() throws IOException {
        final Connection c = connection;
        switch (c.frameType()) {
            case TYPE_ACK:
                final long index = ack.wrap(c.received(), c.frameOffset()).checkedIndex(sinkName, highestRead);
                if (index > acked) {
                    acked = index;
                    ackBytes(index);
                    acks.acked(replica, index);
                }
                break;
            case TYPE_HEARTBEAT:
                break;
            case TYPE_ERROR:
                error.wrap(c.received(), c.frameOffset());
                final int code = error.code();
                final String message = "the sink at " + sink + " reports error " + code + ": "
                        + error.message(c.frameLength());
                if (code == ERROR_AUTHENTICATION) {
                    // the sink refused this source's START: this source's secret is the one in question
                    throw new AuthenticationException("the sink at " + sink + " refused this source's proof of the"
                            + " shared secret (" + error.message(c.frameLength()) + "): check this source's secret (an"
                            + " insecure() source has none)");
                }
                if (code == ERROR_FENCED || code == ERROR_QUEUE_MISMATCH || code == ERROR_DIVERGED) {
                    throw new ReplicaStopped(message);
                }
                throw new IOException(message);
            default:
                throw new FrameException(typeName(c.frameType()) + " frame from the sink at " + sink + " while streaming");
        }
    }

    /** @return the last index sent to this sink in this stream (its last index before), -1 if none; any thread. */
    long sentIndex() {
        return sent;
    }

    /**
     * @return payload bytes read for this sink that it has not acknowledged (sent, or read for the next frame); 0
     * before the stream resumes. Any thread.
     */
    long unackedBytes() {
        return unacked;
    }

    /**
     * @return true if a DATA frame was built at the start of the send buffer; false if there was nothing to read, or
     * a schema file must go first.
     */
    private boolean fillBatch() throws IOException {
        long frameEnd = highestRead;
        long frameEndBytes = readBytes;
        while (batchPosition < frameLimit) {
            final int entry = batchPosition;
            final long before = highestRead;
            final long beforeBytes = readBytes;
            if (!tailer.read(batcher)) {
                break;
            }
            batchCount++;
            frameEnd = highestRead;
            frameEndBytes = readBytes;
            if (batchPosition > frameLimit && batchCount > 1) {
                frameEnd = before;
                frameEndBytes = beforeBytes;
                // the frame's MAC, if any, goes where the carried excerpt starts: move it past, over itself
                carryStart = entry + connection.tagLength();
                carryLength = batchPosition - entry;
                MemoryMove.move(connection.sendAddress() + entry, connection.sendAddress() + carryStart, carryLength);
                batchCount--;
                batchPosition = entry;
                break;
            }
        }
        if (batchCount == 0) {
            return false;
        }
        if (schemas.stale()) {
            // a schema file was stored while the batch was read, and an excerpt of it may need it: the file goes first
            rewind();
            return false;
        }
        final int offset = connection.beginFrame(TYPE_DATA);
        data.count(batchCount).flags(dataFlags);
        connection.endFrame(offset, batchPosition);
        mark(frameEnd, frameEndBytes);
        return true;
    }

    /**
     * Drops the batch read but not sent, a carried excerpt with it, and moves the tailer back to its first excerpt,
     * which the next batch reads again. Rare: only when a schema file is stored while a batch is read.
     */
    private void rewind() throws IOException {
        final long first = data.entryIndex(data.firstEntry());
        if (!tailer.moveToIndex(first)) {
            throw new IOException("cannot move the tailer back to index " + IndexFormat.format(first, null) + " to send a schema file first");
        }
        batchPosition = data.firstEntry();
        batchCount = 0;
        carryLength = 0;
        highestRead = sent;
        readBytes = sentBytes;
        unacked = readBytes - ackedBytes;
    }

    private void mark(final long index, final long bytes) {
        sentBytes = bytes;
        sent = index;
        unacked = readBytes - ackedBytes;
        if (markCount == FRAME_MARKS) {
            final int newest = (markHead + markCount - 1) % FRAME_MARKS;
            markIndex[newest] = index;
            markBytes[newest] = bytes;
            return;
        }
        final int slot = (markHead + markCount) % FRAME_MARKS;
        markIndex[slot] = index;
        markBytes[slot] = bytes;
        markCount++;
    }

    /** The frames up to {@code index} are acknowledged: their bytes are no longer lag. */
    private void ackBytes(final long index) {
        while (markCount > 0 && markIndex[markHead] <= index) {
            ackedBytes = markBytes[markHead];
            markHead = (markHead + 1) % FRAME_MARKS;
            markCount--;
        }
        unacked = readBytes - ackedBytes;
    }

    private void addToBatch(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
        final int entry = batchPosition;
        batchPosition = data.putEntry(entry, index, length);
        MEMORY.copyMemory(bytes.addressForRead(offset), connection.sendAddress() + data.entryPayload(entry), (long) length);
        highestRead = index;
        readBytes += length;
    }

    /**
     * Sends the next schema file owed from the start of the idle send buffer. A carried excerpt waiting there for
     * the next DATA frame is parked past the SCHEMA frame, and the flush's {@link #afterFlush()} moves it back.
     */
    private void sendSchema() throws IOException {
        final int first = data.firstEntry();
        if (batchCount > 0) {
            carryStart = PARK_OFFSET;
            carryLength = batchPosition - first;
            // an excerpt longer than the SCHEMA frame overlaps its parking place
            MemoryMove.move(connection.sendAddress() + first, connection.sendAddress() + carryStart, carryLength);
            batchCount = 0;
            batchPosition = first;
        }
        schemas.sendNext(connection);
        dataInFlight = true;
        if (connection.flush()) {
            afterFlush();
        }
    }

    /** The frame is on the wire: a carried excerpt becomes the first entry of the next one. */
    private void afterFlush() {
        if (!dataInFlight) {
            return;
        }
        dataInFlight = false;
        final int first = data.firstEntry();
        batchPosition = first;
        batchCount = 0;
        if (carryLength > 0) {
            // the ranges overlap unless the excerpt is shorter than the distance it moves back
            MemoryMove.move(connection.sendAddress() + carryStart, connection.sendAddress() + first, carryLength);
            batchPosition = first + carryLength;
            batchCount = 1;
            carryLength = 0;
        }
    }
}
