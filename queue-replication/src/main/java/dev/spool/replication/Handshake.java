package dev.spool.replication;

import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.zip.CRC32C;

import static dev.spool.replication.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.FrameDescriptor.NONCE_LENGTH;

/**
 * The handshake's cryptography and history check, run once per connection (allocation is fine here).
 * Authentication is an HMAC-SHA256 challenge-response in both directions: each side sends a fresh random nonce and
 * proves it knows the shared secret by the HMAC of both nonces under its role's label, so the secret never crosses
 * the wire and a recorded handshake cannot be replayed.
 */
final class Handshake {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ALGORITHM = "HmacSHA256";
    static final byte[] SINK_LABEL = "spool-sink".getBytes(StandardCharsets.US_ASCII);
    static final byte[] SOURCE_LABEL = "spool-source".getBytes(StandardCharsets.US_ASCII);

    private Handshake() {
    }

    /** Fewest bytes a shared secret may have: 128 bits. */
    static final int MIN_SECRET_LENGTH = 16;

    /**
     * @param secret a shared secret from a builder.
     * @return a copy of it, which the caller's later changes to its array cannot reach.
     * @throws IllegalArgumentException if it is shorter than {@value #MIN_SECRET_LENGTH} bytes.
     */
    static byte[] checkedSecret(final byte[] secret) {
        if (secret.length < MIN_SECRET_LENGTH) {
            throw new IllegalArgumentException("shared secret of " + secret.length + " bytes: use at least "
                    + MIN_SECRET_LENGTH);
        }
        return secret.clone();
    }

    /**
     * @param heartbeatInterval a heartbeat interval from a builder.
     * @return it.
     * @throws IllegalArgumentException unless it is positive.
     */
    static Duration checkedHeartbeatInterval(final Duration heartbeatInterval) {
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
            throw new IllegalArgumentException("heartbeatInterval=" + heartbeatInterval + " must be positive");
        }
        return heartbeatInterval;
    }

    static byte[] nonce() {
        final byte[] nonce = new byte[NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** @return HMAC-SHA256 of label, first and second under {@code secret}, or all zeros without a secret. */
    static byte[] mac(final byte[] secret, final byte[] label, final byte[] first, final byte[] second) {
        if (secret == null) {
            return new byte[MAC_LENGTH];
        }
        try {
            final Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret, ALGORITHM));
            mac.update(label);
            mac.update(first);
            mac.update(second);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available in this JVM", e);
        }
    }

    /** @return true if {@code received} is the expected MAC; constant time. Without a secret, anything passes. */
    static boolean verify(final byte[] secret, final byte[] expected, final byte[] received) {
        return secret == null || MessageDigest.isEqual(expected, received);
    }

    /**
     * @return the CRC-32C of the payload at {@code index}, or -1 if the queue has no excerpt there; the tailer is left
     * after it.
     */
    static long checksumAt(final ExcerptTailer tailer, final long index) {
        if (index < 0 || !tailer.moveToIndex(index)) {
            return -1;
        }
        final CRC32C crc = new CRC32C();
        final ExcerptHandler checksum = (bytes, offset, length, at) -> {
            final byte[] payload = new byte[length];
            bytes.read(offset, payload, 0, length);
            crc.update(payload, 0, length);
        };
        return tailer.read(checksum) ? crc.getValue() : -1;
    }

    /**
     * @return the CRC-32C of the queue's excerpt at {@code index}, or -1 if there is none: of its stored body, as the
     * source's tailer reads it (with checksums, the excerpt's CRC32C field then its payload).
     */
    static long checksumAt(final SpoolQueue queue, final long index) {
        try (ExcerptTailer tailer = QueueInternals.of(queue).createBodyTailer()) {
            return checksumAt(tailer, index);
        }
    }
}
