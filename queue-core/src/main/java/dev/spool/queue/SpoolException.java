package dev.spool.queue;

/**
 * A queue cannot do what was asked because of its files or its state: damage, a full cycle, a wrong directory.
 * The message names the file, the position and the value involved.
 */
public class SpoolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong, where. */
    public SpoolException(final String message) {
        super(message);
    }

    /**
     * @param message what went wrong, where.
     * @param cause   the underlying failure.
     */
    public SpoolException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
