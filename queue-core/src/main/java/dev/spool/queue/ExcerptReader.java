package dev.spool.queue;

import dev.spool.queue.typed.MethodReader;
import dev.spool.queue.typed.TypedMessages;

import java.util.concurrent.TimeUnit;

/**
 * What every forward reader of a queue's excerpts does, whether it reads the queue's files
 * ({@link ExcerptTailer}) or the ring buffer in front of them ({@code AsyncTailer}): read the next excerpt, wait
 * for one without spinning, move to an index or to either end, and, named, persist how far it got. Code written
 * against this type reads through either. One reader belongs to one thread at a time.
 */
public interface ExcerptReader extends AutoCloseable {
    /**
     * Reads the next excerpt, zero-copy, and moves past it in the tailer's direction; see {@link ExcerptHandler} for
     * the byte order.
     *
     * @param handler receives the excerpt.
     * @return false if there was nothing to read.
     */
    boolean read(ExcerptHandler handler);

    /**
     * Waits, with the tailer's idle strategy ({@code SpoolQueueBuilder.idleStrategy}), until an excerpt can be read or the timeout passes.
     *
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true if {@link #read(ExcerptHandler)} will now return an excerpt.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    boolean await(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Positions the tailer so that the next read returns the excerpt at {@code index}.
     *
     * @param index an index.
     * @return false, leaving the position unchanged, if no excerpt has that index.
     */
    boolean moveToIndex(long index);

    /**
     * Moves before the first excerpt of the queue.
     *
     * @return this reader.
     */
    ExcerptReader toStart();

    /**
     * Moves after the last excerpt.
     *
     * @return this reader.
     */
    ExcerptReader toEnd();

    /** @return the name this reader's position persists under, or null. */
    String name();

    /**
     * Returns a reader of typed messages whose {@link MethodReader#readOne()} reads the next excerpt through this
     * tailer and calls the matching method of {@code target}, reusing one instance per message parameter.
     *
     * @param target implements exactly one interface annotated {@link dev.spool.queue.typed.Events}.
     * @return the reader the {@code spool-processor} generated for that interface, over this tailer.
     * @throws SpoolException if {@code target} implements no {@code @Events} interface, or several.
     */
    default MethodReader methodReader(final Object target) {
        return TypedMessages.reader(this::read, target);
    }

    /**
     * @param events the interface to read, one of several {@code @Events} interfaces {@code target} implements.
     * @param target its implementation.
     * @param <T>    the interface.
     * @return the reader the {@code spool-processor} generated for {@code events}, over this tailer.
     */
    default <T> MethodReader methodReader(final Class<T> events, final T target) {
        return TypedMessages.reader(this::read, events, target);
    }

    /**
     * Persists {@code index} as the last excerpt processed under this tailer's name: a tailer of that name created
     * later, in this process or another, after a crash too, resumes after it. Needed in {@link CommitMode#EXPLICIT};
     * in {@link CommitMode#ON_READ} the next read overwrites it. The index may be lower than one committed before.
     *
     * @param index an index this tailer has read, or an earlier one: at most the highest index it has read.
     * @throws SpoolException if the tailer has no name, or {@code index} is negative or past what it has read.
     */
    void commit(long index);

    /**
     * Commits the highest index this tailer has read; see {@link #commit(long)}.
     *
     * @throws SpoolException if the tailer has no name or has read nothing.
     */
    void commit();

    /** @return when this tailer persists its position; {@link CommitMode#ON_READ} for an unnamed tailer, which never does. */
    CommitMode commitMode();

    /** Releases the tailer's mapped memory. */
    @Override
    void close();
}
