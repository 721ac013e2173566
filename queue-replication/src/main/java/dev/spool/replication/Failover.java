package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;

import java.util.List;

/**
 * What an operator or a failover hook needs to know and do about a replicated queue: its role, its term, how far
 * its replicas acknowledged it, the choice of the replica to promote among N, and the promotion. The queue's own
 * API stays the one of a local queue; these act on the queue's metadata, so they see what other processes
 * recorded.
 * <p>
 * Failover with N replicas: stop the sinks (or let the primary's death stop their streams), pick the replica with
 * {@link #mostAdvanced}, {@link #promote} it (or {@link ReplicationSink#promote()}), start a source on it towards
 * the other replicas' sinks: they follow it, each resuming after its own last index, and take its term. A replica
 * that holds excerpts the new primary lacks (one not chosen by {@link #mostAdvanced}) is refused with an error
 * naming both indices, never merged: its sink reports a {@link ReplicaDivergedException} as its
 * {@link ReplicationSink#divergence()}. The old primary, if it returns, is fenced by the first sink that has seen the
 * new term.
 * <p>
 * With a coordinator that hands out terms (such as a ZooKeeper compare-and-set), the coordinator's term is the one
 * promoted to ({@link #promote(SpoolQueue, long)}), and a primary that learns of a later term steps down on its own
 * with {@link #demote}: it becomes a replica of the same queue and follows the new primary with a sink, which
 * takes the new primary's stream if it holds a prefix of its history. While such a primary cannot reach its
 * coordinator, {@link ReplicationSource#holdAcknowledgements()} keeps its writers from being told that a write is
 * acknowledged.
 */
public final class Failover {
    private Failover() {
    }

    /**
     * @param queue an open queue.
     * @return who may append to it, as persisted now.
     */
    public static ReplicationRole role(final SpoolQueue queue) {
        switch (queue.unwrap(QueueInternals.class).role()) {
            case PRIMARY:
                return ReplicationRole.PRIMARY;
            case REPLICA:
                return ReplicationRole.REPLICA;
            case FENCED:
                return ReplicationRole.FENCED;
            default:
                throw new SpoolException("queue " + queue.directory() + " has a role this build does not know: "
                        + queue.unwrap(QueueInternals.class).role());
        }
    }

    /**
     * @param queue an open queue.
     * @return the number of promotions in its history: 0 until a replica of it is first promoted.
     */
    public static long term(final SpoolQueue queue) {
        return queue.unwrap(QueueInternals.class).term();
    }

    /**
     * @param queue an open primary queue.
     * @return the highest index a replica acknowledged, as its {@link ReplicationSource} (in any process) recorded
     * it, or -1 if none.
     */
    public static long lastAckedIndex(final SpoolQueue queue) {
        return queue.unwrap(QueueInternals.class).lastAckedIndex();
    }

    /**
     * @param queue an open primary queue.
     * @return the highest index the ack quorum of its {@link ReplicationSource} (k of N replicas,
     * {@link ReplicationSource.Builder#ackQuorum}) acknowledged, as recorded in any process, or -1 if none.
     */
    public static long quorumAckedIndex(final SpoolQueue queue) {
        return queue.unwrap(QueueInternals.class).quorumAckedIndex();
    }

    /**
     * Chooses the replica to promote after the primary is lost: the one holding the highest index, so that
     * everything any replica acknowledged survives and the others can follow it without divergence (they hold a
     * prefix of what it holds). Ties go to the first in the list. Stop their sinks first, so that no index moves.
     *
     * @param replicas open replica queues of one primary.
     * @return the replica to promote.
     * @throws SpoolException if the list is empty, a queue is not a {@link ReplicationRole#REPLICA}, or
     *                                  the queues are replicas of different queues or terms.
     */
    public static SpoolQueue mostAdvanced(final List<SpoolQueue> replicas) {
        if (replicas.isEmpty()) {
            throw new SpoolException("no replica to choose from");
        }
        SpoolQueue best = null;
        for (final SpoolQueue replica : replicas) {
            if (role(replica) != ReplicationRole.REPLICA) {
                throw new SpoolException("queue " + replica.directory() + " is a " + role(replica)
                        + " queue, not a replica: only a replica is promoted");
            }
            if (best != null && !replica.queueId().equals(best.queueId())) {
                throw new SpoolException("queue " + replica.directory() + " has queue id " + replica.queueId()
                        + ", queue " + best.directory() + " has " + best.queueId() + ": not replicas of one primary");
            }
            if (best != null && term(replica) != term(best)) {
                throw new SpoolException("replica " + replica.directory() + " has term " + term(replica)
                        + ", replica " + best.directory() + " has term " + term(best) + ": a promotion happened already;"
                        + " promote none twice");
            }
            if (best == null || replica.lastIndex() > best.lastIndex()) {
                best = replica;
            }
        }
        return best;
    }

    /**
     * Makes a replica the primary of the next term: local appends continue from its last index, and the former
     * primary is fenced when it meets this term. Stop the {@link ReplicationSink} writing to it first, or use
     * {@link ReplicationSink#promote()}, which does both. Who decides to promote is outside Spool; a coordinator that
     * hands out terms uses {@link #promote(SpoolQueue, long)}.
     *
     * @param queue an open replica queue.
     * @return the new term.
     * @throws SpoolException unless the queue is a {@link ReplicationRole#REPLICA}.
     */
    public static long promote(final SpoolQueue queue) {
        return queue.unwrap(QueueInternals.class).promote();
    }

    /**
     * Makes a replica the primary of {@code term}, a term chosen by a coordinator (for example by a compare-and-set in
     * ZooKeeper, so that no two nodes promote into one term): local appends continue from its last index, and every
     * primary of an earlier term is fenced when its source meets a sink that has seen this term. Stop the
     * {@link ReplicationSink} writing to it first, or use {@link ReplicationSink#promote(long)}, which does both.
     *
     * @param queue an open replica queue.
     * @param term  the new term; must exceed the queue's {@link #term}.
     * @return {@code term}.
     * @throws SpoolException naming the queue and both terms unless the queue is a {@link ReplicationRole#REPLICA}
     *                        of an earlier term.
     */
    public static long promote(final SpoolQueue queue, final long term) {
        return queue.unwrap(QueueInternals.class).promote(term);
    }

    /**
     * Makes a primary that learnt of a later term (a coordinator says another node is primary now, or may be), or a
     * {@link ReplicationRole#FENCED} one, a {@link ReplicationRole#REPLICA}, so that it can follow the new primary.
     * It keeps every excerpt and its {@link #term}: the term rises when the new primary's source has checked the
     * replica's history and its sink takes the source's term, so that excerpts no replica acknowledged never pass for
     * a later term's in an election. The change is persisted in the queue's metadata, so every process
     * sees it: new appenders are refused, and appenders created before throw at their next write, as on a fenced
     * queue. Close the queue's {@link ReplicationSource} and publish gateway first. Then, once this queue instance
     * is closed, a {@link ReplicationSink} on its directory takes the new primary's stream if the queue holds a
     * prefix of the new primary's history, and resumes after its last index; if it holds excerpts the new primary
     * lacks (written here and never acknowledged), the new primary's source refuses it and the sink reports a
     * {@link ReplicaDivergedException} as its {@link ReplicationSink#divergence()}: never merged. A replica is left as
     * it is: demoting twice does nothing more.
     *
     * @param queue     an open queue.
     * @param laterTerm the new primary's term, or the term a new primary will get: appenders of the deposed primary
     *                  stay stopped until a primary at least this late is followed; must exceed the term of a primary
     *                  or fenced queue, and be at least the term that fenced a fenced one.
     * @return true if the queue changed, false if it was a replica already.
     * @throws SpoolException naming the queue and the terms if {@code laterTerm} is not later as said.
     */
    public static boolean demote(final SpoolQueue queue, final long laterTerm) {
        return queue.unwrap(QueueInternals.class).demote(laterTerm);
    }
}
