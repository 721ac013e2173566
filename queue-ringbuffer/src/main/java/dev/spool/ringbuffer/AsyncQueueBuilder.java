package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;

import dev.spool.queue.internal.QueueInternals;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The settings of an {@link AsyncQueue}; {@link #build()} checks them, naming the option and the value of one that
 * is wrong, concludes them into one immutable configuration with the queue's clocks, and opens the async queue with
 * it. The builder is not read again: changing it after {@code build()} changes nothing of that async queue.
 */
public final class AsyncQueueBuilder {
    /** The ring capacity unless set: 8 MiB of records, a few milliseconds of a fast producer. */
    public static final int DEFAULT_RING_CAPACITY = 8 << 20;
    /** The most records the drainer copies per batch unless set. */
    public static final int DEFAULT_DRAIN_BATCH = 1024;
    /** The application's hot threads unless set: one appender and one reader, each spinning on its own core. */
    public static final int DEFAULT_HOT_THREADS = 2;
    /** Where rings go unless a path is set: tmpfs, when the machine has it. */
    public static final Path DEFAULT_RING_DIRECTORY = Path.of("/dev/shm");

    private final SpoolQueue queue;
    private final SpoolQueueBuilder queueBuilder;
    private Path ringPath;
    private int ringCapacity = DEFAULT_RING_CAPACITY;
    private BackPressure backPressure = BackPressure.awaitThenThrow(Duration.ofSeconds(10),
            () -> new BackoffIdleStrategy(100, 100, 1_000, 1_000_000));
    private Duration claimTimeout = RingBuffer.DEFAULT_CLAIM_TIMEOUT;
    private Duration blockedClaimTimeout = RingBuffer.DEFAULT_BLOCKED_CLAIM_TIMEOUT;
    private int drainBatch = DEFAULT_DRAIN_BATCH;
    private Supplier<IdleStrategy> drainerIdleStrategy;
    private int hotThreads = DEFAULT_HOT_THREADS;
    private int availableProcessors = Runtime.getRuntime().availableProcessors();
    private boolean pinDrainer;
    private DrainHook drainHook = DrainHook.NONE;
    /** Null: a quarter of the capacity. */
    private Integer ringReserve;
    /** The diagnostic drain stall's period and length, or null. */
    private Duration stallPeriod;
    private Duration stall;
    private Set<PosixFilePermission> ringFileMode = SpoolQueueBuilder.DEFAULT_FILE_MODE;
    private boolean registerMBean;
    /** For tests: null for the queue's. */

    AsyncQueueBuilder(final SpoolQueue queue, final SpoolQueueBuilder queueBuilder) {
        this.queue = queue;
        this.queueBuilder = queueBuilder;
    }

    /**
     * @param ringPath the ring file; default {@code /dev/shm/spool-<queue id>.ring}, or the same name in
     *                 {@code java.io.tmpdir} where there is no {@code /dev/shm}. Off tmpfs, the ring's pages are
     *                 written back to disk like the queue's, and the stalls it exists to hide come back.
     * @return this builder.
     */
    public AsyncQueueBuilder ringPath(final Path ringPath) {
        this.ringPath = ringPath;
        return this;
    }

    /**
     * @param ringFileMode the permissions of the ring file and its {@code .lock} when this builder creates them, set
     *                     exactly whatever the umask; the owner must read and write, nobody execute. The lock file gets
     *                     read and write only for the classes that may write. Default
     *                     {@link SpoolQueueBuilder#DEFAULT_FILE_MODE}; checked at {@link #build()}.
     * @return this builder.
     */
    public AsyncQueueBuilder ringFileMode(final Set<PosixFilePermission> ringFileMode) {
        this.ringFileMode = ringFileMode;
        return this;
    }

    /**
     * Registers the ring's {@link RingMXBean} with the platform MBean server as
     * {@code dev.spool:type=Ring,name="<ring path>"} when the async queue opens, and unregisters it when it closes.
     * The queue's own MBean is the queue builder's choice ({@code SpoolQueueBuilder.registerMBean()}).
     *
     * @return this builder.
     */
    public AsyncQueueBuilder registerMBean() {
        this.registerMBean = true;
        return this;
    }

    /**
     * @param ringCapacity bytes of records in the ring, a power of two from 4 KiB to 1 GiB; default 8 MiB. The file
     *                     takes twice that (records and index journal). A record holds at most an eighth of it.
     * @return this builder.
     */
    public AsyncQueueBuilder ringCapacity(final int ringCapacity) {
        this.ringCapacity = ringCapacity;
        return this;
    }

    /**
     * @param ringReserve bytes of drained records the drainer keeps in the ring before it gives their space back to
     *                    the appenders, so that a ring reader up to that far behind the drainer reads on from the ring
     *                    instead of moving to the queue; from 0 to half the capacity, default a quarter of it. The
     *                    appenders then have the capacity less the reserve for records not yet drained.
     * @return this builder.
     */
    public AsyncQueueBuilder ringReserve(final int ringReserve) {
        this.ringReserve = ringReserve;
        return this;
    }

    /**
     * @param backPressure what an appender does when the ring is full; default
     *                     {@link BackPressure#awaitThenThrow awaitThenThrow(10 s, backoff)}.
     * @return this builder.
     */
    public AsyncQueueBuilder backPressure(final BackPressure backPressure) {
        this.backPressure = backPressure;
        return this;
    }

    /**
     * @param claimTimeout how long a live producer's claim may stay uncommitted before the drainer revokes it; a
     *                     dead producer's claim is revoked at once. Default 10 s.
     * @return this builder.
     */
    public AsyncQueueBuilder claimTimeout(final Duration claimTimeout) {
        this.claimTimeout = claimTimeout;
        return this;
    }

    /**
     * @param blockedClaimTimeout how long the drainer waits at a claim whose header was never written (its producer
     *                            died or stalled in the few instructions between taking the space and writing the
     *                            header) before it turns the space into padding and moves on; a live producer that
     *                            stalled there claims again. Default 1 s.
     * @return this builder.
     */
    public AsyncQueueBuilder blockedClaimTimeout(final Duration blockedClaimTimeout) {
        this.blockedClaimTimeout = blockedClaimTimeout;
        return this;
    }

    /**
     * @param drainBatch the most records the drainer copies before it moves the ring's head; default 1024.
     * @return this builder.
     */
    public AsyncQueueBuilder drainBatch(final int drainBatch) {
        this.drainBatch = drainBatch;
        return this;
    }

    /**
     * @param hotThreads the application's threads that spin and must not be preempted, the appenders and readers of
     *                   the ring; default {@value #DEFAULT_HOT_THREADS}. With no CPU beyond them, the drainer's own
     *                   thread is a low-duty one that parks 1 ms after every batch that was not full; with one to
     *                   spare, it is a dedicated thread that backs off from spinning to parking. See
     *                   {@link AsyncQueue#startDrainer()}.
     * @return this builder.
     */
    public AsyncQueueBuilder hotThreads(final int hotThreads) {
        this.hotThreads = hotThreads;
        return this;
    }

    /**
     * @param drainerIdleStrategy makes the idle strategy of the drainer's own thread, instead of the default for the
     *                            machine's cores ({@link #hotThreads(int)}): Agrona's
     *                            {@link BusySpinIdleStrategy} for the lowest latency on a core of its own, a
     *                            backoff, yielding or sleeping one for less CPU. Called once per started drainer.
     * @return this builder.
     */
    public AsyncQueueBuilder drainerIdleStrategy(final Supplier<IdleStrategy> drainerIdleStrategy) {
        this.drainerIdleStrategy = drainerIdleStrategy;
        return this;
    }

    /**
     * @param pinDrainer whether the drainer's own thread holds a core of its own, through OpenHFT's
     *                   {@code AffinityLock} (net.openhft:affinity): a reserved CPU if the kernel has any
     *                   ({@code isolcpus}), else a CPU no other affinity lock holds. Default false. Useful only with
     *                   a core to spare; with a busy-spinning idle strategy, that core is the drainer's alone.
     * @return this builder.
     */
    public AsyncQueueBuilder pinDrainer(final boolean pinDrainer) {
        this.pinDrainer = pinDrainer;
        return this;
    }

    /**
     * For tests only: the CPU count the default drainer threading is chosen for, instead of the JVM's.
     *
     * @param availableProcessors the CPUs to assume.
     * @return this builder.
     */
    AsyncQueueBuilder availableProcessors(final int availableProcessors) {
        this.availableProcessors = availableProcessors;
        return this;
    }

    /**
     * Diagnostic only, never for production: makes the drainer stall for {@code stall} once every {@code period},
     * part-way through a batch (after a record's append into the queue, before the batch's drained snapshot), as a
     * write-back or journal stall of the queue's files would. For measuring what appenders and ring readers see
     * while the drainer is stuck, as the benchmarks' {@code ring-stall} variant does.
     *
     * @param period how often the drainer stalls, from the end of one stall to the start of the next.
     * @param stall  how long each stall lasts.
     * @return this builder.
     */
    public AsyncQueueBuilder diagnosticDrainStall(final Duration period, final Duration stall) {
        this.stallPeriod = period;
        this.stall = stall;
        return this;
    }

    /**
     * For tests only: the hook the drainer calls at the points of its batch, {@link DrainHook#NONE} unless set.
     *
     * @param drainHook the hook.
     * @return this builder.
     */
    AsyncQueueBuilder drainHook(final DrainHook drainHook) {
        this.drainHook = drainHook;
        return this;
    }

    /**
     * Opens the ring, and the queue if this builder was given its directory or its builder: the async queue then
     * owns the queue, closes it, and offers {@link AsyncQueue#createTailer()}. Either way the drainer puts each record
     * in the cycle of its claim time, never earlier than the record before.
     *
     * @return the async queue.
     */
    public AsyncQueue build() {
        validate();
        if (queue != null) {
            return new AsyncQueue(queue, false, conclude(queue));
        }
        final SpoolQueue target = queueBuilder.openOrCreate();
        try {
            return new AsyncQueue(target, true, conclude(target));
        } catch (RuntimeException e) {
            target.close();
            throw e;
        }
    }

    /**
     * Checks the options that the ring's own opening does not (the capacity and the claim timeouts are checked there,
     * naming the ring), naming the option and the value of the first that is wrong, before anything is opened.
     */
    private void validate() {
        require(ringReserve == null || ringReserve >= 0, "ringReserve", ringReserve, "must not be negative");
        require(ringReserve == null || ringReserve <= ringCapacity / 2, "ringReserve", ringReserve,
                "is more than half the ring's capacity=" + ringCapacity);
        require(drainBatch >= 1, "drainBatch", drainBatch, "must be positive");
        require(hotThreads >= 0, "hotThreads", hotThreads, "must not be negative");
        require(backPressure != null, "backPressure", null, "must not be null");
        require(claimTimeout != null, "claimTimeout", null, "must not be null");
        require(blockedClaimTimeout != null, "blockedClaimTimeout", null, "must not be null");
        require(stallPeriod == null || !stallPeriod.isNegative() && !stall.isNegative(), "diagnosticDrainStall",
                stallPeriod + ", " + stall, "must not be negative");
    }

    private static void require(final boolean valid, final String option, final Object value, final String rule) {
        if (!valid) {
            throw new SpoolException("async queue: " + option + "=" + value + " " + rule);
        }
    }

    /**
     * The conclude step: resolves the defaults that depend on the queue (the ring's path, the reserve), takes the
     * queue's clocks, and makes the one immutable configuration that the async queue reads from then on.
     *
     * @param target the open queue the ring drains into.
     * @return the configuration.
     */
    AsyncQueueConfig conclude(final SpoolQueue target) {
        final QueueInternals internals = target.unwrap(QueueInternals.class);
        final NanoClock queueNanoClock = internals.nanoClock();
        final DrainHook hook = stallPeriod != null
                ? new PeriodicDrainStall(stallPeriod.toNanos(), stall.toNanos(), queueNanoClock) : drainHook;
        return new AsyncQueueConfig(ringPath(target), ringCapacity,
                ringFileMode == null ? null : Set.copyOf(ringFileMode), registerMBean, backPressure, claimTimeout,
                blockedClaimTimeout, drainBatch, ringReserve == null ? ringCapacity / 4 : ringReserve,
                new DrainerThreading(availableProcessors, hotThreads, pinDrainer, drainerIdleStrategy,
                        internals.threadFactory()),
                hook, internals.epochClock(), queueNanoClock, internals.errorHandler());
    }

    private Path ringPath(final SpoolQueue target) {
        if (ringPath != null) {
            return ringPath;
        }
        final Path directory = Files.isDirectory(DEFAULT_RING_DIRECTORY) ? DEFAULT_RING_DIRECTORY
                : Path.of(System.getProperty("java.io.tmpdir"));
        return directory.resolve("spool-" + target.queueId() + ".ring");
    }
}
