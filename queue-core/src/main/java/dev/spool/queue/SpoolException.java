package dev.spool.queue;

/**
 * The one type Spool throws for misuse and damage: a queue cannot do what was asked because of an argument or
 * option (named with its value), the state of an object (closed, fenced, a claim open), or its files (a wrong
 * directory, a full cycle or disk). The message names the file, the position and the value involved. Subtypes
 * say more where a caller may act on it: {@link CorruptQueueException} (a file holds bytes no writer produced),
 * {@code RingFullException} (the ring buffer's back-pressure) and {@code ReplicationException} (the peers cannot
 * go on without a person). See the package documentation for what else a caller may see.
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
