package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.GroupCommit;
import dev.spool.queue.SpoolQueue;
import net.openhft.chronicle.bytes.Bytes;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * E3b, {@code group-commit}: JLBH's thread appends with no sync policy and returns at once, handing the message's
 * index and start time to the reader through in-memory rings; a {@link GroupCommit} on its own thread
 * ({@code spool-group-commit}) covers every waiting index with one {@code msync(MS_SYNC)} of the tail; the reader
 * plays the part of whatever acknowledges a durable message: it waits, parked in
 * {@link GroupCommit#awaitDurable}, until the queue's last synced index reaches the message's, and samples then.
 * So the time is publish to "known on disk", and the messages that arrive during one msync share the next.
 * The sender is never held up by a sync.
 * <p>
 * Threads: JLBH's sender spins; the reader spins on the rings while they are empty and parks while it waits for a
 * sync; the syncer parks while no one waits. The files go to the benchmark directory, which must be a real disk.
 */
final class GroupCommitVariant implements LatencyVariant {
    /** The variant's name. */
    static final String NAME = "group-commit";
    /** The reader gives up a wait after this long and looks again; the syncer unparks it long before. */
    private static final long AWAIT_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long NONE = Long.MIN_VALUE;

    private SpoolQueue queue;
    private ExcerptAppender appender;
    private GroupCommit groupCommit;
    private Bytes<?> message;
    private SpscLongRing indices;
    private SpscLongRing startTimes;
    private long pendingStartNs = NONE;
    private long pendingIndex;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Spool, no sync policy + GroupCommit on its own thread: append, index and start time to the reader, "
                + "which awaits lastSyncedIndex >= index (one MS_SYNC covers every waiting message)";
    }

    @Override
    public void init(final Path directory, final int length) {
        queue = Payloads.spoolQueue(directory)
                .openOrCreate();
        appender = queue.createAppender();
        groupCommit = queue.startGroupCommit();
        message = Payloads.directMessage(length);
        indices = new SpscLongRing(1 << 16);
        startTimes = new SpscLongRing(1 << 16);
    }

    @Override
    public void openReader() {
        // the reader polls the in-memory rings and the queue's last synced index: nothing to open
    }

    @Override
    public void send(final long startTimeNs) {
        final Bytes<?> message = this.message;
        message.writeLong(0, startTimeNs);
        final long index = appender.append(message);
        indices.put(index);
        startTimes.put(startTimeNs);
    }

    @Override
    public long receive() {
        if (pendingStartNs == NONE) {
            final long startTimeNs = startTimes.poll();
            if (startTimeNs == SpscLongRing.EMPTY) {
                return NOTHING;
            }
            pendingStartNs = startTimeNs;
            pendingIndex = indices.poll();
        }
        if (queue.lastSyncedIndex() < pendingIndex && !awaitDurable(pendingIndex)) {
            return NOTHING;
        }
        final long startTimeNs = pendingStartNs;
        pendingStartNs = NONE;
        return startTimeNs;
    }

    private boolean awaitDurable(final long index) {
        try {
            return groupCommit.awaitDurable(index, AWAIT_NS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while awaiting the sync of index " + index, e);
        }
    }

    @Override
    public void closeReader() {
        // nothing to release
    }

    @Override
    public void close() {
        groupCommit.close();
        appender.close();
        queue.close();
        message.releaseLast();
    }
}
