package dev.spool.replication;

import java.nio.ByteBuffer;

import static dev.spool.replication.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.FrameDescriptor.START_INDEX_OFFSET;
import static dev.spool.replication.FrameDescriptor.START_MAC_OFFSET;

/**
 * Flyweight over a START frame, the source's end of the handshake: the index it resumes after and its proof of the
 * shared secret. Wraps a little-endian buffer at the frame's offset; the header is {@link FrameHeader}'s.
 */
final class StartFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    StartFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the index the source resumes after: the sink's last. */
    long resumeAfter() {
        return buffer.getLong(offset + START_INDEX_OFFSET);
    }

    /**
     * @param index the index the source resumes after: the sink's last.
     * @return this flyweight.
     */
    StartFlyweight resumeAfter(final long index) {
        buffer.putLong(offset + START_INDEX_OFFSET, index);
        return this;
    }

    /** @return a copy of the source's HMAC over both nonces. */
    byte[] mac() {
        final byte[] mac = new byte[MAC_LENGTH];
        buffer.get(offset + START_MAC_OFFSET, mac);
        return mac;
    }

    /**
     * @param mac the source's HMAC over both nonces, {@link FrameDescriptor#MAC_LENGTH} bytes.
     * @return this flyweight.
     */
    StartFlyweight mac(final byte[] mac) {
        buffer.put(offset + START_MAC_OFFSET, mac, 0, MAC_LENGTH);
        return this;
    }

    /**
     * Decoder: checks that the source resumes where the sink's WELCOME said.
     *
     * @param peer      names the sender in the error.
     * @param sinkLast  the last index the sink announced.
     * @throws FrameException naming the peer and both indices.
     */
    void check(final String peer, final long sinkLast) throws FrameException {
        if (resumeAfter() != sinkLast) {
            throw new FrameException("START frame from " + peer + ": resumes after index " + resumeAfter()
                    + ", the sink's last index is " + sinkLast);
        }
    }
}
