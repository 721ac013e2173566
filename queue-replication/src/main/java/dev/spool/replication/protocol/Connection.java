package dev.spool.replication.protocol;

import dev.spool.queue.internal.ChronicleDefaults;
import dev.spool.queue.internal.MemoryMove;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.Jvm;

import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Consumer;

import static dev.spool.replication.protocol.FrameDescriptor.HEADER_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.HEARTBEAT_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.MAX_ERROR_MESSAGE_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_HEARTBEAT;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * A non-blocking TCP connection and its two direct buffers, kept from one connection to the next: frames are
 * parsed in place in the receive buffer and built in place in the send buffer, so steady-state traffic allocates
 * nothing, and neither do reconnections once the buffers have grown to their largest. It frames the byte stream
 * (each frame's {@link FrameHeader} is checked before the frame is handed out); the frame codec's flyweights read
 * and write the bodies.
 * <p>
 * Receive buffer: {@code [0, readOffset)} is consumed, {@code [readOffset, received.position())} is unparsed.
 * Send buffer: {@code [0, sentOffset)} is on the wire, {@code [sentOffset, sendEnd)} waits for the socket.
 * Used by one thread at a time.
 */
public final class Connection implements AutoCloseable {
    static {
        ChronicleDefaults.apply(); // before Chronicle loads: a client-only process opens no queue that would do it
    }
    /**
     * For {@code Selector.select(Consumer, long)} by a thread that reads its channels on every pass anyway: that
     * form of select, unlike the selected-key set, allocates nothing.
     */
    public static final Consumer<SelectionKey> IGNORE_KEY = key -> { };
    private SocketChannel channel;
    private String peer = "nobody";
    private ByteBuffer received;
    private long receivedAddress;
    private BytesStore<?, ByteBuffer> receivedStore;
    private int readOffset;
    private int maxFrameLength;
    private ByteBuffer send;
    private long sendAddress;
    private int sentOffset;
    private int sendEnd;
    private boolean closed;
    private long lastReceivedNs;
    private long lastSentNs;

    private int frameOffset;
    private int frameLength;
    /** The frame's length on the wire: {@link #frameLength} and its MAC, if the session is authenticated. */
    private int frameWireLength;
    private int frameType;
    /** Bytes of MAC after each frame: 0 until {@link #authenticate}, then {@link FrameMac#TAG_LENGTH}. */
    private int tagLength;
    /** Made at the first {@link #authenticate}: a connection that never proves anything costs no MAC state. */
    private FrameMac sendMac;
    private FrameMac receiveMac;

    private final int handshakeFrameLength;
    /** Times the frames sent and received, for the heartbeats and the liveness checks of the connection's owner. */
    private final NanoClock clock;
    /** Null but on a server that bounds its buffers: then each growth is reserved here first. */
    private final BufferBudget budget;
    private final FrameHeader receivedHeader = new FrameHeader();
    private final FrameHeader sentHeader = new FrameHeader();
    private final ErrorFlyweight sentError = new ErrorFlyweight();

    /**
     * @param clock           the service's clock, which times the last frame sent and received.
     * @param receiveCapacity the largest frame accepted until {@link #receiveCapacity(int)} raises it; again after
     *                        each {@link #attach(SocketChannel)}.
     * @param sendCapacity    the send buffer's size.
     */
    public Connection(final NanoClock clock, final int receiveCapacity, final int sendCapacity) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.handshakeFrameLength = receiveCapacity;
        this.budget = null;
        receiveCapacity(receiveCapacity);
        sendCapacity(sendCapacity);
    }

    /**
     * A connection whose buffers start small and grow to what its peer sends, each growth reserved in
     * {@code budget}; {@link #close()} returns what it reserved.
     *
     * @param clock           the service's clock, which times the last frame sent and received.
     * @param receiveCapacity the receive buffer's first size, and the largest frame accepted until
     *                        {@link #maxFrameLength(int)} raises it.
     * @param sendCapacity    the send buffer's first size.
     * @param budget          the server's budget.
     * @throws BufferBudget.ExhaustedException if the budget has no room for even these.
     */
    public Connection(final NanoClock clock, final int receiveCapacity, final int sendCapacity,
                      final BufferBudget budget) throws BufferBudget.ExhaustedException {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.handshakeFrameLength = receiveCapacity;
        this.budget = budget;
        reserve(receiveCapacity + (long) sendCapacity);
        try {
            receiveCapacity(receiveCapacity);
            sendCapacity(sendCapacity);
        } catch (RuntimeException | Error e) {
            budget.release(receiveCapacity + (long) sendCapacity);
            if (receivedStore != null) {
                receivedStore.releaseLast();
            }
            throw e;
        }
    }

    private void reserve(final long length) throws BufferBudget.ExhaustedException {
        if (!budget.reserve(length)) {
            throw new BufferBudget.ExhaustedException("the buffers of the connection from " + peer + " would take the"
                    + " server's " + budget.reserved() + " bytes of buffers past its limit of " + budget.limit()
                    + " (maxBytesInFlight)");
        }
    }

    /**
     * Accepts frames of up to {@code length} bytes from now on, growing the receive buffer only when a frame that
     * long arrives; on a connection with a budget.
     */
    public void maxFrameLength(final int length) {
        maxFrameLength = length;
    }

    /**
     * Grows the send buffer, which must be empty, to {@code capacity} bytes, reserved in the budget. All or nothing:
     * if the budget has no room or the allocation fails, the buffer and the budget are as they were.
     *
     * @throws BufferBudget.ExhaustedException if the budget has no room.
     */
    public void growSend(final int capacity) throws BufferBudget.ExhaustedException {
        if (send.capacity() >= capacity) {
            return;
        }
        final long growth = capacity - (long) send.capacity();
        reserve(growth);
        try {
            sendCapacity(capacity);
        } catch (RuntimeException | Error e) {
            // an OutOfMemoryError for direct memory: the old buffer stays, and so must the budget
            budget.release(growth);
            throw e;
        }
    }

    /** Starts using {@code channel}, which this connection closes in {@link #detach()}; the buffers start empty. */
    public void attach(final SocketChannel channel) throws IOException {
        detach();
        channel.configureBlocking(false);
        channel.socket().setTcpNoDelay(true);
        this.channel = channel;
        this.peer = String.valueOf(channel.getRemoteAddress());
        received.clear();
        readOffset = 0;
        maxFrameLength = handshakeFrameLength;
        sentOffset = 0;
        sendEnd = 0;
        lastReceivedNs = clock.nanoTime();
        lastSentNs = lastReceivedNs;
        tagLength = 0;
    }

    /**
     * Binds every later frame, both ways, to the session the handshake authenticated: each frame sent from now on
     * carries a MAC under {@code sendKey}, and each frame received must carry one under {@code receiveKey}, both
     * with the frame's sequence number in the session ({@link FrameMac}). Until {@link #attach} again.
     *
     * @param sendKey    this side's session key.
     * @param receiveKey the peer's session key.
     */
    public void authenticate(final byte[] sendKey, final byte[] receiveKey) {
        if (sendMac == null) {
            sendMac = new FrameMac();
            receiveMac = new FrameMac();
        }
        sendMac.key(sendKey);
        receiveMac.key(receiveKey);
        tagLength = FrameMac.TAG_LENGTH;
    }

    /** @return bytes of MAC after each frame: 0 until {@link #authenticate}. */
    public int tagLength() {
        return tagLength;
    }

    /** @return bytes a frame built at {@link #sendEnd()} may have before its MAC, if any. */
    public int sendRoom() {
        return send.capacity() - sendEnd - tagLength;
    }

    /** @return true between {@link #attach(SocketChannel)} and {@link #detach()}. */
    public boolean isAttached() {
        return channel != null;
    }

    /** Closes the channel; the buffers stay for the next one. */
    public void detach() {
        final SocketChannel closing = channel;
        channel = null;
        if (closing != null) {
            try {
                closing.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close the connection to " + peer, e);
            }
        }
    }

    /** Grows the send buffer, which must be empty, to {@code capacity} bytes. */
    public void sendCapacity(final int capacity) {
        if (send != null && send.capacity() >= capacity) {
            return;
        }
        send = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
        sendAddress = Jvm.address(send);
    }

    /** Grows the receive buffer to accept frames of up to {@code capacity} bytes, keeping what is unparsed. */
    public void receiveCapacity(final int capacity) {
        if (received != null && received.capacity() >= capacity) {
            maxFrameLength = capacity;
            return;
        }
        final ByteBuffer grown = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
        if (received != null) {
            final int unparsed = received.position() - readOffset;
            MEMORY.copyMemory(receivedAddress + readOffset, Jvm.address(grown), (long) unparsed);
            grown.position(unparsed);
            receivedStore.releaseLast();
        }
        readOffset = 0;
        received = grown;
        receivedAddress = Jvm.address(grown);
        receivedStore = BytesStore.follow(grown);
        maxFrameLength = capacity;
    }

    /** @return the peer's address, for messages; set when a channel is attached. */
    public String peer() {
        return peer;
    }

    /** @return the attached channel, or null. */
    public SocketChannel channel() {
        return channel;
    }

    /**
     * Reads what the socket has, without blocking.
     *
     * @return bytes read, 0 if none.
     * @throws IOException if the peer closed the connection or the read failed.
     */
    public int receive() throws IOException {
        if (received.remaining() == 0) {
            compact();
        }
        final int read = channel.read(received);
        if (read < 0) {
            throw new PeerClosedException("connection closed by " + peer);
        }
        if (read > 0) {
            lastReceivedNs = clock.nanoTime();
        }
        return read;
    }

    /**
     * Parses the next frame's header if the whole frame has arrived; then {@link #frameType()},
     * {@link #frameOffset()} and {@link #frameLength()} describe it until {@link #consumeFrame()}.
     *
     * @return true if a whole frame is ready.
     * @throws FrameException                 if the header is malformed (wrong length, version or type) or, in an
     *                                         authenticated session, the frame's MAC is wrong.
     * @throws BufferBudget.ExhaustedException if the frame would take the server past its buffer budget.
     */
    public boolean nextFrame() throws IOException {
        final int available = received.position() - readOffset;
        if (available < HEADER_LENGTH) {
            if (received.capacity() - readOffset < HEADER_LENGTH) {
                compact();
            }
            return false;
        }
        final FrameHeader header = receivedHeader.wrap(received, readOffset);
        final int length = header.check(peer, maxFrameLength, tagLength);
        if (available < length) {
            if (length > received.capacity()) {
                growReceive(length);
            } else if (received.capacity() - readOffset < length) {
                compact();
            }
            return false;
        }
        if (tagLength > 0 && !receiveMac.verify(received, readOffset, length - tagLength)) {
            throw new FrameException(String.format("%s frame from %s: MAC wrong for frame %d of the session (the"
                    + " frame was replayed, reordered, altered or injected, or the peer lost count)",
                    FrameDescriptor.typeName(header.type()), peer, receiveMac.sequence()));
        }
        frameOffset = readOffset;
        frameLength = length - tagLength;
        frameWireLength = length;
        frameType = header.type();
        return true;
    }

    /** Moves past the frame {@link #nextFrame()} returned. */
    public void consumeFrame() {
        readOffset = frameOffset + frameWireLength;
        if (readOffset == received.position()) {
            readOffset = 0;
            received.clear();
        }
    }

    /**
     * On a connection with a budget: the receive buffer grows to hold a frame of {@code length} bytes. All or
     * nothing, as {@link #growSend}.
     */
    private void growReceive(final int length) throws BufferBudget.ExhaustedException {
        final int limit = maxFrameLength;
        final int capacity = (int) Math.min(limit, Math.max(length, 2L * received.capacity()));
        final long growth = capacity - (long) received.capacity();
        reserve(growth);
        try {
            receiveCapacity(capacity);
        } catch (RuntimeException | Error e) {
            budget.release(growth);
            throw e;
        }
        maxFrameLength = limit;
    }

    private void compact() {
        final int unparsed = received.position() - readOffset;
        if (readOffset > 0) {
            // the unparsed bytes overlap their new place unless fewer than were consumed
            MemoryMove.move(receivedAddress + readOffset, receivedAddress, unparsed);
            readOffset = 0;
            received.position(unparsed);
        }
    }

    /** @return the type of the frame {@link #nextFrame()} found. */
    public int frameType() {
        return frameType;
    }

    /** @return where in {@link #received()} the frame {@link #nextFrame()} found starts. */
    public int frameOffset() {
        return frameOffset;
    }

    /** @return the frame's length without its MAC: the length the frame codec knows. */
    public int frameLength() {
        return frameLength;
    }

    /** @return the receive buffer; absolute offsets. */
    public ByteBuffer received() {
        return received;
    }

    /** @return the receive buffer as a store over the same memory, for zero-copy appends; absolute offsets. */
    public BytesStore<?, ByteBuffer> receivedStore() {
        return receivedStore;
    }

    /** @return when the last frame came, on the owner's clock: its liveness check. */
    public long lastReceivedNs() {
        return lastReceivedNs;
    }

    /** @return when the send buffer last emptied, on the owner's clock: its heartbeat is due from then. */
    public long lastSentNs() {
        return lastSentNs;
    }

    /** @return the send buffer; frames are built at {@link #sendEnd()} with absolute puts. */
    public ByteBuffer send() {
        return send;
    }

    /** @return the address of the send buffer's native memory, for copies into it. */
    public long sendAddress() {
        return sendAddress;
    }

    /** @return where the bytes queued for sending end in {@link #send()}. */
    public int sendEnd() {
        return sendEnd;
    }

    /** @return true if everything built has been written to the socket. */
    public boolean sendIdle() {
        return sentOffset == sendEnd;
    }

    /** Starts a frame of {@code type} at {@link #sendEnd()}; {@link #endFrame(int, int)} completes it. */
    public int beginFrame(final int type) {
        final int offset = sendEnd;
        sentHeader.wrap(send, offset).encode(type);
        return offset;
    }

    /**
     * Starts a frame of {@code type} whose length is known, with its header complete at once: for a handshake
     * frame whose MAC covers its own header.
     */
    public int beginFrame(final int type, final int length) {
        final int offset = beginFrame(type);
        sentHeader.wrap(send, offset).frameLength(length + tagLength);
        return offset;
    }

    /**
     * Completes the frame begun at {@code offset}, {@code length} bytes long, for the next {@link #flush()}; in an
     * authenticated session its MAC follows it, {@link #tagLength()} bytes that the caller left room for.
     */
    public void endFrame(final int offset, final int length) {
        sentHeader.wrap(send, offset).frameLength(length + tagLength);
        if (tagLength > 0) {
            sendMac.sign(send, offset, length);
        }
        sendEnd = offset + length + tagLength;
    }

    /** Queues a HEARTBEAT frame: the owner says it is alive after a heartbeat interval of silence. */
    public void sendHeartbeat() {
        endFrame(beginFrame(TYPE_HEARTBEAT), HEARTBEAT_LENGTH);
    }

    /** Queues an ERROR frame; the message is cut to {@link FrameDescriptor#MAX_ERROR_MESSAGE_LENGTH} bytes. */
    public void sendError(final int code, final long term, final String message) {
        final byte[] utf8 = message.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(Math.min(utf8.length, MAX_ERROR_MESSAGE_LENGTH),
                sendRoom() - ErrorFlyweight.frameLength(0));
        if (length < 0) {
            return;
        }
        final int offset = beginFrame(TYPE_ERROR);
        sentError.wrap(send, offset).code(code).term(term).message(utf8, length);
        endFrame(offset, ErrorFlyweight.frameLength(length));
    }

    /**
     * Writes what is pending without blocking.
     *
     * @return true if nothing is pending any more.
     * @throws IOException if the write failed.
     */
    public boolean flush() throws IOException {
        if (sentOffset == sendEnd) {
            return true;
        }
        send.limit(sendEnd).position(sentOffset);
        final int written;
        try {
            written = channel.write(send);
            sentOffset = send.position();
        } finally {
            // a write that throws (a reset) must not leave the limit short: the next connection builds past it
            send.clear();
        }
        if (written > 0) {
            lastSentNs = clock.nanoTime();
        }
        if (sentOffset == sendEnd) {
            sentOffset = 0;
            sendEnd = 0;
            return true;
        }
        return false;
    }

    /** Builds the next frame at {@code offset} instead of after the pending ones: for the source's batching. */
    public void sendEnd(final int offset) {
        sendEnd = offset;
    }

    /** The peer closed the connection in order: expected when it stops, unlike a reset or a timeout. */
    public static final class PeerClosedException extends IOException {
        private static final long serialVersionUID = 1L;

        PeerClosedException(final String message) {
            super(message);
        }
    }

    /** Closes the channel and frees the buffers; closing again does nothing. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            detach();
        } finally {
            if (budget != null) {
                budget.release(received.capacity() + (long) send.capacity());
            }
            receivedStore.releaseLast();
        }
    }
}
