package dev.spool.replication;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.replication.agent.IdleBackoff;
import dev.spool.replication.source.ReplicaAcks;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits until a write reaches its {@link CommitStage}. The replicas' acknowledgements are read from the queue's
 * metadata, where the {@link ReplicationSource} records them (by any replica, by its ack quorum), or from the
 * source (by every replica connected), so nothing is exchanged between threads but those volatile longs. By default the waiter spins and yields briefly, then parks, and the source unparks it when it
 * records an acknowledgement
 * (through the queue's {@link QueueInternals#ackDoorbell ack doorbell}); a park lasts at most {@value #MAX_PARK_NS} ns,
 * which bounds the wait for a source in another process. With an idle strategy it polls instead, e.g. Agrona's
 * {@code BusySpinIdleStrategy} for the lowest latency at the cost of a core. A waiter of an
 * {@link ReplicationSource.Builder#invoked() invoked} source runs it while it waits, calling
 * {@link ReplicationSource#doWork()} and spinning (or idling with its strategy) between calls that find nothing to
 * do. Allocates nothing per wait.
 * One instance belongs to one thread, like the appender it may sync with; {@link #close() close} it when done.
 */
public final class CommitWaiter implements AutoCloseable {
    /** The longest park of a waiter that sleeps until the source unparks it. */
    static final long MAX_PARK_NS = 1_000_000;
    /** Checks that spin before the waiter yields. */
    static final int IDLE_SPINS = 100;
    /** Checks that yield before the waiter parks. */
    static final int IDLE_YIELDS = 100;

    private final SpoolQueue queue;
    private final QueueInternals internals;
    private final ReplicationSource source;
    private final ReplicaAcks acks;
    private final ExcerptAppender appender;
    private final IdleStrategy polling;
    private final Doorbell acked;
    private final long maxParkNs;
    /** The source's clock: a wait's deadline follows it. */
    private final NanoClock clock;
    /** An ack due within microseconds is cheaper to wait for than to be woken by. */
    private final IdleBackoff idle;
    private volatile Thread waiting;
    /** Parks so far: tests check the unparking path was taken. */
    long parks;

    /**
     * @param polling    how to poll, or null to spin, yield, then park until an acknowledgement unparks this waiter.
     * @param maxParkNs  the longest park, without a polling strategy.
     * @param idleSpins  checks that spin before the waiter yields, without a polling strategy.
     * @param idleYields checks that yield before it parks, without a polling strategy.
     */
    CommitWaiter(final SpoolQueue queue, final ReplicationSource source, final ExcerptAppender appender,
                 final IdleStrategy polling, final long maxParkNs, final int idleSpins, final int idleYields) {

        this.queue = queue;
        this.internals = this.queue.unwrap(QueueInternals.class);
        this.source = source;
        this.acks = source.acks();
        this.clock = source.nanoClock();
        this.appender = appender;
        this.polling = polling;
        this.maxParkNs = maxParkNs;
        this.acked = polling == null ? internals.ackDoorbell(this::wake) : null;
        this.idle = acked == null ? null : new IdleBackoff(acked, idleSpins, idleYields);
    }

    /**
     * @param index the index an append returned.
     * @param stage the stage to check.
     * @return true if {@code index} has reached {@code stage} now; never waits, never syncs.
     */
    public boolean isCommitted(final long index, final CommitStage stage) {
        return stage.isReached(index, acks, queue.lastSyncedIndex());
    }

    /**
     * Waits until {@code index} reaches {@code stage}. {@link CommitStage#SYNCED}, and an {@code _OR_SYNCED} stage
     * while its acknowledgement cannot come (no replica connected; for {@link CommitStage#ACKED_BY_QUORUM_OR_SYNCED},
     * fewer than the ack quorum), sync through this waiter's appender (or wait for another writer's sync if it has
     * none). While the source's acknowledgements are {@link ReplicationSource#holdAcknowledgements() held}, a stage
     * from {@link CommitStage#ACKED} on is not reached and does not fall back to a sync: the wait times out unless
     * they are released in time.
     *
     * @param index   the index an append returned.
     * @param stage   what "committed" means for this write.
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true once the stage is reached, false on timeout.
     * @throws InterruptedException if the thread is interrupted while waiting.
     * @throws ReplicationException if the stage needs acknowledgements and none can come ({@link
     *                              ReplicationSource#failure()}: the source stopped for good, or every sink refuses
     *                              its proof of the shared secret), or needs the ack quorum and too few replicas
     *                              are still replicated to without such refusals.
     */
    public boolean await(final long index, final CommitStage stage, final long timeout, final TimeUnit unit)
            throws InterruptedException {
        if (isCommitted(index, stage)) {
            return true;
        }
        final long deadline = clock.nanoTime() + unit.toNanos(timeout);
        if (stage == CommitStage.SYNCED) {
            return sync(index, deadline);
        }
        if (polling != null) {
            polling.reset();
        } else {
            waiting = Thread.currentThread();
            idle.reset();
        }
        while (true) {
            if (isCommitted(index, stage)) {
                return true;
            }
            if (stage.syncsNow(acks)) {
                return sync(index, deadline);
            }
            final Throwable failure = source.failure();
            if (failure != null) {
                throw new ReplicationException("index " + IndexFormat.format(index, queue.rollCycle()) + " of "
                        + queue.directory() + " will not be acknowledged:"
                        + " no replica can acknowledge it (" + failure.getMessage() + ")");
            }
            final int refused = source.refusedReplicas();
            if (stage == CommitStage.ACKED_BY_QUORUM && source.runningReplicas() - refused < source.ackQuorum()) {
                throw new ReplicationException("index " + IndexFormat.format(index, queue.rollCycle()) + " of "
                        + queue.directory() + " will not be acknowledged"
                        + " by " + source.ackQuorum() + " replicas: replication to " + (source.replicas()
                        - source.runningReplicas()) + " of the " + source.replicas() + " stopped for good"
                        + (refused == 0 ? "" : ", and " + refused + " refuse this source's proof of the shared secret"));
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while awaiting " + stage + " of index "
                        + IndexFormat.format(index, queue.rollCycle()) + " in "
                        + queue.directory());
            }
            final long left = deadline - clock.nanoTime();
            if (left <= 0) {
                return false;
            }
            if (source.isInvoked()) {
                // the waiter streams: it sends the write and reads the acknowledgement itself
                if (source.doWork() == 0) {
                    if (polling != null) {
                        polling.idle();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            } else if (polling != null) {
                polling.idle();
            } else if (idle.idle()) {
                parks++;
                LockSupport.parkNanos(this, Math.min(left, maxParkNs));
                idle.afterSleep();
            }
        }
    }

    /** Stops the source's acknowledgements from ringing for this waiter. */
    @Override
    public void close() {
        if (acked != null) {
            acked.close();
        }
    }

    private void wake() {
        final Thread thread = waiting;
        if (thread != null) {
            LockSupport.unpark(thread);
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
        return queue.awaitSynced(index, Math.max(0, deadline - clock.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
