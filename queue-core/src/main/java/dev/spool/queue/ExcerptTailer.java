package dev.spool.queue;

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
public interface ExcerptTailer extends ExcerptReader {
    /**
     * Copies the next excerpt's payload into {@code into} (appended at its write position) and moves past it, byte
     * for byte: {@code into}'s multi-byte accessors read it in native order, little-endian on x86-64 and AArch64.
     *
     * @param into receives the payload.
     * @return the excerpt's index, or -1 if there was nothing to read.
     */
    long read(Bytes<?> into);

    /**
     * @return the index of the excerpt the next read returns if it is in the current cycle (after the last
     * excerpt of a cycle, the next read may return the first of a later cycle instead), or -1 before any cycle.
     */
    long index();

    /**
     * Positions the tailer to replay from {@code time}, like Kafka's {@code offsetsForTimes}: no excerpt appended at
     * or after {@code time} is skipped, and at most {@code indexSpacing} excerpts appended before it are read first
     * (the ones after the last index entry recorded before {@code time}; filter them by a timestamp of your own if
     * that matters). Forward, the next read returns the excerpt after that entry's; backward, that entry's excerpt,
     * the last known to be appended before {@code time}. Before every excerpt if none was indexed before
     * {@code time}. The time of an excerpt is when
     * it reached this queue: an appender's clock (its queue's {@link SpoolQueueBuilder#epochClock epoch clock}), a replica's sink's, a ring's drainer's.
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
    @Override
    ExcerptTailer toStart();

    /**
     * Moves after the last excerpt.
     *
     * @return this tailer.
     */
    @Override
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

}
