package dev.spool.replication.protocol;

import java.io.IOException;
import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.CHALLENGE_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.CHALLENGE_MAC_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.CHALLENGE_NONCE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.CLIENT_HELLO_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.CLIENT_HELLO_NONCE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.NONCE_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.PROOF_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.PROOF_MAC_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_CHALLENGE;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_CLIENT_HELLO;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_PROOF;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;

/**
 * The authentication of a publish client and its gateway, both sides (the frames are in {@link FrameDescriptor}):
 * the client sends CLIENT_HELLO with its nonce; the gateway answers CHALLENGE with its nonce and its HMAC of both
 * frames; the client checks it and answers PROOF with its HMAC of all three; the gateway checks that. Then both
 * directions carry a MAC per frame under session keys from the secret and both nonces ({@link FrameMac}). Once per
 * connection: allocation is fine here.
 */
public final class ClientHandshake {
    /** The publish client and its gateway. */
    public static final Labels GATEWAY = new Labels("publish gateway", "publish client", Handshake.GATEWAY_LABEL,
            Handshake.CLIENT_LABEL, Handshake.GATEWAY_FRAMES_LABEL, Handshake.CLIENT_FRAMES_LABEL);
    /** A repairer fetching excerpts from a replica's sink ({@code QueueRepair}). */
    public static final Labels REPAIR = new Labels("replica's sink", "repairer", Handshake.REPAIR_SINK_LABEL,
            Handshake.REPAIRER_LABEL, Handshake.REPAIR_SINK_FRAMES_LABEL, Handshake.REPAIRER_FRAMES_LABEL);

    private ClientHandshake() {
    }

    /**
     * The labels of one kind of client and server: each kind has its own, so that no frame or MAC of one kind's
     * session passes in another's.
     *
     * @param server       names the answering side in errors.
     * @param client       names the opening side in errors.
     * @param serverLabel  the label of the CHALLENGE's MAC.
     * @param clientLabel  the label of the PROOF's MAC.
     * @param serverFrames the label of the server's session key.
     * @param clientFrames the label of the client's session key.
     */
    public record Labels(String server, String client, byte[] serverLabel, byte[] clientLabel, byte[] serverFrames,
                         byte[] clientFrames) {
    }

    /**
     * Client: queues CLIENT_HELLO.
     *
     * @return the frame sent, for the MACs.
     */
    public static byte[] sendHello(final Connection connection, final byte[] clientNonce) {
        final int offset = connection.beginFrame(TYPE_CLIENT_HELLO, CLIENT_HELLO_LENGTH);
        connection.send().put(offset + CLIENT_HELLO_NONCE_OFFSET, clientNonce, 0, NONCE_LENGTH);
        connection.endFrame(offset, CLIENT_HELLO_LENGTH);
        return Handshake.copy(connection.send(), offset, CLIENT_HELLO_LENGTH);
    }

    /**
     * Gateway: checks the CLIENT_HELLO the connection holds and queues the CHALLENGE.
     *
     * @return the two frames so far, CLIENT_HELLO then CHALLENGE, for {@link #checkProof}.
     * @throws FrameException if the frame is not a CLIENT_HELLO.
     */
    public static byte[][] challenge(final Connection connection, final byte[] secret) throws FrameException {
        return challenge(connection, secret, GATEWAY);
    }

    /**
     * Server: checks the CLIENT_HELLO the connection holds and queues the CHALLENGE under {@code labels}.
     *
     * @return the two frames so far, CLIENT_HELLO then CHALLENGE, for {@link #checkProof}.
     * @throws FrameException if the frame is not a CLIENT_HELLO.
     */
    public static byte[][] challenge(final Connection connection, final byte[] secret, final Labels labels)
            throws FrameException {
        expect(connection, TYPE_CLIENT_HELLO);
        final byte[] hello = Handshake.copy(connection.received(), connection.frameOffset(), CLIENT_HELLO_LENGTH);
        final int offset = connection.beginFrame(TYPE_CHALLENGE, CHALLENGE_LENGTH);
        connection.send().put(offset + CHALLENGE_NONCE_OFFSET, Handshake.nonce(), 0, NONCE_LENGTH);
        final byte[] mac = Handshake.mac(secret, labels.serverLabel(), hello,
                Handshake.copy(connection.send(), offset, CHALLENGE_MAC_OFFSET));
        connection.send().put(offset + CHALLENGE_MAC_OFFSET, mac, 0, MAC_LENGTH);
        connection.endFrame(offset, CHALLENGE_LENGTH);
        return new byte[][] {hello, Handshake.copy(connection.send(), offset, CHALLENGE_LENGTH)};
    }

    /**
     * Gateway: checks the client's PROOF; if it is right, authenticates the connection's frames.
     *
     * @param sent what {@link #challenge} returned.
     * @throws FrameException          if the frame is not a PROOF.
     * @throws AuthenticationException if the client did not prove the secret.
     */
    public static void checkProof(final Connection connection, final byte[] secret, final byte[][] sent) throws IOException {
        checkProof(connection, secret, sent, GATEWAY);
    }

    /**
     * Server: checks the client's PROOF under {@code labels}; if it is right, authenticates the connection's frames
     * (when there is a secret).
     *
     * @param sent what {@link #challenge} returned.
     * @throws FrameException          if the frame is not a PROOF.
     * @throws AuthenticationException if the client did not prove the secret.
     */
    public static void checkProof(final Connection connection, final byte[] secret, final byte[][] sent,
                                  final Labels labels) throws IOException {
        expect(connection, TYPE_PROOF);
        final byte[] expected = Handshake.mac(secret, labels.clientLabel(), sent[0], sent[1],
                Handshake.copy(connection.received(), connection.frameOffset(), PROOF_MAC_OFFSET));
        final byte[] received = Handshake.copy(connection.received(), connection.frameOffset() + PROOF_MAC_OFFSET,
                MAC_LENGTH);
        if (!Handshake.verify(secret, expected, received)) {
            throw new AuthenticationException("the " + labels.client() + " at " + connection.peer() + " did not prove"
                    + " the shared secret: its PROOF's MAC is wrong (its secret differs from the " + labels.server()
                    + "'s)");
        }
        if (secret != null) {
            final byte[] clientNonce = nonce(sent[0], CLIENT_HELLO_NONCE_OFFSET);
            final byte[] gatewayNonce = nonce(sent[1], CHALLENGE_NONCE_OFFSET);
            connection.authenticate(Handshake.sessionKey(secret, labels.serverFrames(), clientNonce, gatewayNonce),
                    Handshake.sessionKey(secret, labels.clientFrames(), clientNonce, gatewayNonce));
        }
    }

    /**
     * Client: checks the CHALLENGE the connection holds, queues the PROOF and authenticates the connection's frames.
     *
     * @param hello what {@link #sendHello} returned.
     * @throws FrameException          if the frame is not a CHALLENGE.
     * @throws AuthenticationException if the gateway did not prove the secret.
     */
    public static void prove(final Connection connection, final byte[] secret, final byte[] hello) throws IOException {
        prove(connection, secret, hello, GATEWAY);
    }

    /**
     * Client: checks the CHALLENGE the connection holds under {@code labels}, queues the PROOF and authenticates the
     * connection's frames (when there is a secret; an insecure session carries no MACs).
     *
     * @param hello what {@link #sendHello} returned.
     * @throws FrameException          if the frame is not a CHALLENGE.
     * @throws AuthenticationException if the server did not prove the secret.
     */
    public static void prove(final Connection connection, final byte[] secret, final byte[] hello, final Labels labels)
            throws IOException {
        expect(connection, TYPE_CHALLENGE);
        final ByteBuffer received = connection.received();
        final byte[] challenge = Handshake.copy(received, connection.frameOffset(), CHALLENGE_LENGTH);
        final byte[] expected = Handshake.mac(secret, labels.serverLabel(), hello,
                Handshake.copy(received, connection.frameOffset(), CHALLENGE_MAC_OFFSET));
        if (!Handshake.verify(secret, expected, Handshake.copy(received, connection.frameOffset()
                + CHALLENGE_MAC_OFFSET, MAC_LENGTH))) {
            throw new AuthenticationException("the " + labels.server() + " at " + connection.peer() + " did not prove"
                    + " the shared secret: its CHALLENGE's MAC is wrong (its secret differs from this "
                    + labels.client() + "'s)");
        }
        final int offset = connection.beginFrame(TYPE_PROOF, PROOF_LENGTH);
        final byte[] mac = Handshake.mac(secret, labels.clientLabel(), hello, challenge,
                Handshake.copy(connection.send(), offset, PROOF_MAC_OFFSET));
        connection.send().put(offset + PROOF_MAC_OFFSET, mac, 0, MAC_LENGTH);
        connection.endFrame(offset, PROOF_LENGTH);
        if (secret != null) {
            final byte[] clientNonce = nonce(hello, CLIENT_HELLO_NONCE_OFFSET);
            final byte[] gatewayNonce = nonce(challenge, CHALLENGE_NONCE_OFFSET);
            connection.authenticate(Handshake.sessionKey(secret, labels.clientFrames(), clientNonce, gatewayNonce),
                    Handshake.sessionKey(secret, labels.serverFrames(), clientNonce, gatewayNonce));
        }
    }

    private static byte[] nonce(final byte[] frame, final int offset) {
        final byte[] nonce = new byte[NONCE_LENGTH];
        System.arraycopy(frame, offset, nonce, 0, NONCE_LENGTH);
        return nonce;
    }

    private static void expect(final Connection connection, final int type) throws FrameException {
        if (connection.frameType() != type) {
            throw new FrameException(typeName(connection.frameType()) + " frame from " + connection.peer() + " where "
                    + typeName(type) + " was expected");
        }
    }
}
