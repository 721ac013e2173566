package dev.spool.replication;

/**
 * Who may append to a queue, as replication sets it: see {@link Failover#role}. A replica is written only by a
 * {@link ReplicationSink}, at its primary's indices; {@link Failover#promote} makes it the primary of a new term; a
 * primary that meets a later term is fenced; {@link Failover#demote} makes a deposed or fenced primary a replica.
 */
public enum ReplicationRole {
    /** Local appenders write to it; a {@link ReplicationSource} may replicate it. */
    PRIMARY,
    /** Written only by a {@link ReplicationSink}; local appends are refused. */
    REPLICA,
    /** A former primary that a later term took over from: every append is refused, and it is not replicated. */
    FENCED
}
