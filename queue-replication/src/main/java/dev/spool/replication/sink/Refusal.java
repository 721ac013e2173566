package dev.spool.replication.sink;

import dev.spool.replication.protocol.FrameDescriptor;
import dev.spool.replication.protocol.FrameException;

/**
 * The sink refuses its source: the handshake or a write found a reason to stop the stream. The sink logs the
 * message, sends it in an ERROR frame with the code, and closes the connection. Unlike a {@link FrameException},
 * the peer kept to the protocol.
 */
final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;
    private final int code;

    /**
     * @param code    the ERROR frame's code, one of the {@code ERROR_} values of {@link FrameDescriptor}.
     * @param message why, with the indices, terms or settings involved.
     */
    Refusal(final int code, final String message) {
        super(message);
        this.code = code;
    }

    /** @return the ERROR frame's code. */
    int code() {
        return code;
    }
}
