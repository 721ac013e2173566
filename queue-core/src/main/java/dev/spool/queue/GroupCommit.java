package dev.spool.queue;

import java.util.concurrent.TimeUnit;

/**
 * Group commit: writers in any thread ask for "my index on disk" and wait, parked, while one syncer covers all of
 * them with one msync of the queue's tail. Run it on its own daemon thread ({@link SpoolQueue#startGroupCommit()})
 * or call {@link #execute()} from a thread or event loop of your own ({@link SpoolQueue#createGroupCommit()}).
 * <pre>{@code
 * long index = appender.append(order);
 * if (!groupCommit.awaitDurable(index, 5, TimeUnit.MILLISECONDS)) { ... not on disk yet ... }
 * }</pre>
 * Waiting never spins: a waiter parks and the syncer unparks it after the msync that covers its index. Waiters in
 * other processes can use {@link SpoolQueue#awaitSynced}, which polls the last synced index in the metadata.
 */
public interface GroupCommit extends AutoCloseable {
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
     * One round of the syncer: if a waiter asked for an index not yet on disk, msync the queue's tail once.
     *
     * @return 1 if it synced, 0 if there was nothing to do.
     */
    int execute();

    /** @return how many msyncs this group commit has done: fewer than the writers it served when it groups. */
    long syncCount();

    /** Stops the syncer thread, if any, and releases the syncer's appender. */
    @Override
    void close();
}
