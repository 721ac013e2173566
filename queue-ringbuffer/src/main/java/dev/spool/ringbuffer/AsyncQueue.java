package dev.spool.ringbuffer;

import dev.spool.queue.CommitMode;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.MBeans;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.NamedPosition;
import dev.spool.queue.internal.QueueInternals;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;

import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_LENGTH;
import static dev.spool.ringbuffer.RecordDescriptor.*;

/**
 * A queue written through a ring buffer on tmpfs: {@link AsyncAppender}s write into the ring and return at once,
 * and a {@link Drainer} copies the records into the {@link SpoolQueue} in ring order, so a page fault or a
 * write-back stall of the queue's files delays the drainer, not the appenders.
 * <pre>{@code
 * try (AsyncQueue async = AsyncQueue.builder(Path.of("/data/orders")).build();
 *      AsyncAppender appender = async.createAppender()) {
 *     async.startDrainer();
 *     long position = appender.append(message);
 *     long index = appender.awaitIndex(position, 1, TimeUnit.SECONDS);   // only if the caller needs it
 * }
 * }</pre>
 * {@link #createTailer()} reads the queue and then the ring, so it sees a record before the drainer has copied it,
 * with the index it gets in the queue; {@link #queue()}'s own tailers see it once drained. Appenders,
 * the drainer and readers may be in different processes that open the same queue and ring path. The drainer must
 * be the queue's only writer.
 * <p>
 * {@link #close()} drains everything first; {@link #close(Duration)} gives up at a deadline and reports what it
 * left in the ring, where the next drainer of that ring finds it. Either leaves the ring file and its lock file in
 * place (on {@code /dev/shm} by default), for the next async queue on that path; {@link #deleteRing(Path)} removes
 * them once the ring is drained and no process has it open.
 * <p>
 * An async queue that opened its queue ({@link #builder(Path)}, {@link #builder(SpoolQueueBuilder)}) is that
 * queue's only writer: {@code queue().createAppender()} is refused with a {@link SpoolException} naming
 * {@link #createAppender()}. A queue opened read-only is refused when the async queue is built. After close, every
 * call that would read or write the ring or the queue throws a {@link SpoolException} saying what is closed, through
 * {@link #stats()}, {@link #ring()} and {@link #queue()} too, from any thread: none touches the unmapped ring. A drainer's failure reaches {@link Drainer#doWork()} and
 * {@link #close()} as a {@link SpoolException}, never as the Agrona exception that stops the drainer's own thread.
 */
public final class AsyncQueue implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AsyncQueue.class);
    /** Longer than any wait: its nanoseconds still fit a long after adding the current time. */
    private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE / 4);

    private final SpoolQueue queue;
    /** True when this instance opened the queue, which it then also closes. */
    private final boolean ownsQueue;
    private final RingBuffer ring;
    private final AsyncQueueConfig config;
    /** The queue's monotonic clock, of the close's deadline. */
    private final NanoClock nanoClock;
    private final int maxLength;
    private final Map<Object, Boolean> users = new IdentityHashMap<>();
    private final Doorbell.Group commits = new Doorbell.Group();
    private Drainer drainer;
    private boolean closed;
    /** Whether the WARN that spinning threads outnumber the CPUs was logged: once per async queue. */
    private boolean warnedOversubscribed;
    /** The name of the ring's MBean, or null. */
    private final ObjectName mbeanName;

    AsyncQueue(final SpoolQueue queue, final boolean ownsQueue, final AsyncQueueConfig config) {
        queue.unwrap(QueueInternals.class).checkWritable("an async queue, whose drainer appends to it,");
        if (queue.publisherIds()) {
            // a record would need the excerpt's whole prefix, and the ring's readers a checksum over it
            throw new SpoolException("queue " + queue.directory() + " was created with publisherIds: its excerpts"
                    + " come through a publish gateway, which appends to it directly; an async queue cannot front it");
        }
        this.queue = queue;
        this.ownsQueue = ownsQueue;
        this.config = config;
        this.nanoClock = config.nanoClock();
        this.ring = RingBuffer.open(config.ringPath(), config.ringCapacity(), config.claimTimeout(),
                config.blockedClaimTimeout(), config.ringFileMode(), config.epochClock(), config.nanoClock());
        // a record of a checksummed queue holds the excerpt's CRC32C before its payload, as the queue does
        this.maxLength = Math.min(ring.maxPayloadLength() - (queue.checksums() ? CHECKSUM_LENGTH : 0),
                queue.maxMessageLength());
        ObjectName name = null;
        if (config.registerMBean()) {
            try {
                name = MBeans.register("Ring", ring.path().toString(), new RingMetrics(ring), RingMXBean.class);
            } catch (RuntimeException e) {
                ring.close();
                throw e;
            }
        }
        this.mbeanName = name;
        warnIfOversubscribed(null);
        // while it is open: an appender of the queue would take an index the ring promised a record
        queue.unwrap(QueueInternals.class).refuseAppenders("async queue " + ring.path() + " is its only writer, and its"
                + " drainer gives each record the index the ring promised it: append with"
                + " asyncQueue.createAppender() instead");
    }

    /**
     * @param queue an open queue, which stays the caller's to close after this.
     * @return a builder for an async queue in front of it.
     */
    public static AsyncQueueBuilder builder(final SpoolQueue queue) {
        return new AsyncQueueBuilder(queue, null);
    }

    /**
     * @param directory a queue's directory; the queue is opened (or created) with default settings and closed
     *                  with the async queue.
     * @return a builder for an async queue in front of it, with async reads ({@link #createTailer()}).
     */
    public static AsyncQueueBuilder builder(final Path directory) {
        return builder(SpoolQueue.builder(directory));
    }

    /**
     * @param queueBuilder the settings of the queue to open.
     * @return a builder for an async queue in front of it, with async reads ({@link #createTailer()}).
     */
    public static AsyncQueueBuilder builder(final SpoolQueueBuilder queueBuilder) {
        return new AsyncQueueBuilder(null, queueBuilder);
    }

    /**
     * Removes a ring file and its lock file ({@code <ring file>.lock}), for a ring that no async queue will use
     * again: a cleanly closed async queue leaves both, on {@code /dev/shm} by default, taking the ring's capacity
     * of memory. Call it after {@link #close()}, with the {@link AsyncQueueBuilder#ringPath(Path) ring path}
     * ({@code ring().path()} before the close). While it runs, it holds every slot of the lock file, so no process
     * can start using the ring until the files are gone.
     * <p>
     * It refuses, removing nothing, while anything could still need the ring: while a process has it open (an
     * async queue or ring buffer of this process, or of another, whose slot in the lock file the kernel releases
     * when that process exits, kill -9 included), and while the ring holds records not yet drained into the queue
     * (open an async queue on it and close it: the close drains them).
     *
     * @param ringPath the ring file.
     * @return true if it removed the ring file or its lock file; false if neither existed.
     * @throws SpoolException                     naming the ring and why, if a process has the ring open or it holds
     *                                            records not yet drained.
     * @throws dev.spool.queue.CorruptQueueException if the file at {@code ringPath} is not a ring: it is left as it was.
     */
    public static boolean deleteRing(final Path ringPath) {
        return RingFile.delete(ringPath);
    }

    /** @return a new appender into the ring, for one thread at a time. */
    public AsyncAppender createAppender() {
        synchronized (users) {
            checkOpen();
            final AsyncAppender appender = new AsyncAppender(this, ring, config.backPressure(), maxLength, queue.checksums());
            users.put(appender, Boolean.TRUE);
            return appender;
        }
    }

    /**
     * Creates a tailer that reads the queue from its start and then, once it has read what is drained, the
     * committed records still in the ring, each with the queue index it will have.
     *
     * @return a new tailer, for one thread at a time.
     * @throws SpoolException if this async queue was built on an open {@link SpoolQueue}: its caller may append to
     *                        that queue too, and the indices a ring reader gives records hold only while the drainer
     *                        is the queue's only writer.
     */
    public AsyncTailer createTailer() {
        return createTailer(null, CommitMode.ON_READ);
    }

    /**
     * Creates a named tailer in {@link CommitMode#ON_READ}; see {@link #createTailer(String, CommitMode)}.
     *
     * @param name 1 to 48 UTF-8 bytes.
     * @return a new tailer positioned after the last excerpt read under that name, or at the start.
     */
    public AsyncTailer createTailer(final String name) {
        return createTailer(name, CommitMode.ON_READ);
    }

    /**
     * Creates a named tailer: it persists its position in the queue's metadata under {@code name}, the entry a
     * {@link SpoolQueue#createTailer(String, CommitMode) queue tailer} of that name uses too, and resumes after the
     * last index committed there, in the queue or still in the ring.
     *
     * @param name 1 to 48 UTF-8 bytes, or null for a tailer that persists nothing.
     * @param mode when the position persists: on every read, or on {@link AsyncTailer#commit(long)} only.
     * @return a new tailer, for one thread at a time.
     * @throws SpoolException if the name does not fit, or as {@link #createTailer()} says.
     */
    public AsyncTailer createTailer(final String name, final CommitMode mode) {
        Objects.requireNonNull(mode, "mode");
        synchronized (users) {
            checkOpen();
            if (!ownsQueue) {
                throw new SpoolException("async reads of ring " + ring.path() + " need the async queue to open queue "
                        + queue.directory() + " itself: build it with AsyncQueue.builder(Path) or builder(SpoolQueueBuilder)");
            }
            final NamedPosition named = name == null ? null : queue.unwrap(QueueInternals.class).namedPosition(name);
            final AsyncTailer tailer;
            try {
                tailer = new AsyncTailer(this, ring, queue, maxLength, named, mode, commits);
            } catch (RuntimeException e) {
                if (named != null) {
                    named.close();
                }
                throw e;
            }
            users.put(tailer, Boolean.TRUE);
            try {
                tailer.resume();
            } catch (RuntimeException e) {
                // a damaged queue or ring: nothing of the tailer stays open, and its name is free again
                tailer.close();
                throw e;
            }
            return tailer;
        }
    }

    /** @return the doorbells an appender of this instance rings after each commit, for tailers that await. */
    Doorbell.Group commits() {
        return commits;
    }

    /**
     * Creates the ring's drainer for the caller to run with {@link Drainer#doWork()} on a thread or event loop of
     * its own. A drainer first finishes a batch that a dead predecessor left.
     *
     * @return the drainer, closed by {@link #close()} if the caller has not.
     * @throws dev.spool.queue.SpoolException if a live process, this one included, already drains the ring.
     */
    public Drainer createDrainer() {
        synchronized (users) {
            checkOpen();
            if (drainer != null && !drainer.isClosed()) {
                throw new SpoolException("this async queue already has a drainer for " + ring.path());
            }
            drainer = Drainer.open(ring, queue, config);
            return drainer;
        }
    }

    /**
     * Starts the ring's drainer on its own daemon thread, {@value Drainer#THREAD_NAME}, an agent runner that waits
     * with the builder's drainer idle strategy when the ring is empty: by default, on a machine with a core to spare
     * beyond the {@linkplain AsyncQueueBuilder#hotThreads(int) hot threads}, a dedicated thread that backs off from
     * spinning to parking; without one, a low-duty thread that sleeps a millisecond whenever it drained nothing.
     *
     * @return the running drainer; close it (or this queue) to stop the thread.
     */
    public Drainer startDrainer() {
        synchronized (users) {
            final Drainer started = createDrainer();
            final IdleStrategy idle = config.drainerIdleStrategy();
            warnIfOversubscribed(idle);
            started.start(idle, config.drainerThreads(), config.errorHandler(),
                    config.registerMBean() ? ring.path().toString() : null);
            return started;
        }
    }

    /** Logs one WARN, the first time it applies, when the threads that spin are more than the CPUs. */
    private void warnIfOversubscribed(final IdleStrategy drainer) {
        final String why = config.drainerThreading().oversubscription(drainer);
        if (why != null && !warnedOversubscribed) {
            warnedOversubscribed = true;
            LOG.warn("async queue of ring {}: {}", ring.path(), why);
        }
    }

    /** @return the queue the ring drains into; its tailers read what the drainer has copied. */
    public SpoolQueue queue() {
        return queue;
    }

    /** @return the ring. */
    public RingBuffer ring() {
        return ring;
    }

    /**
     * @return the ring's live counters: occupancy, high-water mark, drain lag, back-pressure events. A metrics thread
     * may read them while the async queue closes; after close each read throws a {@link SpoolException}.
     */
    public RingStats stats() {
        return ring.stats();
    }

    /** Drains everything in the ring into the queue, then closes; see {@link #close(Duration)}. */
    @Override
    public void close() {
        close(FOREVER);
    }

    /**
     * Closes the appenders and tailers, drains the ring into the queue until it is empty or the deadline passes,
     * then releases the ring (and the queue, if this async queue opened it). Drains with this instance's drainer
     * (whose caller-run loop must have stopped), or else a drainer made for the purpose, or else waits for the
     * drainer of another process. What it leaves stays in the ring file, safe on tmpfs for the next drainer; the
     * ring file and its lock file stay even when it left nothing, until {@link #deleteRing(Path)} removes them.
     * Reads of {@link #stats()}, the ring's head and tail and the queue's metrics that other threads have in
     * progress finish before anything is unmapped, and every read after throws a {@link SpoolException}. Stop the
     * threads that use the appenders and tailers first: each belongs to one thread.
     *
     * @param timeout how long to drain at most.
     * @return the number of records left in the ring, 0 when it was drained.
     * @throws SpoolException naming the ring and the record if the drainer cannot copy a record into the queue (the
     *                        record and those after it stay in the ring for the next drainer); the ring and the queue
     *                        are closed all the same.
     */
    public long close(final Duration timeout) {
        synchronized (users) {
            if (closed) {
                return 0;
            }
            closed = true;
            for (final Object user : new ArrayList<>(users.keySet())) {
                if (user instanceof AsyncAppender appender) {
                    appender.close();
                } else {
                    ((AsyncTailer) user).close();
                }
            }
        }
        final long deadline = nanoClock.nanoTime() + (timeout.compareTo(FOREVER) > 0 ? FOREVER : timeout).toNanos();
        try {
            drainUntil(deadline);
            final long left = recordsLeft();
            if (left > 0) {
                LOG.warn("closed async queue {} with {} records ({} bytes) left in ring {}: the next drainer of that ring"
                        + " copies them", queue.directory(), left, ring.stats().occupancy(), ring.path());
            }
            return left;
        } finally {
            if (drainer != null) {
                drainer.close();
            }
            if (mbeanName != null) {
                MBeans.unregister(mbeanName);
            }
            ring.close();
            if (ownsQueue) {
                queue.close();
            } else {
                queue.unwrap(QueueInternals.class).allowAppenders();
            }
        }
    }

    private void drainUntil(final long deadline) {
        final IdleStrategy pause = new BackoffIdleStrategy(100, 100, 1_000, 1_000_000);
        Drainer draining = drainer;
        if (draining != null && draining.failure() != null) {
            // its thread stopped on a failure: a drainer made for the purpose tries the record again, and reports
            // what stops it as the failed one did, not by ending an agent
            draining.close();
        }
        if (draining != null && draining.isRunning()) {
            while (ring.head() != ring.tail() && draining.isRunning() && nanoClock.nanoTime() - deadline < 0) {
                pause.idle();
            }
            draining.close();
            if (draining.failure() == null) {
                return;
            }
        }
        while (ring.head() != ring.tail() && nanoClock.nanoTime() - deadline < 0) {
            if (draining == null || draining.isClosed()) {
                // a drainer of another process drains the ring until it dies: then this one takes over
                draining = Drainer.tryOpen(ring, queue, config);
                if (draining == null) {
                    pause.idle();
                    continue;
                }
                drainer = draining;
            }
            if (draining.doWork() == 0) {
                pause.idle();
            } else {
                pause.reset();
            }
        }
    }

    /** @return the records, committed or still being written, between the head and the tail. */
    private long recordsLeft() {
        final long tail = ring.tail();
        long position = ring.head();
        long count = 0;
        while (position < tail) {
            final long word = ring.headerWordAt(position);
            if (length(word) == 0) {
                // claimed and not yet headed: count it, its length is unknown
                return count + 1;
            }
            if (type(word) == TYPE_DATA) {
                count++;
            }
            position += align(Math.abs(length(word)));
        }
        return count;
    }

    void closed(final Object user) {
        synchronized (users) {
            users.remove(user);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new SpoolException("async queue " + queue.directory() + " with ring " + ring.path() + " is closed");
        }
    }
}
