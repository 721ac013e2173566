package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_CODE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_MESSAGE_LENGTH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_MESSAGE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_TERM_OFFSET;

/**
 * Flyweight over an ERROR frame, which ends a connection: a code ({@code ERROR_} in {@link FrameDescriptor}), the
 * sender's term and a UTF-8 message. Wraps a little-endian buffer at the frame's offset; the header is
 * {@link FrameHeader}'s. Errors are the throw path: the message is decoded into a new string.
 */
public final class ErrorFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param messageLength the message's length in bytes.
     * @return the length of an ERROR frame carrying it.
     */
    public static int frameLength(final int messageLength) {
        return ERROR_MESSAGE_OFFSET + messageLength;
    }

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public ErrorFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the error code, one of the {@code ERROR_} values of {@link FrameDescriptor} from a valid peer. */
    public int code() {
        return buffer.getInt(offset + ERROR_CODE_OFFSET);
    }

    /**
     * @param code the error code.
     * @return this flyweight.
     */
    public ErrorFlyweight code(final int code) {
        buffer.putInt(offset + ERROR_CODE_OFFSET, code);
        return this;
    }

    /** @return the term of the sender's queue: a source learns from it that it is fenced. */
    public long term() {
        return buffer.getLong(offset + ERROR_TERM_OFFSET);
    }

    /**
     * @param term the term of the sender's queue.
     * @return this flyweight.
     */
    public ErrorFlyweight term(final long term) {
        buffer.putLong(offset + ERROR_TERM_OFFSET, term);
        return this;
    }

    /**
     * @param utf8   the message, UTF-8.
     * @param length how many of its bytes to send.
     * @return this flyweight.
     */
    public ErrorFlyweight message(final byte[] utf8, final int length) {
        buffer.putInt(offset + ERROR_MESSAGE_LENGTH_OFFSET, length);
        buffer.put(offset + ERROR_MESSAGE_OFFSET, utf8, 0, length);
        return this;
    }

    /**
     * Decoder: the message, quoted, escaped and cut by {@link PeerText} (the peer's words, never Spool's, whatever
     * bytes it sent), or a note saying its length does not match the frame's (the connection ends anyway).
     *
     * @param frameLength the frame's length, from its header.
     * @return the message, in double quotes.
     */
    public String message(final int frameLength) {
        final int length = buffer.getInt(offset + ERROR_MESSAGE_LENGTH_OFFSET);
        if (length < 0 || frameLength(length) != frameLength) {
            return "(malformed error message of length " + length + ")";
        }
        return PeerText.quote(buffer, offset + ERROR_MESSAGE_OFFSET, length);
    }
}
