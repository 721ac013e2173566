package dev.spool.replication.protocol;

import java.io.IOException;

/**
 * A peer and this side do not share the secret, as far as this side can tell: the connection is dropped and, on a
 * source, retried with back-off (an operator may be rotating the secrets), logged once as a warning that says
 * whose secret is in question. Unlike a {@link dev.spool.replication.ReplicationException}, it never stops a service.
 */
public final class AuthenticationException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message who failed to prove the secret, and what to check. */
    public AuthenticationException(final String message) {
        super(message);
    }
}
