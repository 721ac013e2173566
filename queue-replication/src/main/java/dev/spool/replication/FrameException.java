package dev.spool.replication;

import java.io.IOException;

/** A peer sent a frame that breaks the protocol: the connection closes, and nothing in the frame is applied. */
final class FrameException extends IOException {
    private static final long serialVersionUID = 1L;

    FrameException(final String message) {
        super(message);
    }
}
