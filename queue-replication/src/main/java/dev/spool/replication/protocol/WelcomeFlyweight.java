package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.NONCE_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.WELCOME_MAC_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.WELCOME_NONCE_OFFSET;

/**
 * Flyweight over a WELCOME frame, the sink's answer to a HELLO: its nonce and its proof of the shared secret, and
 * nothing of its replica. Wraps a little-endian buffer at the frame's offset; the header is {@link FrameHeader}'s.
 * Once per connection, so the nonce and MAC are returned as new arrays.
 */
public final class WelcomeFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public WelcomeFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return a copy of the sink's nonce. */
    public byte[] nonce() {
        final byte[] nonce = new byte[NONCE_LENGTH];
        buffer.get(offset + WELCOME_NONCE_OFFSET, nonce);
        return nonce;
    }

    /**
     * @param nonce the sink's nonce, {@link FrameDescriptor#NONCE_LENGTH} bytes.
     * @return this flyweight.
     */
    public WelcomeFlyweight nonce(final byte[] nonce) {
        buffer.put(offset + WELCOME_NONCE_OFFSET, nonce, 0, NONCE_LENGTH);
        return this;
    }

    /** @return a copy of the sink's HMAC over the HELLO and this frame. */
    public byte[] mac() {
        final byte[] mac = new byte[MAC_LENGTH];
        buffer.get(offset + WELCOME_MAC_OFFSET, mac);
        return mac;
    }

    /**
     * @param mac the sink's HMAC over the HELLO and this frame, {@link FrameDescriptor#MAC_LENGTH} bytes.
     * @return this flyweight.
     */
    public WelcomeFlyweight mac(final byte[] mac) {
        buffer.put(offset + WELCOME_MAC_OFFSET, mac, 0, MAC_LENGTH);
        return this;
    }
}
