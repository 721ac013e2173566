package dev.spool.replication;

import java.nio.ByteBuffer;

import static dev.spool.replication.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.FrameDescriptor.NONCE_LENGTH;
import static dev.spool.replication.FrameDescriptor.WELCOME_CHECKSUM_OFFSET;
import static dev.spool.replication.FrameDescriptor.WELCOME_LAST_INDEX_OFFSET;
import static dev.spool.replication.FrameDescriptor.WELCOME_MAC_OFFSET;
import static dev.spool.replication.FrameDescriptor.WELCOME_NONCE_OFFSET;
import static dev.spool.replication.FrameDescriptor.WELCOME_TERM_OFFSET;

/**
 * Flyweight over a WELCOME frame, the sink's acceptance of a HELLO: its last index and that excerpt's checksum, its
 * term, its nonce and its proof of the shared secret. Wraps a little-endian buffer at the frame's offset; the header
 * is {@link FrameHeader}'s. Once per connection, so the nonce and MAC are returned as new arrays.
 */
final class WelcomeFlyweight {
    /** The largest CRC-32C. */
    private static final long MAX_CHECKSUM = 0xFFFF_FFFFL;
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    WelcomeFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the sink's last index, -1 if its replica is empty or not created yet. */
    long lastIndex() {
        return buffer.getLong(offset + WELCOME_LAST_INDEX_OFFSET);
    }

    /**
     * @param lastIndex the sink's last index, -1 if none.
     * @return this flyweight.
     */
    WelcomeFlyweight lastIndex(final long lastIndex) {
        buffer.putLong(offset + WELCOME_LAST_INDEX_OFFSET, lastIndex);
        return this;
    }

    /** @return the CRC-32C of the payload at the sink's last index, -1 if it has none. */
    long checksum() {
        return buffer.getLong(offset + WELCOME_CHECKSUM_OFFSET);
    }

    /**
     * @param checksum the CRC-32C of the payload at the sink's last index, -1 if it has none.
     * @return this flyweight.
     */
    WelcomeFlyweight checksum(final long checksum) {
        buffer.putLong(offset + WELCOME_CHECKSUM_OFFSET, checksum);
        return this;
    }

    /** @return the sink replica's term. */
    long term() {
        return buffer.getLong(offset + WELCOME_TERM_OFFSET);
    }

    /**
     * @param term the sink replica's term.
     * @return this flyweight.
     */
    WelcomeFlyweight term(final long term) {
        buffer.putLong(offset + WELCOME_TERM_OFFSET, term);
        return this;
    }

    /** @return a copy of the sink's nonce. */
    byte[] nonce() {
        final byte[] nonce = new byte[NONCE_LENGTH];
        buffer.get(offset + WELCOME_NONCE_OFFSET, nonce);
        return nonce;
    }

    /**
     * @param nonce the sink's nonce, {@link FrameDescriptor#NONCE_LENGTH} bytes.
     * @return this flyweight.
     */
    WelcomeFlyweight nonce(final byte[] nonce) {
        buffer.put(offset + WELCOME_NONCE_OFFSET, nonce, 0, NONCE_LENGTH);
        return this;
    }

    /** @return a copy of the sink's HMAC over both nonces. */
    byte[] mac() {
        final byte[] mac = new byte[MAC_LENGTH];
        buffer.get(offset + WELCOME_MAC_OFFSET, mac);
        return mac;
    }

    /**
     * @param mac the sink's HMAC over both nonces, {@link FrameDescriptor#MAC_LENGTH} bytes.
     * @return this flyweight.
     */
    WelcomeFlyweight mac(final byte[] mac) {
        buffer.put(offset + WELCOME_MAC_OFFSET, mac, 0, MAC_LENGTH);
        return this;
    }

    /**
     * Decoder: checks that the last index, its checksum and the term are values a sink can send.
     *
     * @param peer names the sender in the error.
     * @throws FrameException naming the peer, the field and its value.
     */
    void check(final String peer) throws FrameException {
        if (lastIndex() < -1) {
            throw new FrameException("WELCOME frame from " + peer + ": lastIndex=" + lastIndex() + " is below -1");
        }
        if (checksum() < -1 || checksum() > MAX_CHECKSUM) {
            throw new FrameException("WELCOME frame from " + peer + ": checksum=" + checksum()
                    + " is neither -1 nor a CRC-32C");
        }
        if (term() < 0) {
            throw new FrameException("WELCOME frame from " + peer + ": term=" + term() + " is negative");
        }
    }
}
