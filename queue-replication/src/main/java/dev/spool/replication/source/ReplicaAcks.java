package dev.spool.replication.source;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.QueueInternals;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What each of a source's N replicas acknowledged, and the three quorum forms over them: the highest index
 * acknowledged by any one replica, by the ack quorum (k of N: the k-th highest acknowledged index, as in Apache
 * BookKeeper's ack quorum; replicas away count with what they acknowledged before they left) and by every replica
 * connected now (the lowest of theirs; -1 while none is). The source's pass writes, after each acknowledgement or
 * change of connection; "any" and "quorum" are recorded in the queue's metadata (raised, never lowered, and seen
 * by other processes), which rings the ack doorbells; waiters on any thread read. Each replica's own is persisted
 * too ({@link ReplicaPositions}), for retention to keep what it still needs. While {@link #held()}, the
 * acknowledgements are still counted and recorded, but no commit stage that waits for them is reached. Allocates
 * nothing.
 */
public final class ReplicaAcks {
    private final QueueInternals internals;
    private final ReplicaPositions positions;
    private final int quorum;
    /** Per replica, its highest acknowledged index, -1 until it acknowledged one; read by any thread. */
    private final AtomicLongArray acked;
    /** Per replica, whether it is connected: written by the source's pass only. */
    private final boolean[] connected;
    /** The source pass's scratch for the k-th highest. */
    private final long[] sorted;
    private volatile long byAll = -1;
    private volatile int connectedCount;
    /** While true, no acknowledged commit stage is reached: the primary may have been deposed. Any thread writes. */
    private volatile boolean held;

    /**
     * @param positions where each replica's acknowledged index is persisted.
     * @param replicas  N, the number of replicas.
     * @param quorum    k, the ack quorum, 1 to N.
     */
    ReplicaAcks(final QueueInternals internals, final ReplicaPositions positions, final int replicas,
                final int quorum) {
        if (quorum < 1 || quorum > replicas) {
            throw new SpoolException("ackQuorum=" + quorum + " with " + replicas + " replicas: it must be"
                    + " from 1 to " + replicas);
        }
        this.internals = internals;
        this.positions = positions;
        this.quorum = quorum;
        this.acked = new AtomicLongArray(replicas);
        this.connected = new boolean[replicas];
        this.sorted = new long[replicas];
        for (int i = 0; i < replicas; i++) {
            acked.set(i, -1);
        }
    }

    /** @return N. */
    public int replicas() {
        return connected.length;
    }

    /** @return k, the ack quorum. */
    public int quorum() {
        return quorum;
    }

    /**
     * A replica is past its handshake: it holds every index up to its last one (authenticated, and checked against
     * this queue's history), so that counts as acknowledged; a replica that came back with less (a lost disk)
     * counts with what it has now.
     */
    void connected(final int replica, final long sinkLast) {
        connected[replica] = true;
        acked.set(replica, sinkLast);
        positions.record(replica, sinkLast);
        publish();
    }

    /** A replica's connection ended; what it acknowledged still counts for the quorum and for "any". */
    void disconnected(final int replica) {
        if (connected[replica]) {
            connected[replica] = false;
            publish();
        }
    }

    /** @param index what the replica acknowledged: every index up to this one. */
    void acked(final int replica, final long index) {
        if (index > acked.get(replica)) {
            acked.lazySet(replica, index);
            positions.record(replica, index);
            publish();
        }
    }

    /** @return the highest index the replica acknowledged, -1 if none. */
    public long acked(final int replica) {
        return acked.get(replica);
    }

    /** @return the highest index acknowledged by any replica, as recorded in the queue's metadata; -1 if none. */
    public long byAny() {
        return internals.lastAckedIndex();
    }

    /** @return the highest index acknowledged by k replicas, as recorded in the queue's metadata; -1 if none. */
    public long byQuorum() {
        return internals.quorumAckedIndex();
    }

    /** @return the highest index every connected replica acknowledged; -1 while none is connected. */
    public long byAll() {
        return byAll;
    }

    /** @return how many replicas are connected now. */
    public int connectedCount() {
        return connectedCount;
    }

    /** Holds every acknowledged commit stage back, acknowledgements and their local-sync fallbacks alike. */
    public void hold() {
        held = true;
    }

    /** Ends {@link #hold()}, and rings the ack doorbells so that the waiters look again at once. */
    public void release() {
        held = false;
        internals.recordAcked(internals.lastAckedIndex());
    }

    /**
     * @return true while the acknowledgements are held: no stage that waits for replicas is reached, and none falls
     * back to a local sync. One volatile read, where a commit stage is checked.
     */
    public boolean held() {
        return held;
    }

    private void publish() {
        final int n = sorted.length;
        int up = 0;
        long lowestUp = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            final long index = acked.get(i);
            // insertion sort, descending: N is a handful
            int j = i;
            while (j > 0 && sorted[j - 1] < index) {
                sorted[j] = sorted[j - 1];
                j--;
            }
            sorted[j] = index;
            if (connected[i]) {
                up++;
                lowestUp = Math.min(lowestUp, index);
            }
        }
        connectedCount = up;
        byAll = up == 0 ? -1 : lowestUp;
        internals.recordQuorumAcked(sorted[quorum - 1]);
        // rings the ack doorbells, for every form
        internals.recordAcked(sorted[0]);
    }
}
