package dev.spool.failover;

import dev.spool.queue.SpoolException;

/**
 * Checks a node's two secrets when its builder concludes, so that a missing or short one is refused before anything
 * is created, not when the node first takes a role.
 */
final class NodeSecrets {
    /** The shortest secret replication and the gateway accept. */
    static final int MIN_LENGTH = 16;

    private NodeSecrets() {
    }

    /**
     * @param nodeId      the node's id, for the message.
     * @param replication the replication secret, or null.
     * @param client      the client secret, or null.
     * @param insecure    true if the builder said insecure().
     * @throws SpoolException naming what is missing, or which secret is short and how long it is.
     */
    static void check(final String nodeId, final byte[] replication, final byte[] client, final boolean insecure) {
        if (insecure ? replication != null || client != null : replication == null || client == null) {
            throw new SpoolException("node " + nodeId + ": give replicationSecret and clientSecret (or sharedSecret"
                    + " for both), or insecure() and neither; it has replicationSecret " + given(replication)
                    + ", clientSecret " + given(client) + ", insecure() " + insecure);
        }
        if (!insecure) {
            checkLength(nodeId, "replicationSecret", replication);
            checkLength(nodeId, "clientSecret", client);
        }
    }

    private static void checkLength(final String nodeId, final String name, final byte[] secret) {
        if (secret.length < MIN_LENGTH) {
            throw new SpoolException("node " + nodeId + ": its " + name + " of " + secret.length + " bytes is too"
                    + " short: use at least " + MIN_LENGTH + " (32 random bytes are best)");
        }
    }

    private static String given(final byte[] secret) {
        return secret == null ? "unset" : "set";
    }
}
