package dev.spool.queue;

import org.agrona.concurrent.Agent;

import java.util.concurrent.TimeUnit;

/**
 * Group commit: writers in any thread ask for "my index on disk" and wait, parked, while one syncer covers all of
 * them with one msync of the queue's tail. The syncer is an Agrona {@link Agent}: run it on its own daemon thread
 * ({@link SpoolQueue#startGroupCommit()}), or create it ({@link SpoolQueue#createGroupCommit()}) and call
 * {@link #doWork()} from a thread or event loop of your own, or run it on an {@code AgentRunner} of your own, alone
 * or in a {@code CompositeAgent} with other duties. The thread that starts it ({@link #onStart()}) is the one a
 * new waiter wakes up; its idle strategy should park, not sleep, for that wake-up to count.
 * <pre>{@code
 * long index = appender.append(order);
 * if (!groupCommit.awaitDurable(index, 5, TimeUnit.MILLISECONDS)) { ... not on disk yet ... }
 * }</pre>
 * Waiting never spins: a waiter parks and the syncer unparks it after the msync that covers its index. Waiters in
 * other processes can use {@link SpoolQueue#awaitSynced}, which polls the last synced index in the metadata.
 */
public interface GroupCommit extends Agent, AutoCloseable {
    /**
     * Asks for {@code index} to be synced and waits until it is.
     *
     * @param index   an index this or another writer appended.
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true once {@code index} is on disk, false on timeout.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    boolean awaitDurable(long index, long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * One round of the syncer: if a waiter asked for an index not yet on disk, msync the queue's tail once. It waits
     * for the msync and nothing else, and allocates nothing.
     *
     * @return 1 if it synced, 0 if there was nothing to do.
     */
    @Override
    int doWork();

    /** Remembers the calling thread as the one to wake when a writer starts waiting. */
    @Override
    void onStart();

    /** Releases the syncer's appender: called by the runner or invoker that ran this group commit. */
    @Override
    void onClose();

    /** @return how many msyncs this group commit has done: fewer than the writers it served when it groups. */
    long syncCount();

    /** Stops the syncer thread of {@link SpoolQueue#startGroupCommit()}, if any, and releases the syncer's appender. */
    @Override
    void close();
}
