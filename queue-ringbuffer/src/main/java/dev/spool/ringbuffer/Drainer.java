package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.AgentHost;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.internal.QueueInternals;
import net.openhft.chronicle.bytes.MappedBytesStore;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.spool.ringbuffer.RecordDescriptor.*;

/**
 * Copies a ring's records into its queue, in ring order, a batch at a time. One drainer per ring across every
 * process: it holds the ring's drainer lock (a byte-range lock the kernel drops if the process dies), and it must
 * be the queue's only writer. It appends each record at the index its claim time gives ({@code CycleRule}), the
 * index a ring reader gives the record before it is drained; if the queue's next index is another (someone else
 * appended), the append fails and names both.
 * <p>
 * It is an Agrona {@link Agent} whose {@link #doWork()} drains one batch. Run it on the drainer's own daemon thread
 * {@value #THREAD_NAME} ({@link AsyncQueue#startDrainer()}), run by Spool's agent host with the idle strategy the
 * builder chooses for the machine's cores ({@link AsyncQueueBuilder#hotThreads(int)}); or create it
 * ({@link AsyncQueue#createDrainer()}) and run it on an {@code AgentRunner} of your own, alone or in a
 * {@code CompositeAgent} with the queue's other duties, or from your own duty cycle ({@link #doWork()} or an
 * {@code AgentInvoker}). The runner or invoker that closes it releases the drainer lock ({@link #onClose()}).
 * <p>
 * Crash safety: before appending a batch the drainer records a drain intent in the ring header (the batch's
 * bounds, its count of data records and the queue's last index before it); after the batch it publishes the drained
 * snapshot and moves the head, and releases to the producers only what lies a reserve below the head, so that a
 * ring reader that far behind it keeps reading the ring. A new drainer that finds an intent starting at the head
 * knows its predecessor died inside the batch: it counts the excerpts the queue has after the recorded index, skips that many records and
 * appends the rest. Nothing is lost and nothing is written twice.
 */
public final class Drainer implements Agent, AutoCloseable {
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
    private final CycleRule rule;
    private final DrainHook hook;
    private final int reserve;
    private long lastIndex;
    private long drainedRecords;
    private long drainedBatches;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The host of {@link #start}, if the drainer has its own thread. */
    private volatile AgentHost host;
    /** Set by {@link #start} before the thread starts: {@link #onStart()} is then the own thread's. */
    private volatile boolean ownThread;
    private volatile Thread thread;
    private volatile boolean running;
    private volatile Throwable failure;

    /**
     * @return a drainer holding the ring's drainer lock, after finishing what a dead predecessor left.
     * @throws SpoolException if a live process, this one included, holds the lock.
     */
    static Drainer open(final RingBuffer ring, final SpoolQueue queue, final AsyncQueueConfig config) {
        final Drainer drainer = tryOpen(ring, queue, config);
        if (drainer == null) {
            throw new SpoolException("ring " + ring.path() + " already has a drainer in a live process (lock file "
                    + ring.locks().path() + ")");
        }
        return drainer;
    }

    /** @return a drainer as {@link #open} makes it, or null if a live process holds the ring's drainer lock. */
    static Drainer tryOpen(final RingBuffer ring, final SpoolQueue queue, final AsyncQueueConfig config) {
        return ring.locks().tryHoldDrainer()
                ? new Drainer(ring, queue, config.drainBatch(), config.ringReserve(), config.drainHook()) : null;
    }

    /** Takes over the drainer lock the caller holds. */
    private Drainer(final RingBuffer ring, final SpoolQueue queue, final int batchLimit, final int reserve,
                    final DrainHook hook) {
        this.ring = ring;
        this.consumer = ring.consumer();
        this.state = ring.drainState();
        this.journal = ring.journal();
        this.queue = queue;
        this.store = ring.store();
        this.batchLimit = batchLimit;
        this.hook = hook;
        this.reserve = reserve;
        this.rule = new CycleRule(queue.unwrap(QueueInternals.class).calendar());
        IndexedAppender created = null;
        try {
            created = queue.unwrap(QueueInternals.class).createIndexedAppender();
            this.appender = created;
            this.drainedRecords = state.readVolatileDrainedRecords();
            this.drainedBatches = state.readVolatileDrainedBatches();
            this.lastIndex = queue.lastIndex();
            rule.reset(lastIndex, state.readVolatileLastDrainedTime());
            consumer.finishRelease();
            recover();
            state.writeVolatileSnapshot(ring.head(), lastIndex, rule.lastTime());
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
     * from one thread at a time, and not while the drainer runs on its own thread. It never waits for a producer
     * and allocates nothing in steady state; it takes the queue's page faults and write-back stalls.
     *
     * @return the number of records copied into the queue; 0 if there were none.
     * @throws SpoolException if closed, or if its own thread stopped on a failure (the cause).
     * @throws AgentTerminationException only on its own thread, on a failure, which it logs and keeps for
     *                                   {@link #failure()}: the thread stops (see {@link AgentHost}).
     */
    @Override
    public int doWork() {
        if (closed.get()) {
            throw new SpoolException("drainer of " + ring.path() + " is closed");
        }
        final Throwable stopped = failure;
        if (stopped != null) {
            throw new SpoolException("drainer of " + ring.path() + " stopped on " + stopped
                    + ": records stay in the ring for the next drainer", stopped);
        }
        if (Thread.currentThread() != thread) {
            return drain();
        }
        try {
            return drain();
        } catch (RuntimeException | Error e) {
            // a record it cannot copy would fail every pass: the own thread stops, and the record waits in the ring
            failed(e);
            throw new AgentTerminationException(e);
        }
    }

    /** Drains one batch: see {@link #doWork()}. */
    private int drain() {
        final long head = ring.head();
        final long tail = ring.tail();
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
                final long ruleIndex = rule.lastIndex();
                final long ruleTime = rule.lastTime();
                final long index = rule.next(ring.claimTime(position));
                try {
                    appendAt(index, position, length - RecordDescriptor.HEADER_LENGTH);
                } catch (RuntimeException e) {
                    // not appended: a later attempt gives the record the same index, not the one after it
                    rule.reset(ruleIndex, ruleTime);
                    throw e;
                }
                journal.writeOrdered(position, index);
                lastIndex = index;
                hook.afterAppend(position, index);
            }
            position += align(length);
        }
    }

    /**
     * Appends the body of the record at {@code position} at {@code index}, naming the ring if that fails: the payload,
     * after its CRC32C in front of a checksummed queue, which the queue checks before it publishes the excerpt.
     */
    private void appendAt(final long index, final long position, final int bodyLength) {
        try {
            appender.appendBodyAt(index, store, ring.payloadOffset(position), bodyLength);
        } catch (CorruptQueueException e) {
            // names the queue file and position already, and callers may catch it by type
            throw e;
        } catch (SpoolException e) {
            throw new SpoolException("cannot drain the record at position " + position + " of ring " + ring.path()
                    + " to index " + IndexFormat.format(index, queue.rollCycle()) + ", the one its claim time gives: " + e.getMessage(), e);
        }
    }

    private void finish(final long from, final long to, final int count) {
        drainedRecords += count;
        drainedBatches++;
        state.writeOrderedCounts(drainedRecords, drainedBatches);
        hook.beforeSnapshot(from, to);
        // before the head, which makes the intent stale: a drainer dying in between leaves the batch to its successor
        state.writeVolatileSnapshot(to, lastIndex, rule.lastTime());
        consumer.consume(to);
        hook.beforeRelease(from, to);
        // lazily: a ring reader up to the reserve behind the drainer keeps reading the ring
        consumer.releaseBelow(to - reserve);
    }

    /** Finishes the batch a dead drainer left, if its intent starts at the head. */
    private void recover() {
        final long head = ring.head();
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
                    throw new SpoolException("queue " + queue.directory() + " lacks index " + IndexFormat.format(lastBefore, queue.rollCycle())
                            + " that ring " + ring.path() + "'s drain intent names as its last before the batch");
                }
            }
            final long[] read = new long[1];
            int found = 0;
            while (tailer.read((bytes, offset, length, index) -> read[0] = index)) {
                if (found == count) {
                    throw new SpoolException("queue " + queue.directory() + " has more excerpts after index "
                            + IndexFormat.format(lastBefore, queue.rollCycle()) + " than ring " + ring.path() + "'s interrupted batch of " + count
                            + ": something other than the ring's drainer wrote to the queue");
                }
                indices[found++] = read[0];
            }
            indices[count] = found;
        }
        return indices;
    }

    /**
     * Starts the drainer's own thread: a host that waits with {@code idle} after a call that drained nothing, and
     * stops at the first failure, which the drainer logs and keeps for {@link #failure()}.
     *
     * @param threads      makes the thread.
     * @param errorHandler the queue's, given the failure; null for none.
     * @param mbeanOwner   the ring's MBean name key, to register the drainer's agent MBean beside it; null for none.
     */
    void start(final IdleStrategy idle, final ThreadFactory threads, final ErrorHandler errorHandler,
               final String mbeanOwner) {
        running = true;
        ownThread = true;
        final AgentHost started = AgentHost.builder("drainer of ring " + ring.path() + " into queue "
                        + queue.directory(), this)
                .threadFactory(threads)
                .errorHandler(errorHandler)
                .mbeanBeside(mbeanOwner)
                .start(idle);
        host = started;
    }

    /** On the drainer's own thread: learns it before the first pass, so that a failure there stops the thread. */
    @Override
    public void onStart() {
        if (ownThread) {
            thread = Thread.currentThread();
        }
    }

    private void failed(final Throwable error) {
        failure = error;
        running = false;
        LOG.error("drainer of ring {} into queue {} stopped: records stay in the ring for the next drainer",
                ring.path(), queue.directory(), error);
    }

    @Override
    public String roleName() {
        return THREAD_NAME;
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
     * Releases the drainer lock when the runner or invoker of the caller's choosing closes. The drainer's own host
     * leaves that to {@link #close()}.
     */
    @Override
    public void onClose() {
        running = false;
        if (host == null) {
            release();
        }
    }

    /**
     * Stops the drainer's own thread if it has one, after the batch in hand, and releases the drainer lock.
     * Records still in the ring stay there for the next drainer.
     */
    @Override
    public void close() {
        final AgentHost own = host;
        if (own != null) {
            own.close();
        }
        release();
    }

    private void release() {
        if (closed.compareAndSet(false, true)) {
            appender.close();
            ring.locks().free(RingLocks.DRAINER_SLOT);
        }
    }

    /** @return true once {@link #close()} has run. */
    public boolean isClosed() {
        return closed.get();
    }
}
