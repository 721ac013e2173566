package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.PauseStrategy;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.internal.QueueInternals;
import net.openhft.chronicle.bytes.MappedBytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.spool.ringbuffer.RecordDescriptor.*;

/**
 * Copies a ring's records into its queue, in ring order, a batch at a time. One drainer per ring across every
 * process: it holds the ring's drainer lock (a byte-range lock the kernel drops if the process dies), and it must
 * be the queue's only writer. It appends each record at the index its claim time gives ({@code CycleRule}), the
 * index a ring reader gives the record before it is drained; if the queue's next index is another (someone else
 * appended), the append fails and names both.
 * <p>
 * Run it either on the caller's thread or event loop, calling {@link #doWork()} in the caller's duty cycle, or on
 * the drainer's own daemon thread {@value #THREAD_NAME} ({@link AsyncQueue#startDrainer()}), which waits with its
 * pause strategy when there is nothing to drain: by default it backs off to parking, so an idle drainer does not
 * burn a core; {@link PauseStrategy#busySpin()} trades that core for the lowest latency.
 * <p>
 * Crash safety: before appending a batch the drainer records a drain intent in the ring header (the batch's
 * bounds, its count of data records and the queue's last index before it); after the batch it releases the drained
 * bytes and moves the head. A new drainer that finds an intent starting at the head knows its predecessor died
 * inside the batch: it counts the excerpts the queue has after the recorded index, skips that many records and
 * appends the rest. Nothing is lost and nothing is written twice.
 */
public final class Drainer implements AutoCloseable {
    /** The name of the thread {@link AsyncQueue#startDrainer()} runs a drainer on. */
    public static final String THREAD_NAME = "spool-ring-drainer";
    private static final Logger LOG = LoggerFactory.getLogger(Drainer.class);

    private final RingBuffer ring;
    private final RingConsumer consumer;
    private final DrainState state;
    private final IndexJournal journal;
    private final SpoolQueue queue;
    private final IndexedAppender appender;
    private final MappedBytesStore store;
    private final int batchLimit;
    private final PauseStrategy pause;
    private final CycleRule rule;
    private final DrainHook hook;
    private long lastIndex;
    private long drainedRecords;
    private long drainedBatches;
    private volatile boolean running;
    private volatile Throwable failure;
    private Thread thread;
    private boolean closed;

    /**
     * @return a drainer holding the ring's drainer lock, after finishing what a dead predecessor left.
     * @throws SpoolException if a live process, this one included, holds the lock.
     */
    static Drainer open(final RingBuffer ring, final SpoolQueue queue, final int batchLimit, final PauseStrategy pause,
                        final DrainHook hook) {
        final Drainer drainer = tryOpen(ring, queue, batchLimit, pause, hook);
        if (drainer == null) {
            throw new SpoolException("ring " + ring.path() + " already has a drainer in a live process (lock file "
                    + ring.locks().path() + ")");
        }
        return drainer;
    }

    /** @return a drainer as {@link #open} makes it, or null if a live process holds the ring's drainer lock. */
    static Drainer tryOpen(final RingBuffer ring, final SpoolQueue queue, final int batchLimit, final PauseStrategy pause,
                           final DrainHook hook) {
        return ring.locks().tryHoldDrainer() ? new Drainer(ring, queue, batchLimit, pause, hook) : null;
    }

    /** Takes over the drainer lock the caller holds. */
    private Drainer(final RingBuffer ring, final SpoolQueue queue, final int batchLimit, final PauseStrategy pause,
                    final DrainHook hook) {
        this.ring = ring;
        this.consumer = ring.consumer();
        this.state = ring.drainState();
        this.journal = ring.journal();
        this.queue = queue;
        this.store = ring.store();
        this.batchLimit = batchLimit;
        this.pause = pause;
        this.hook = hook;
        this.rule = new CycleRule(queue.rollCycle(), queue.epochMillis());
        IndexedAppender created = null;
        try {
            created = QueueInternals.of(queue).createIndexedAppender();
            this.appender = created;
            this.drainedRecords = state.readVolatileDrainedRecords();
            this.drainedBatches = state.readVolatileDrainedBatches();
            this.lastIndex = queue.lastIndex();
            rule.reset(lastIndex, state.readVolatileLastDrainedTime());
            recover();
            state.writeVolatileSnapshot(ring.headPosition(), lastIndex, rule.lastTime());
        } catch (RuntimeException e) {
            if (created != null) {
                created.close();
            }
            ring.locks().free(RingLocks.DRAINER_SLOT);
            throw e;
        }
    }

    /**
     * Drains one batch: the committed records from the head, up to the batch limit, stopping at the first claim
     * still being written (revoking it if its producer is dead or it is older than the claim timeout, unblocking
     * it if its header stayed unwritten for the blocked-claim timeout). Call it
     * from one thread at a time, and not while the drainer runs on its own thread.
     *
     * @return the number of records copied into the queue; 0 if there were none.
     */
    public int doWork() {
        if (closed) {
            throw new IllegalStateException("drainer of " + ring.path() + " is closed");
        }
        final long head = ring.headPosition();
        final long tail = ring.tailPosition();
        if (head == tail) {
            return 0;
        }
        long position = head;
        int count = 0;
        while (position < tail && count < batchLimit) {
            long word = ring.headerWordAt(position);
            if (length(word) <= 0) {
                if (!consumer.resolveBlocked(position, tail)) {
                    break;
                }
                word = ring.headerWordAt(position);
            }
            ring.checkRecord(word, position);
            if (type(word) == TYPE_DATA) {
                count++;
            }
            position += align(length(word));
        }
        if (position == head) {
            return 0;
        }
        state.writeVolatileIntent(head, position, lastIndex, count);
        append(head, position);
        finish(head, position, count);
        return count;
    }

    /** Appends the data records of {@code [from, to)}, journalling their indices. */
    private void append(final long from, final long to) {
        long position = from;
        while (position < to) {
            final long word = ring.headerWordAt(position);
            final int length = length(word);
            if (type(word) == TYPE_DATA) {
                final long index = rule.next(ring.claimTime(position));
                appendAt(index, position, length - RecordDescriptor.HEADER_LENGTH);
                journal.writeOrdered(position, index);
                lastIndex = index;
                hook.afterAppend(position, index);
            }
            position += align(length);
        }
    }

    /** Appends the payload of the record at {@code position} at {@code index}, naming the ring if that fails. */
    private void appendAt(final long index, final long position, final int payloadLength) {
        try {
            appender.appendAt(index, store, ring.payloadOffset(position), payloadLength);
        } catch (CorruptQueueException e) {
            // names the queue file and position already, and callers may catch it by type
            throw e;
        } catch (SpoolException e) {
            throw new SpoolException("cannot drain the record at position " + position + " of ring " + ring.path()
                    + " to index " + Long.toHexString(index) + ", the one its claim time gives: " + e.getMessage(), e);
        }
    }

    private void finish(final long from, final long to, final int count) {
        drainedRecords += count;
        drainedBatches++;
        state.writeOrderedCounts(drainedRecords, drainedBatches);
        hook.beforeSnapshot(from, to);
        // before the release: a ring reader that finds the drained position past a record stops trusting its bytes
        state.writeVolatileSnapshot(to, lastIndex, rule.lastTime());
        hook.beforeRelease(from, to);
        consumer.release(from, to);
    }

    /** Finishes the batch a dead drainer left, if its intent starts at the head. */
    private void recover() {
        final long head = ring.headPosition();
        final long start = state.readVolatileIntentStart();
        final long end = state.readVolatileIntentEnd();
        if (start != head || end <= head) {
            return;
        }
        final long lastBefore = state.readVolatileIntentLastIndex();
        final int count = (int) state.readVolatileIntentCount();
        final long[] present = excerptsAfter(lastBefore, count);
        final int already = (int) present[count];
        // the records already in the queue: their journal entries (the dead drainer may not have written them) and
        // the times that decided their cycles, then the rule continues from the index the queue really gave the last
        rule.reset(lastBefore, state.readVolatileLastDrainedTime());
        int data = 0;
        long resume = start;
        while (resume < end && data < already) {
            final long word = ring.headerWordAt(resume);
            if (length(word) == 0) {
                // the dead drainer was releasing the batch, which it starts only once all of it is in the queue and
                // journalled, and after it published the batch's last claim time: nothing is left to append
                resume = end;
                break;
            }
            if (type(word) == TYPE_DATA) {
                rule.next(ring.claimTime(resume));
                journal.writeOrdered(resume, present[data++]);
            }
            resume += align(length(word));
        }
        if (already > 0) {
            rule.reset(present[already - 1], rule.lastTime());
        }
        lastIndex = already > 0 ? present[already - 1] : lastBefore;
        append(resume, end);
        state.addOrderedRecoveredRecords(already);
        finish(start, end, count);
        LOG.info("finished the batch [{}, {}) of ring {} that a dead drainer left: {} of its {} records were in queue {}"
                + " already, {} appended now", start, end, ring.path(), already, count, queue.directory(), count - already);
    }

    /**
     * @return the indices of the excerpts after {@code lastBefore}, at most {@code count}, with their number in the
     * last element.
     */
    private long[] excerptsAfter(final long lastBefore, final int count) {
        final long[] indices = new long[count + 1];
        try (ExcerptTailer tailer = queue.createTailer()) {
            if (lastBefore >= 0) {
                if (!tailer.moveToIndex(lastBefore) || !tailer.read((bytes, offset, length, index) -> { })) {
                    throw new SpoolException("queue " + queue.directory() + " lacks index " + Long.toHexString(lastBefore)
                            + " that ring " + ring.path() + "'s drain intent names as its last before the batch");
                }
            }
            final long[] read = new long[1];
            int found = 0;
            while (tailer.read((bytes, offset, length, index) -> read[0] = index)) {
                if (found == count) {
                    throw new SpoolException("queue " + queue.directory() + " has more excerpts after index "
                            + Long.toHexString(lastBefore) + " than ring " + ring.path() + "'s interrupted batch of " + count
                            + ": something other than the ring's drainer wrote to the queue");
                }
                indices[found++] = read[0];
            }
            indices[count] = found;
        }
        return indices;
    }

    /** Starts the drainer's own thread. */
    void start() {
        running = true;
        thread = new Thread(this::run, THREAD_NAME);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        final PauseStrategy idle = pause;
        try {
            while (running) {
                if (doWork() == 0) {
                    idle.pause();
                } else {
                    idle.reset();
                }
            }
        } catch (RuntimeException | Error e) {
            failure = e;
            running = false;
            LOG.error("drainer of ring {} into queue {} stopped: records stay in the ring for the next drainer",
                    ring.path(), queue.directory(), e);
        }
    }

    /** @return true while the drainer's own thread runs. */
    public boolean isRunning() {
        return running;
    }

    /** @return what stopped the drainer's own thread, or null. */
    public Throwable failure() {
        return failure;
    }

    /** @return the ring this drainer drains. */
    public RingBuffer ring() {
        return ring;
    }

    /**
     * Stops the drainer's own thread if it has one, after the batch in hand, and releases the drainer lock.
     * Records still in the ring stay there for the next drainer.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (thread != null) {
            running = false;
            LockSupport.unpark(thread);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SpoolException("interrupted while stopping the drainer of " + ring.path(), e);
            }
            if (thread.isAlive()) {
                throw new SpoolException("drainer thread of " + ring.path() + " did not stop within 30 s");
            }
        }
        closed = true;
        appender.close();
        ring.locks().free(RingLocks.DRAINER_SLOT);
    }

    /** @return true once {@link #close()} has run. */
    public boolean isClosed() {
        return closed;
    }
}
