package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.START_MAC_OFFSET;

/**
 * Flyweight over a START frame, the source's proof of the shared secret over the HELLO and the WELCOME. Wraps a
 * little-endian buffer at the frame's offset; the header is {@link FrameHeader}'s.
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

    /** @return a copy of the source's HMAC over the HELLO, the WELCOME and this frame. */
    public byte[] mac() {
        final byte[] mac = new byte[MAC_LENGTH];
        buffer.get(offset + START_MAC_OFFSET, mac);
        return mac;
    }

    /**
     * @param mac the source's HMAC, {@link FrameDescriptor#MAC_LENGTH} bytes.
     * @return this flyweight.
     */
    public StartFlyweight mac(final byte[] mac) {
        buffer.put(offset + START_MAC_OFFSET, mac, 0, MAC_LENGTH);
        return this;
    }
}
