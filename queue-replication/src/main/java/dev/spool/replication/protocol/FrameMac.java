package dev.spool.replication.protocol;

import dev.spool.queue.SpoolException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The MAC of one direction of an authenticated session: HMAC-SHA256 (RFC 2104) under the session's key for that
 * direction, over the frame's sequence number in the session (a little-endian long, counted from 0, never sent) and
 * the frame's bytes, header included, cut to its first {@value #TAG_LENGTH} bytes (RFC 2104 section 5 allows cutting
 * to half the hash). A frame replayed, dropped, reordered, altered or injected has the wrong MAC for its place.
 * <p>
 * Built on {@link MessageDigest} rather than {@code javax.crypto.Mac}, whose {@code doFinal} returns a new array
 * per call: this one allocates nothing per frame (the bytes are copied through a scratch array, as the JDK's own
 * digests do for a direct buffer). {@code FrameMacTest} checks it against {@code javax.crypto.Mac}. One thread.
 */
public final class FrameMac {
    /** Bytes of the MAC after each frame of an authenticated session. */
    public static final int TAG_LENGTH = 16;
    private static final int BLOCK_LENGTH = 64;
    private static final int SCRATCH_LENGTH = 4096;
    private static final byte INNER_PAD = 0x36;
    private static final byte OUTER_PAD = 0x5c;

    private final MessageDigest inner;
    private final MessageDigest outer;
    private final byte[] innerPad = new byte[BLOCK_LENGTH];
    private final byte[] outerPad = new byte[BLOCK_LENGTH];
    private final byte[] scratch = new byte[SCRATCH_LENGTH];
    private final byte[] digest = new byte[32];
    private long sequence;

    /** A MAC without a key: {@link #key(byte[])} gives it the session's. */
    public FrameMac() {
        try {
            inner = MessageDigest.getInstance("SHA-256");
            outer = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new SpoolException("SHA-256 is not available in this JVM", e);
        }
    }

    /**
     * Starts a session: the key, and the sequence back to 0.
     *
     * @param key the direction's session key, at most 64 bytes ({@link Handshake#sessionKey} makes 32).
     */
    public void key(final byte[] key) {
        for (int i = 0; i < BLOCK_LENGTH; i++) {
            final byte k = i < key.length ? key[i] : 0;
            innerPad[i] = (byte) (k ^ INNER_PAD);
            outerPad[i] = (byte) (k ^ OUTER_PAD);
        }
        sequence = 0;
    }

    /** @return the sequence number the next frame will be signed or checked with. */
    public long sequence() {
        return sequence;
    }

    /**
     * Writes the tag of the next frame after it, and counts the frame.
     *
     * @param buffer holds the frame.
     * @param offset where the frame starts.
     * @param length the frame's bytes before the tag, which goes at {@code offset + length}.
     */
    public void sign(final ByteBuffer buffer, final int offset, final int length) {
        compute(buffer, offset, length);
        buffer.put(offset + length, digest, 0, TAG_LENGTH);
        sequence++;
    }

    /**
     * Checks the tag after the next frame in constant time, and counts the frame if it is right.
     *
     * @param buffer holds the frame.
     * @param offset where the frame starts.
     * @param length the frame's bytes before the tag, which is at {@code offset + length}.
     * @return true if the tag is the one of this frame at this place in the session.
     */
    public boolean verify(final ByteBuffer buffer, final int offset, final int length) {
        compute(buffer, offset, length);
        int difference = 0;
        for (int i = 0; i < TAG_LENGTH; i++) {
            difference |= digest[i] ^ buffer.get(offset + length + i);
        }
        if (difference != 0) {
            return false;
        }
        sequence++;
        return true;
    }

    private void compute(final ByteBuffer buffer, final int offset, final int length) {
        final MessageDigest in = inner;
        in.update(innerPad, 0, BLOCK_LENGTH);
        long s = sequence;
        for (int i = 0; i < Long.BYTES; i++) {
            scratch[i] = (byte) s;
            s >>>= 8;
        }
        in.update(scratch, 0, Long.BYTES);
        for (int done = 0; done < length; ) {
            final int chunk = Math.min(SCRATCH_LENGTH, length - done);
            buffer.get(offset + done, scratch, 0, chunk);
            in.update(scratch, 0, chunk);
            done += chunk;
        }
        try {
            in.digest(digest, 0, digest.length);
            final MessageDigest out = outer;
            out.update(outerPad, 0, BLOCK_LENGTH);
            out.update(digest, 0, digest.length);
            out.digest(digest, 0, digest.length);
        } catch (java.security.DigestException e) {
            throw new SpoolException("SHA-256 digest into a 32-byte array", e);
        }
    }
}
