package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.IDENTIFY_CLIENT_ID_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.IDENTIFY_COMMITTED_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.IDENTIFY_EPOCH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.IDENTIFY_RESERVED_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.IDENTIFY_SENT_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.MAX_PUBLISH_SEQUENCE;
import static dev.spool.replication.protocol.FrameDescriptor.MAX_WRITER_EPOCH;

/**
 * Flyweight over an IDENTIFY frame, a publish client's first on an open connection: its id, the writer epoch it
 * holds (0 for a new instance) and the highest sequence committed with every one below it. Wraps a little-endian
 * buffer at the frame's offset; the layout is {@link FrameDescriptor}'s. Allocates nothing but on the throw path.
 */
public final class IdentifyFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public IdentifyFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the client's id. */
    public long clientId() {
        return buffer.getLong(offset + IDENTIFY_CLIENT_ID_OFFSET);
    }

    /** @return the writer epoch the client holds; 0 for a new instance. */
    public int epoch() {
        return buffer.getInt(offset + IDENTIFY_EPOCH_OFFSET);
    }

    /** @return the highest sequence committed to the client with every one below it; 0 for none. */
    public long committed() {
        return buffer.getLong(offset + IDENTIFY_COMMITTED_OFFSET);
    }

    /** @return the highest sequence the client sent; 0 for none. */
    public long sent() {
        return buffer.getLong(offset + IDENTIFY_SENT_OFFSET);
    }

    /**
     * @param clientId  the client's id.
     * @param epoch     the writer epoch it holds, 0 for a new instance.
     * @param committed the highest sequence committed with every one below it, 0 for none.
     * @param sent      the highest sequence sent, 0 for none.
     * @return this flyweight.
     */
    public IdentifyFlyweight set(final long clientId, final int epoch, final long committed, final long sent) {
        buffer.putLong(offset + IDENTIFY_SENT_OFFSET, sent);
        buffer.putLong(offset + IDENTIFY_CLIENT_ID_OFFSET, clientId);
        buffer.putInt(offset + IDENTIFY_EPOCH_OFFSET, epoch);
        buffer.putInt(offset + IDENTIFY_RESERVED_OFFSET, 0);
        buffer.putLong(offset + IDENTIFY_COMMITTED_OFFSET, committed);
        return this;
    }

    /**
     * Decoder: checks the id, the epoch and the sequence.
     *
     * @param peer names the sender in the error.
     * @throws FrameException naming the peer and the values out of range.
     */
    public void check(final String peer) throws FrameException {
        final int epoch = epoch();
        final long committed = committed();
        final long sent = sent();
        if (clientId() == 0 || epoch < 0 || epoch > MAX_WRITER_EPOCH || committed < 0 || sent < committed
                || sent > MAX_PUBLISH_SEQUENCE) {
            throw new FrameException(String.format("IDENTIFY frame from %s: client id 0x%x (not 0), epoch %d (0 to %d),"
                    + " committed sequence %d and sent sequence %d (0 <= committed <= sent <= %d)", peer, clientId(),
                    epoch, MAX_WRITER_EPOCH, committed, sent, MAX_PUBLISH_SEQUENCE));
        }
    }
}
