package dev.spool.queue.internal;

import dev.spool.queue.SpoolException;
import dev.spool.queue.format.MetadataDescriptor;

/**
 * Who may append to a queue, persisted in its metadata. Replication changes it: a replica is written only at the
 * indices of its primary, a promotion makes it the primary of a new term, and a primary that learns of a later term
 * is fenced, or demoted to a replica.
 */
public enum QueueRole {
    /** Local appenders write to it; {@code SpoolQueue.createAppender()} works. */
    PRIMARY,
    /** Written only through {@link QueueInternals#createIndexedAppender()}; local appends are refused. */
    REPLICA,
    /** A former primary that a later term took over from: every append is refused. */
    FENCED;

    /**
     * @param role a role as {@link MetadataDescriptor#ROLE_OFFSET} holds it.
     * @return the role.
     * @throws SpoolException if there is no such role.
     */
    public static QueueRole of(final int role) {
        switch (role) {
            case MetadataDescriptor.ROLE_PRIMARY:
                return PRIMARY;
            case MetadataDescriptor.ROLE_REPLICA:
                return REPLICA;
            case MetadataDescriptor.ROLE_FENCED:
                return FENCED;
            default:
                throw new SpoolException("unknown queue role " + role);
        }
    }
}
