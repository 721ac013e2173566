package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.PUBLISH_CLIENT_ID_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.PUBLISH_PAYLOAD_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.PUBLISH_RESERVED_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.PUBLISH_SEQUENCE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.PUBLISH_STAGE_OFFSET;

/**
 * Flyweight over a PUBLISH frame, a client's message to the gateway: the client's id, its sequence number for the
 * publish, the {@code CommitStage} wanted and the payload. Wraps a little-endian buffer at the frame's offset; the header is {@link FrameHeader}'s.
 * Allocates nothing but on the throw path.
 */
public final class PublishFlyweight {
    private static final int STAGES = FrameDescriptor.PUBLISH_STAGE_COUNT;
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param payloadLength the payload's length in bytes.
     * @return the length of a PUBLISH frame carrying it.
     */
    public static int frameLength(final int payloadLength) {
        return PUBLISH_PAYLOAD_OFFSET + payloadLength;
    }

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public PublishFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the publishing client's id; 0 from a client that has none. */
    public long clientId() {
        return buffer.getLong(offset + PUBLISH_CLIENT_ID_OFFSET);
    }

    /**
     * @param clientId the publishing client's id.
     * @return this flyweight.
     */
    public PublishFlyweight clientId(final long clientId) {
        buffer.putLong(offset + PUBLISH_CLIENT_ID_OFFSET, clientId);
        return this;
    }

    /** @return the client's number for this publish, from 1, echoed in the COMMIT. */
    public long sequence() {
        return buffer.getLong(offset + PUBLISH_SEQUENCE_OFFSET);
    }

    /**
     * @param sequence the client's number for this publish, from 1.
     * @return this flyweight.
     */
    public PublishFlyweight sequence(final long sequence) {
        buffer.putLong(offset + PUBLISH_SEQUENCE_OFFSET, sequence);
        return this;
    }

    /** @return the ordinal of the {@code CommitStage} wanted. */
    public int stage() {
        return buffer.getInt(offset + PUBLISH_STAGE_OFFSET);
    }

    /**
     * @param stage the stage at which the gateway is to answer.
     * @return this flyweight.
     */
    public PublishFlyweight stage(final int stage) {
        buffer.putInt(offset + PUBLISH_STAGE_OFFSET, stage);
        buffer.putInt(offset + PUBLISH_RESERVED_OFFSET, 0);
        return this;
    }

    /**
     * @param payload holds the message.
     * @param from    where it starts.
     * @param length  its length.
     * @return this flyweight.
     */
    public PublishFlyweight payload(final byte[] payload, final int from, final int length) {
        buffer.put(offset + PUBLISH_PAYLOAD_OFFSET, payload, from, length);
        return this;
    }

    /** @return where the payload starts in the buffer (absolute). */
    public int payloadOffset() {
        return offset + PUBLISH_PAYLOAD_OFFSET;
    }

    /**
     * Decoder: checks the stage and that there is a payload; the sequence is the gateway's to check, against its
     * client's writer epoch.
     *
     * @param peer        names the sender in the error.
     * @param frameLength the frame's length, from its header.
     * @return the payload's length.
     * @throws FrameException naming the peer, the stage, the sequence and the payload's length.
     */
    public int checkedPayloadLength(final String peer, final int frameLength) throws FrameException {
        final int stage = stage();
        final int length = frameLength - PUBLISH_PAYLOAD_OFFSET;
        if (stage < 0 || stage >= STAGES || length < 1) {
            throw new FrameException("PUBLISH frame from " + peer + ": stage=" + stage + " (stages are 0 to "
                    + (STAGES - 1) + "), sequence=" + sequence() + " (from 1) and " + length + " payload bytes");
        }
        return length;
    }
}
