package dev.spool.replication.protocol;

import dev.spool.queue.internal.TermHistory;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.START_TERMS_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.START_TERM_COUNT_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.startLength;
import static dev.spool.replication.protocol.FrameDescriptor.startMacOffset;

/**
 * Flyweight over a START frame, the source's proof of the shared secret over the HELLO and the WELCOME, with the
 * source queue's term history before the proof. Wraps a little-endian buffer at the frame's offset; the header is
 * {@link FrameHeader}'s. Once per connection, so the history and the MAC are returned as new objects.
 */
public final class StartFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public StartFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the number of term entries, which places the MAC. */
    public int termCount() {
        return buffer.getInt(offset + START_TERM_COUNT_OFFSET);
    }

    /** @return the source's term history; once {@link #check} passed. */
    public TermHistory termHistory() {
        return TermEntries.read(buffer, offset + START_TERMS_OFFSET, termCount());
    }

    /**
     * @param history the source queue's term history; write it before the MAC, which it places.
     * @return this flyweight.
     */
    public StartFlyweight termHistory(final TermHistory history) {
        buffer.putInt(offset + START_TERM_COUNT_OFFSET, history.size());
        TermEntries.write(buffer, offset + START_TERMS_OFFSET, history);
        return this;
    }

    /** @return the offset of the MAC from the frame's start: the length of what it proves. */
    public int macOffset() {
        return startMacOffset(termCount());
    }

    /** @return the frame's length, for its term entries. */
    public int frameLength() {
        return startLength(termCount());
    }

    /** @return a copy of the source's HMAC over the HELLO, the WELCOME and this frame. */
    public byte[] mac() {
        final byte[] mac = new byte[MAC_LENGTH];
        buffer.get(offset + macOffset(), mac);
        return mac;
    }

    /**
     * @param mac the source's HMAC, {@link FrameDescriptor#MAC_LENGTH} bytes.
     * @return this flyweight.
     */
    public StartFlyweight mac(final byte[] mac) {
        buffer.put(offset + macOffset(), mac, 0, MAC_LENGTH);
        return this;
    }

    /**
     * Decoder: checks that the frame is as long as its term entries say, and that they make a history; before its
     * MAC is checked, so nothing else is read.
     *
     * @param peer        names the sender in the error.
     * @param frameLength the frame's length, before any session MAC.
     * @throws FrameException naming the peer, the field and its value.
     */
    public void check(final String peer, final int frameLength) throws FrameException {
        final int count = termCount();
        TermEntries.check("START frame from " + peer, buffer, offset + START_TERMS_OFFSET, count, frameLength,
                count < 1 || count > FrameDescriptor.MAX_TERM_ENTRIES ? -1 : startLength(count));
    }
}
