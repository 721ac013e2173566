package dev.spool.replication;

import java.io.IOException;

/**
 * A writer's IDENTIFY or PUBLISH the gateway refuses: nothing of it is written, and the client is told why with an
 * ERROR of {@link #code()}, then closed. Thrown on the gateway's thread, built only on that path.
 */
final class WriterException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int code;

    WriterException(final int code, final String message) {
        super(message);
        this.code = code;
    }

    /** @return the ERROR code the client is sent ({@code FrameDescriptor.ERROR_*}). */
    int code() {
        return code;
    }
}
