package dev.spool.replication;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;

/**
 * What an operator or a failover hook needs to know and do about a replicated queue: its role, its term, how far a
 * replica acknowledged it, and the promotion of a replica. The queue's own API stays the one of a local queue;
 * these act on the queue's metadata, so they see what other processes recorded.
 */
public final class Failover {
    private Failover() {
    }

    /**
     * @param queue an open queue.
     * @return who may append to it, as persisted now.
     */
    public static ReplicationRole role(final SpoolQueue queue) {
        switch (QueueInternals.of(queue).role()) {
            case PRIMARY:
                return ReplicationRole.PRIMARY;
            case REPLICA:
                return ReplicationRole.REPLICA;
            case FENCED:
                return ReplicationRole.FENCED;
            default:
                throw new IllegalStateException("queue " + queue.directory() + " has a role this build does not know: "
                        + QueueInternals.of(queue).role());
        }
    }

    /**
     * @param queue an open queue.
     * @return the number of promotions in its history: 0 until a replica of it is first promoted.
     */
    public static long term(final SpoolQueue queue) {
        return QueueInternals.of(queue).term();
    }

    /**
     * @param queue an open primary queue.
     * @return the highest index a replica acknowledged, as its {@link ReplicationSource} (in any process) recorded
     * it, or -1 if none.
     */
    public static long lastAckedIndex(final SpoolQueue queue) {
        return QueueInternals.of(queue).lastAckedIndex();
    }

    /**
     * Makes a replica the primary of the next term: local appends continue from its last index, and the former
     * primary is fenced when it meets this term. Stop the {@link ReplicationSink} writing to it first, or use
     * {@link ReplicationSink#promote()}, which does both. Who decides to promote is outside Spool.
     *
     * @param queue an open replica queue.
     * @return the new term.
     * @throws IllegalStateException unless the queue is a {@link ReplicationRole#REPLICA}.
     */
    public static long promote(final SpoolQueue queue) {
        return QueueInternals.of(queue).promote();
    }
}
