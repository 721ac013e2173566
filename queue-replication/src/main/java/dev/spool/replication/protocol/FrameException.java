package dev.spool.replication.protocol;

import java.io.IOException;

/** A peer sent a frame that breaks the protocol: the connection closes, and nothing in the frame is applied. */
public final class FrameException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message the peer, the frame, the field and its value. */
    public FrameException(final String message) {
        super(message);
    }
}
