package dev.spool.replication.protocol;

import dev.spool.queue.IndexFormat;
import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.ACK_INDEX_OFFSET;

/**
 * Flyweight over an ACK frame: the highest index the sink wrote (or synced). Wraps a little-endian buffer at the
 * frame's offset; the header is {@link FrameHeader}'s. Allocates nothing.
 */
public final class AckFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public AckFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the highest index acknowledged. */
    public long index() {
        return buffer.getLong(offset + ACK_INDEX_OFFSET);
    }

    /**
     * @param index the highest index acknowledged.
     * @return this flyweight.
     */
    public AckFlyweight index(final long index) {
        buffer.putLong(offset + ACK_INDEX_OFFSET, index);
        return this;
    }

    /**
     * Decoder: checks that the sink acknowledges nothing it was not sent.
     *
     * @param peer     names the sender in the error.
     * @param lastSent the highest index sent on this connection.
     * @return the index acknowledged.
     * @throws FrameException naming the peer and both indices.
     */
    public long checkedIndex(final String peer, final long lastSent) throws FrameException {
        final long index = index();
        if (index > lastSent) {
            throw new FrameException("ACK frame from " + peer + ": index " + IndexFormat.format(index, null)
                    + " is beyond the last index sent, " + IndexFormat.format(lastSent, null));
        }
        return index;
    }
}
