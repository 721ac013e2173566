package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.COMMIT_SEQUENCE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.COMMIT_INDEX_OFFSET;

/**
 * Flyweight over a COMMIT frame, the gateway's answer to a PUBLISH: its sequence and the message's index.
 * Wraps a little-endian buffer at the frame's offset; the header is {@link FrameHeader}'s. Allocates nothing.
 */
public final class CommitFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public CommitFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the sequence of the PUBLISH this commit answers. */
    public long sequence() {
        return buffer.getLong(offset + COMMIT_SEQUENCE_OFFSET);
    }

    /**
     * @param sequence the sequence of the PUBLISH this commit answers.
     * @return this flyweight.
     */
    public CommitFlyweight sequence(final long sequence) {
        buffer.putLong(offset + COMMIT_SEQUENCE_OFFSET, sequence);
        return this;
    }

    /** @return the message's index in the gateway's queue. */
    public long index() {
        return buffer.getLong(offset + COMMIT_INDEX_OFFSET);
    }

    /**
     * @param index the message's index in the gateway's queue.
     * @return this flyweight.
     */
    public CommitFlyweight index(final long index) {
        buffer.putLong(offset + COMMIT_INDEX_OFFSET, index);
        return this;
    }

    /**
     * Decoder: checks that the index is one an append can return.
     *
     * @param peer names the sender in the error.
     * @throws FrameException naming the peer, the sequence and the index.
     */
    public void check(final String peer) throws FrameException {
        if (index() < 0) {
            throw new FrameException("COMMIT frame from " + peer + ": sequence " + sequence() + " has index="
                    + index());
        }
    }
}
