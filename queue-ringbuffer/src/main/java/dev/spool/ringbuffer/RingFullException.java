package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;

/**
 * A producer with the {@link BackPressure#throwException()} policy, or a bounded wait that timed out under
 * {@link BackPressure#await}, found no room in the ring: the record was not written.
 */
public final class RingFullException extends SpoolException {
    private static final long serialVersionUID = 1L;

    /** @param message the ring, the claim and how full the ring was. */
    public RingFullException(final String message) {
        super(message);
    }
}
