package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.PauseStrategy;
import dev.spool.queue.SpoolQueue;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Waits until a write reaches its {@link CommitStage}. The replica's acknowledgements are read from the queue's
 * metadata, where the {@link ReplicationSource} records them, so nothing is exchanged between threads but that
 * one volatile long. Waits with the given pause strategy: the default spins and yields briefly, then parks, so a
 * waiter never burns a core unless it asked for {@link PauseStrategy#busySpin()}. Allocates nothing.
 * One instance belongs to one thread, like the appender it may sync with.
 */
public final class CommitWaiter {
    private final SpoolQueue queue;
    private final ReplicationSource source;
    private final ExcerptAppender appender;
    private final PauseStrategy pause;

    CommitWaiter(final SpoolQueue queue, final ReplicationSource source, final ExcerptAppender appender,
                 final PauseStrategy pause) {
        this.queue = queue;
        this.source = source;
        this.appender = appender;
        this.pause = Objects.requireNonNull(pause, "pause");
    }

    /**
     * @param index the index an append returned.
     * @param stage the stage to check.
     * @return true if {@code index} has reached {@code stage} now; never waits, never syncs.
     */
    public boolean isCommitted(final long index, final CommitStage stage) {
        switch (stage) {
            case PUBLISHED:
            case WRITTEN:
                return index >= 0;
            case SYNCED:
                return queue.lastSyncedIndex() >= index;
            case ACKED:
                return queue.lastAckedIndex() >= index;
            default:
                return queue.lastAckedIndex() >= index || queue.lastSyncedIndex() >= index;
        }
    }

    /**
     * Waits until {@code index} reaches {@code stage}. {@link CommitStage#SYNCED}, and
     * {@link CommitStage#ACKED_OR_SYNCED} while the replica is not connected, sync through this waiter's appender
     * (or wait for another writer's sync if it has none).
     *
     * @param index   the index an append returned.
     * @param stage   what "committed" means for this write.
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true once the stage is reached, false on timeout.
     * @throws InterruptedException if the thread is interrupted while waiting.
     * @throws ReplicationException if the stage needs the replica and the source stopped for good.
     */
    public boolean await(final long index, final CommitStage stage, final long timeout, final TimeUnit unit)
            throws InterruptedException {
        if (isCommitted(index, stage)) {
            return true;
        }
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (stage == CommitStage.SYNCED) {
            return sync(index, deadline);
        }
        pause.reset();
        while (true) {
            if (isCommitted(index, stage)) {
                return true;
            }
            if (stage == CommitStage.ACKED_OR_SYNCED && !source.isConnected()) {
                return sync(index, deadline);
            }
            final Throwable failure = source.failure();
            if (failure != null && stage == CommitStage.ACKED) {
                throw new ReplicationException("index " + index + " of " + queue.directory() + " will not be acknowledged:"
                        + " the replication source stopped: " + failure.getMessage());
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while awaiting " + stage + " of index " + index + " in "
                        + queue.directory());
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            pause.pause();
        }
    }

    private boolean sync(final long index, final long deadline) throws InterruptedException {
        if (queue.lastSyncedIndex() >= index) {
            return true;
        }
        if (appender != null) {
            appender.sync();
            return queue.lastSyncedIndex() >= index;
        }
        return queue.awaitSynced(index, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
