package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.GRANT_CLIENT_ID_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.GRANT_EPOCH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.GRANT_RESERVED_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.MAX_WRITER_EPOCH;

/**
 * Flyweight over a GRANT frame, a publish gateway's answer to IDENTIFY: the client's id and the writer epoch its
 * connection publishes under. Wraps a little-endian buffer at the frame's offset; the layout is
 * {@link FrameDescriptor}'s. Allocates nothing but on the throw path.
 */
public final class GrantFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public GrantFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the client's id. */
    public long clientId() {
        return buffer.getLong(offset + GRANT_CLIENT_ID_OFFSET);
    }

    /** @return the writer epoch granted; 0 from a gateway that does not deduplicate. */
    public int epoch() {
        return buffer.getInt(offset + GRANT_EPOCH_OFFSET);
    }

    /**
     * @param clientId the client's id.
     * @param epoch    the writer epoch granted.
     * @return this flyweight.
     */
    public GrantFlyweight set(final long clientId, final int epoch) {
        buffer.putLong(offset + GRANT_CLIENT_ID_OFFSET, clientId);
        buffer.putInt(offset + GRANT_EPOCH_OFFSET, epoch);
        buffer.putInt(offset + GRANT_RESERVED_OFFSET, 0);
        return this;
    }

    /**
     * Decoder: checks that the grant is for {@code clientId} and that its epoch is in range.
     *
     * @param peer     names the sender in the error.
     * @param clientId the id the client identified itself with.
     * @throws FrameException naming the peer and the values.
     */
    public void check(final String peer, final long clientId) throws FrameException {
        if (clientId() != clientId || epoch() < 0 || epoch() > MAX_WRITER_EPOCH) {
            throw new FrameException(String.format("GRANT frame from %s: client id 0x%x where 0x%x identified itself,"
                    + " epoch %d (0 to %d)", peer, clientId(), clientId, epoch(), MAX_WRITER_EPOCH));
        }
    }
}
