package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.HEADER_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.LENGTH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_HELLO;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_LAST;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.VERSION;
import static dev.spool.replication.protocol.FrameDescriptor.VERSION_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.fixedLength;
import static dev.spool.replication.protocol.FrameDescriptor.minLength;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;

/**
 * Flyweight over the header every frame starts with ({@link FrameDescriptor}): length, type, protocol version. The
 * encoder side stamps a frame this build sends; the decoder side checks a peer's frame before its body is read.
 * Wraps a little-endian buffer at a frame's offset, with absolute gets and puts: no allocation but on the throw path.
 */
public final class FrameHeader {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, a frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public FrameHeader wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the frame's length in bytes, header included. */
    public int frameLength() {
        return buffer.getInt(offset + LENGTH_OFFSET);
    }

    /** @return the frame's type, one of the {@code TYPE_} values of {@link FrameDescriptor} if it is valid. */
    public int type() {
        return buffer.getShort(offset + TYPE_OFFSET);
    }

    /** @return the protocol version the frame's sender speaks. */
    public int version() {
        return buffer.getShort(offset + VERSION_OFFSET);
    }

    /**
     * Encoder: stamps the type and this build's protocol version; {@link #frameLength(int)} completes the header once
     * the body is written.
     *
     * @param type the frame's type.
     * @return this flyweight.
     */
    public FrameHeader encode(final int type) {
        buffer.putShort(offset + TYPE_OFFSET, (short) type);
        buffer.putShort(offset + VERSION_OFFSET, VERSION);
        return this;
    }

    /**
     * Encoder: overrides the version {@link #encode(int)} stamped, for tests that play an older or newer peer.
     *
     * @param version the protocol version to claim.
     * @return this flyweight.
     */
    public FrameHeader version(final int version) {
        buffer.putShort(offset + VERSION_OFFSET, (short) version);
        return this;
    }

    /**
     * Encoder: sets the frame's length.
     *
     * @param length bytes, header included.
     * @return this flyweight.
     */
    public FrameHeader frameLength(final int length) {
        buffer.putInt(offset + LENGTH_OFFSET, length);
        return this;
    }

    /**
     * Decoder: checks the header of a frame from a peer: its version, its length within the receiver's limit, its
     * type, and the length its type requires (exactly, or at least its fixed fields').
     *
     * @param peer           names the sender in the error.
     * @param maxFrameLength the longest frame the receiver accepts now, its MAC included.
     * @param tagLength      bytes of the MAC after the frame's body: {@link FrameMac#TAG_LENGTH} once the session is
     *                       authenticated, else 0.
     * @return the frame's length, its MAC included.
     * @throws FrameException naming the peer, the frame type, and the field and value that are wrong.
     */
    public int check(final String peer, final int maxFrameLength, final int tagLength) throws FrameException {
        final int length = frameLength();
        final int type = type();
        final int version = version();
        if (version != VERSION) {
            throw new FrameException(String.format("%s frame from %s: protocol version=%d, this build speaks %d%s",
                    typeName(type), peer, version, VERSION, olderOrNewer(version)));
        }
        if (length < HEADER_LENGTH + tagLength || length > maxFrameLength) {
            throw new FrameException(String.format("%s frame from %s: length=%d outside [%d, %d]", typeName(type), peer,
                    length, HEADER_LENGTH + tagLength, maxFrameLength));
        }
        if (type < TYPE_HELLO || type > TYPE_LAST) {
            throw new FrameException("frame of " + typeName(type) + " from " + peer);
        }
        final int fixed = fixedLength(type);
        if (fixed >= 0 && length != fixed + tagLength) {
            throw new FrameException(String.format("%s frame from %s: length=%d, expected %d", typeName(type), peer,
                    length, fixed + tagLength));
        }
        // a frame whose length varies must hold its fixed fields: without a MAC nothing else keeps a read inside it
        final int least = minLength(type) + tagLength;
        if (length < least) {
            throw new FrameException(String.format("%s frame from %s: length=%d, shorter than the %d bytes of its"
                    + " fixed fields", typeName(type), peer, length, least));
        }
        return length;
    }

    private static String olderOrNewer(final int version) {
        if (version >= 1 && version < VERSION) {
            return ": the peer runs an older Spool";
        }
        return version > VERSION ? ": the peer runs a newer Spool" : "";
    }
}
