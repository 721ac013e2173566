package dev.spool.queue;

/**
 * Who may append to a queue, persisted in its metadata. Replication changes it: a replica is written only at the
 * indices of its primary, a promotion makes it the primary of a new term, and a primary that learns of a later term
 * is fenced.
 */
public enum QueueRole {
    /** Local appenders write to it; {@link SpoolQueue#createAppender()} works. */
    PRIMARY,
    /** Written only through {@link SpoolQueue#createReplicaAppender()}; local appends are refused. */
    REPLICA,
    /** A former primary that a later term took over from: every append is refused. */
    FENCED;

    static QueueRole of(final int role) {
        switch (role) {
            case MetadataDescriptor.ROLE_PRIMARY:
                return PRIMARY;
            case MetadataDescriptor.ROLE_REPLICA:
                return REPLICA;
            case MetadataDescriptor.ROLE_FENCED:
                return FENCED;
            default:
                throw new IllegalArgumentException("unknown queue role " + role);
        }
    }
}
