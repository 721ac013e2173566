package dev.spool.queue;

import dev.spool.queue.typed.MethodReader;
import dev.spool.queue.typed.TypedMessages;
import net.openhft.chronicle.bytes.Bytes;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Reads a queue's excerpts in index order, live or replayed, from any thread or process. Never blocks unless
 * asked to with {@link #await(long, TimeUnit)}. One tailer belongs to one thread at a time.
 * <p>
 * A named tailer ({@link SpoolQueue#createTailer(String, CommitMode)}) persists a position under its name in the
 * queue's metadata, and a tailer of that name resumes after it. Delivery is at-least-once for what the consumer
 * counts as done when the position moves: in {@link CommitMode#ON_READ}, the default, a read moves it after the
 * handler returns, so a process that dies inside the handler reads that excerpt again; in
 * {@link CommitMode#EXPLICIT} only {@link #commit(long)} moves it, for a consumer that finishes excerpts on other
 * threads. Two live tailers of one name share the position: give each consumer its own name.
 * <p>
 * A tailer sits between two excerpts: a forward read returns the one after and moves past it, a backward read
 * returns the one before and moves before it. Changing direction does not move the tailer, so the next read
 * returns the excerpt just read.
 */
public interface ExcerptTailer extends AutoCloseable {
    /**
     * Reads the next excerpt, zero-copy, and moves past it in the tailer's direction; see {@link ExcerptHandler} for
     * the byte order.
     *
     * @param handler receives the excerpt.
     * @return false if there was nothing to read.
     */
    boolean read(ExcerptHandler handler);

    /**
     * Copies the next excerpt's payload into {@code into} (appended at its write position) and moves past it, byte
     * for byte: {@code into}'s multi-byte accessors read it in native order, little-endian on x86-64 and AArch64.
     *
     * @param into receives the payload.
     * @return the excerpt's index, or -1 if there was nothing to read.
     */
    long read(Bytes<?> into);

    /**
     * Waits, with the tailer's pause strategy, until an excerpt can be read or the timeout passes.
     *
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true if {@link #read(ExcerptHandler)} will now return an excerpt.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    boolean await(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * @return the index of the excerpt the next read returns if it is in the current cycle (after the last
     * excerpt of a cycle, the next read may return the first of a later cycle instead), or -1 before any cycle.
     */
    long index();

    /**
     * Positions the tailer so that the next read returns the excerpt at {@code index}.
     *
     * @param index an index.
     * @return false, leaving the position unchanged, if no excerpt has that index.
     */
    boolean moveToIndex(long index);

    /**
     * Positions the tailer to replay from {@code time}, like Kafka's {@code offsetsForTimes}: no excerpt appended at
     * or after {@code time} is skipped, and at most {@code indexSpacing} excerpts appended before it are read first
     * (the ones after the last index entry recorded before {@code time}; filter them by a timestamp of your own if
     * that matters). Forward, the next read returns the excerpt after that entry's; backward, that entry's excerpt,
     * the last known to be appended before {@code time}. Before every excerpt if none was indexed before
     * {@code time}. The time of an excerpt is when
     * it reached this queue: an appender's clock (its {@link TimeProvider}), a replica's sink's, a ring's drainer's.
     * A binary search over the cycle files, then over one file's index entries, then a walk of fewer than
     * {@code indexSpacing} excerpts; not a hot-path call.
     *
     * @param time a time.
     * @return this tailer.
     * @throws SpoolException if the queue was not built with {@link SpoolQueueBuilder#indexTimes(boolean)}.
     */
    ExcerptTailer moveToTime(Instant time);

    /**
     * Moves before the first excerpt of the queue.
     *
     * @return this tailer.
     */
    ExcerptTailer toStart();

    /**
     * Moves after the last excerpt.
     *
     * @return this tailer.
     */
    ExcerptTailer toEnd();

    /**
     * @param direction which way reads move from now on.
     * @return this tailer.
     */
    ExcerptTailer direction(Direction direction);

    /** @return which way reads move. */
    Direction direction();

    /**
     * @param handler receives each sync marker this tailer moves past when reading forward; null for none.
     * @return this tailer.
     */
    ExcerptTailer syncMarkers(SyncMarkerHandler handler);

    /** @return the name this tailer's position persists under, or null. */
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
