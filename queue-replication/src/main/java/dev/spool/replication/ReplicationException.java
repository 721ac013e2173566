package dev.spool.replication;

import dev.spool.queue.SpoolException;

/**
 * Replication cannot go on without a person deciding: the peers hold different queues, their histories diverge,
 * or this primary was fenced by a later term, as said by a peer that proved the shared secret (a failed
 * authentication is retried, never this). The message says which, with the indices.
 */
public final class ReplicationException extends SpoolException {
    private static final long serialVersionUID = 1L;

    /** @param message what does not match, with the indices and terms involved. */
    public ReplicationException(final String message) {
        super(message);
    }
}
