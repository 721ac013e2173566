package dev.spool.queue;

import java.nio.file.Path;

/**
 * Told when a queue instance opens, closes and deletes cycle files; registered with
 * {@link SpoolQueueBuilder#cycleListener(CycleListener)}. Every method does nothing by default.
 * <p>
 * {@link #onAcquired} and {@link #onReleased} are called on the thread that opened or released the file, possibly
 * an appender's in the middle of an append, with the instance's cache of open files locked and perhaps the queue's
 * cross-process write lock held: return quickly, and do not call back into the queue. {@link #onDeleted} is called
 * after retention has released every lock, and may do anything.
 */
public interface CycleListener {
    /** Listens to nothing. */
    CycleListener NONE = new CycleListener() {
    };

    /**
     * This queue instance opened and mapped the file of a cycle, for its first appender, tailer or pretoucher
     * there; a pretoucher opens the next cycle's file before its roll.
     *
     * @param cycle the cycle.
     * @param file  its file.
     */
    default void onAcquired(long cycle, Path file) {
    }

    /**
     * The last user in this queue instance let go of the file of a cycle, or the queue closed: it is unmapped.
     *
     * @param cycle the cycle.
     * @param file  its file.
     */
    default void onReleased(long cycle, Path file) {
    }

    /**
     * Retention in this queue instance deleted the file of a cycle.
     *
     * @param cycle the cycle.
     * @param file  its file, which no longer exists.
     */
    default void onDeleted(long cycle, Path file) {
    }
}
