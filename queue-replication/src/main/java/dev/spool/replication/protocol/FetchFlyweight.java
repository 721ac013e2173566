package dev.spool.replication.protocol;

import java.nio.ByteBuffer;
import java.util.UUID;

import static dev.spool.replication.protocol.FrameDescriptor.FETCH_FROM_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.FETCH_QUEUE_ID_LEAST_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.FETCH_QUEUE_ID_MOST_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.FETCH_TO_OFFSET;

/**
 * Flyweight over a FETCH frame, by which a repairer asks a replica's sink for the stored bodies of a range of
 * indices. Wraps a little-endian buffer at the frame's offset; the header is {@link FrameHeader}'s.
 */
public final class FetchFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public FetchFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the first index wanted. */
    public long fromIndex() {
        return buffer.getLong(offset + FETCH_FROM_OFFSET);
    }

    /** @return the last index wanted, inclusive. */
    public long toIndex() {
        return buffer.getLong(offset + FETCH_TO_OFFSET);
    }

    /** @return the queue id of the repairer's queue: the replica's must be the same. */
    public UUID queueId() {
        return new UUID(buffer.getLong(offset + FETCH_QUEUE_ID_MOST_OFFSET),
                buffer.getLong(offset + FETCH_QUEUE_ID_LEAST_OFFSET));
    }

    /**
     * @param queueId the queue id of the repairer's queue.
     * @return this flyweight.
     */
    public FetchFlyweight queueId(final UUID queueId) {
        buffer.putLong(offset + FETCH_QUEUE_ID_MOST_OFFSET, queueId.getMostSignificantBits());
        buffer.putLong(offset + FETCH_QUEUE_ID_LEAST_OFFSET, queueId.getLeastSignificantBits());
        return this;
    }

    /**
     * @param fromIndex the first index wanted.
     * @param toIndex   the last index wanted, inclusive.
     * @return this flyweight.
     */
    public FetchFlyweight range(final long fromIndex, final long toIndex) {
        buffer.putLong(offset + FETCH_FROM_OFFSET, fromIndex);
        buffer.putLong(offset + FETCH_TO_OFFSET, toIndex);
        return this;
    }
}
