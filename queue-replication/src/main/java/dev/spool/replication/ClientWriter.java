package dev.spool.replication;

import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.GrantFlyweight;
import dev.spool.replication.protocol.IdentifyFlyweight;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_IN_DOUBT;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_SEQUENCE;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_WRITER_FENCED;
import static dev.spool.replication.protocol.FrameDescriptor.IDENTIFY_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_IDENTIFY;

/**
 * A {@link PublishClient}'s writer identity: its id, the writer epoch the gateway granted it, whether the current
 * connection's GRANT has arrived, and the gateway's refusal that ended its publishing, if one did; and the words of
 * a failed publish. Allocates nothing but on the throw path. The client's thread only.
 */
final class ClientWriter {
    private final IdentifyFlyweight identify = new IdentifyFlyweight();
    private final GrantFlyweight grant = new GrantFlyweight();
    private final long clientId;
    /** The epoch granted: 0 until the first GRANT, or from a gateway that does not deduplicate. */
    private int epoch;
    private boolean granted;
    private PublishException refusal;

    ClientWriter(final long clientId) {
        this.clientId = clientId;
    }

    int epoch() {
        return epoch;
    }

    /** @return true once the connection's GRANT arrived: its publishes may be sent. */
    boolean granted() {
        return granted;
    }

    /** @return the gateway's refusal that ended this instance's publishing, or null. */
    PublishException refusal() {
        return refusal;
    }

    /** Queues IDENTIFY on a new connection: the epoch held and how far commits and sends went. */
    void identify(final Connection connection, final long committed, final long sent) {
        granted = false;
        final int at = connection.beginFrame(TYPE_IDENTIFY);
        identify.wrap(connection.send(), at).set(clientId, epoch, committed, sent);
        connection.endFrame(at, IDENTIFY_LENGTH);
    }

    /** The connection was lost: the next one waits for its own GRANT. */
    void disconnected() {
        granted = false;
    }

    /** Takes the GRANT the connection holds. */
    void onGrant(final Connection connection) throws FrameException {
        grant.wrap(connection.received(), connection.frameOffset()).check(connection.peer(), clientId);
        if (grant.epoch() != 0) {
            epoch = grant.epoch();
        }
        granted = true;
    }

    /**
     * @return the exception of the gateway's ERROR; a refusal of the writer (fenced, a re-send in doubt or not
     * matching, a sequence out of order) is kept: this instance's sequences cannot go on, and every later call fails.
     */
    PublishException onError(final int code, final String message) {
        final PublishException refused = new PublishException(message, 0, code, null);
        if (code == ERROR_WRITER_FENCED || code == ERROR_IN_DOUBT || code == ERROR_SEQUENCE) {
            refusal = refused;
        }
        return refused;
    }

    /**
     * @param sequence the failed call's message's sequence, 0 if it got none.
     * @param resends  true if the client sends it again when it reconnects.
     * @return the exception of a failed call, saying what became of its message.
     */
    PublishException failed(final long sequence, final boolean resends, final Exception cause) {
        final String what = sequence == 0 ? "the message got no sequence and was not sent"
                : "the message got sequence " + sequence + " of client id 0x" + Long.toHexString(clientId) + " epoch "
                + epoch + " and may have reached the gateway: it is in doubt"
                + (resends && refusal == null ? ", and is sent again with the others by the next call that"
                + " reconnects" : "");
        final int code = cause instanceof PublishException ? ((PublishException) cause).errorCode() : 0;
        return new PublishException(cause.getMessage() + "; " + what, sequence, code, cause);
    }
}
