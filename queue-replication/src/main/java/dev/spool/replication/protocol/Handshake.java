package dev.spool.replication.protocol;

import dev.spool.queue.SpoolException;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Crc32cOfMemory;
import dev.spool.queue.internal.QueueInternals;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;

import static dev.spool.replication.protocol.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.NONCE_LENGTH;

/**
 * The handshake's cryptography and history check, run once per connection (allocation is fine here).
 * Authentication is an HMAC-SHA256 challenge-response in both directions: each side sends a fresh random nonce and
 * proves it knows the shared secret by the HMAC, under its role's label, of every handshake frame so far (both
 * nonces among them), so the secret never crosses the wire, a recorded handshake cannot be replayed, and no field
 * of it can be altered on the way. The source proves it first (START), so a sink tells a peer nothing of its
 * replica before then. Then each direction's frames carry a MAC under a session key derived from the secret and
 * both nonces ({@link #sessionKey}, {@link FrameMac}).
 */
public final class Handshake {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ALGORITHM = "HmacSHA256";
    public static final byte[] SINK_LABEL = "spool-sink".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] SOURCE_LABEL = "spool-source".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] SINK_FRAMES_LABEL = "spool-sink-frames".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] SOURCE_FRAMES_LABEL = "spool-source-frames".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] RESUME_LABEL = "spool-sink-resume".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] REFUSAL_LABEL = "spool-sink-refusal".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] GATEWAY_LABEL = "spool-gateway".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] CLIENT_LABEL = "spool-client".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] GATEWAY_FRAMES_LABEL = "spool-gateway-frames".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] CLIENT_FRAMES_LABEL = "spool-client-frames".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] REPAIR_SINK_LABEL = "spool-repair-sink".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] REPAIRER_LABEL = "spool-repairer".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] REPAIR_SINK_FRAMES_LABEL = "spool-repair-sink-frames".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] REPAIRER_FRAMES_LABEL = "spool-repairer-frames".getBytes(StandardCharsets.US_ASCII);

    private Handshake() {
    }

    /** Fewest bytes a shared secret may have: 128 bits. */
    public static final int MIN_SECRET_LENGTH = 16;

    /**
     * @param secret a shared secret from a builder.
     * @return a copy of it, which the caller's later changes to its array cannot reach.
     * @throws SpoolException if it is shorter than {@value #MIN_SECRET_LENGTH} bytes.
     */
    public static byte[] checkedSecret(final byte[] secret) {
        if (secret.length < MIN_SECRET_LENGTH) {
            throw new SpoolException("shared secret of " + secret.length + " bytes: use at least "
                    + MIN_SECRET_LENGTH);
        }
        return secret.clone();
    }

    /**
     * Secure by default: a service starts with a secret, or without one only if its builder said {@code insecure()}.
     *
     * @param what     names the service in the error.
     * @param secret   the builder's secret, or null.
     * @param insecure true if the builder said {@code insecure()}.
     * @throws SpoolException if neither or both were given.
     */
    public static void checkSecurity(final String what, final byte[] secret, final boolean insecure) {
        if (secret == null && !insecure) {
            throw new SpoolException(what + " has no shared secret: give it sharedSecret(...), or call insecure()"
                    + " to let any process that can reach it in");
        }
        if (secret != null && insecure) {
            throw new SpoolException(what + " has both a shared secret and insecure(): choose one");
        }
    }

    /**
     * @param heartbeatInterval a heartbeat interval from a builder.
     * @return it.
     * @throws SpoolException unless it is positive.
     */
    public static Duration checkedHeartbeatInterval(final Duration heartbeatInterval) {
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
            throw new SpoolException("heartbeatInterval=" + heartbeatInterval + " must be positive");
        }
        return heartbeatInterval;
    }

    /** @return a fresh random nonce of {@link FrameDescriptor#NONCE_LENGTH} bytes, one per handshake and side. */
    public static byte[] nonce() {
        final byte[] nonce = new byte[NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /**
     * @param secret the shared secret, or null on an insecure side.
     * @param label  the prover's role.
     * @param parts  what the MAC covers, in order: the handshake's frames so far.
     * @return HMAC-SHA256 of the label and the parts under {@code secret}, or all zeros without a secret.
     */
    public static byte[] mac(final byte[] secret, final byte[] label, final byte[]... parts) {
        if (secret == null) {
            return new byte[MAC_LENGTH];
        }
        try {
            final Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret, ALGORITHM));
            mac.update(label);
            for (final byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new SpoolException(ALGORITHM + " is not available in this JVM", e);
        }
    }

    /**
     * @param secret      the shared secret.
     * @param label       the sending side's frames label, e.g. {@link #SOURCE_FRAMES_LABEL}.
     * @param firstNonce  the nonce of the side that opened the handshake.
     * @param secondNonce the nonce of the side that answered.
     * @return the key of that side's frames in this session: HMAC-SHA256 of the label and both nonces.
     */
    public static byte[] sessionKey(final byte[] secret, final byte[] label, final byte[] firstNonce,
                             final byte[] secondNonce) {
        return mac(secret, label, firstNonce, secondNonce);
    }

    /**
     * @param secret the shared secret.
     * @param hello  the HELLO, as the sink received it and the source sent it.
     * @param welcome the WELCOME.
     * @param start  the START, whose MAC the sink checked.
     * @return the key of the MAC after an ERROR frame by which a sink refuses a source that proved the secret: bound
     * to the whole handshake, both nonces and the queue's identity among it, so that it is fresh, and neither a relay
     * that altered a frame nor one that carries it to another connection can make a source act on it.
     */
    public static byte[] refusalKey(final byte[] secret, final byte[] hello, final byte[] welcome, final byte[] start) {
        return mac(secret, REFUSAL_LABEL, hello, welcome, start);
    }

    /** @return true if {@code received} is the expected MAC; constant time. Without a secret, anything passes. */
    public static boolean verify(final byte[] secret, final byte[] expected, final byte[] received) {
        return secret == null || MessageDigest.isEqual(expected, received);
    }

    /** @return a copy of {@code length} bytes of {@code buffer} from {@code offset}: a handshake frame for a MAC. */
    public static byte[] copy(final ByteBuffer buffer, final int offset, final int length) {
        final byte[] bytes = new byte[length];
        buffer.get(offset, bytes);
        return bytes;
    }

    /**
     * @return the CRC-32C of the body at {@code index}, or -1 if the queue has no excerpt there; the tailer is left
     * after it. Reads the body in place, copying nothing.
     */
    public static long checksumAt(final ExcerptTailer tailer, final long index) {
        if (index < 0 || !tailer.moveToIndex(index)) {
            return -1;
        }
        final Crc32cOfMemory crc = new Crc32cOfMemory();
        final long[] checksum = {-1};
        final ExcerptHandler body = (bytes, offset, length, at) ->
                checksum[0] = crc.of(bytes.addressForRead(offset), length) & 0xFFFF_FFFFL;
        return tailer.read(body) ? checksum[0] : -1;
    }

    /**
     * @return the CRC-32C of the queue's excerpt at {@code index}, or -1 if there is none: of its stored body, as the
     * source's tailer reads it (with checksums, the excerpt's CRC32C field then its payload).
     */
    public static long checksumAt(final SpoolQueue queue, final long index) {
        try (ExcerptTailer tailer = queue.unwrap(QueueInternals.class).createBodyTailer()) {
            return checksumAt(tailer, index);
        }
    }
}
