package dev.spool.queue;

import dev.spool.queue.engine.QueueEngine;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.ChronicleDefaults;
import dev.spool.queue.internal.MBeans;
import dev.spool.queue.internal.QueueConfig;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CompositeAgent;

import javax.management.ObjectName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A persisted queue: a directory holding a metadata file and one memory-mapped cycle file per roll period.
 * Appenders and tailers of any thread or process share it; see {@link ExcerptAppender} and {@link ExcerptTailer}.
 * <pre>{@code
 * try (SpoolQueue queue = SpoolQueue.openOrCreate(Path.of("/data/orders"));
 *      ExcerptAppender appender = queue.createAppender();
 *      ExcerptTailer tailer = queue.createTailer()) {
 *     long index = appender.append("hello".getBytes(StandardCharsets.UTF_8));
 *     tailer.read((bytes, offset, length, at) -> System.out.println(at + ": " + bytes.toString()));
 * }
 * }</pre>
 * The instance is thread-safe; the appenders and tailers it creates each belong to one thread at a time.
 * <p>
 * Background duties are Agrona {@link Agent}s: the {@link Pretoucher}, the {@link GroupCommit} syncer and the
 * {@linkplain #createRetention() retention agent}. Each runs on an {@link AgentRunner} of the caller's with the
 * idle strategy of its choice, several on one thread in a {@link CompositeAgent}, or from the caller's own duty
 * cycle ({@link Agent#doWork()} or an {@link AgentInvoker}); {@link #startPretoucher(Duration)} and
 * {@link #startGroupCommit()} start one on a thread of its own, made by the builder's
 * {@link SpoolQueueBuilder#threadFactory thread factory} (daemon threads by default). None is started unless asked for.
 */
public final class SpoolQueue implements AutoCloseable {
    static {
        // before any Chronicle class loads: it reads these once
        ChronicleDefaults.apply();
    }

    private final QueueEngine engine;
    /** The name this instance's MBean is registered under, or null. */
    private final ObjectName mbeanName;

    private SpoolQueue(final QueueEngine engine, final ObjectName mbeanName) {
        this.engine = engine;
        this.mbeanName = mbeanName;
    }

    /**
     * @param directory the queue's directory.
     * @return a builder of the queue's settings.
     */
    public static SpoolQueueBuilder builder(final Path directory) {
        return new SpoolQueueBuilder(directory);
    }

    /**
     * Opens the existing queue in {@code directory}, with the settings persisted at its creation.
     *
     * @param directory the queue's directory.
     * @return the opened queue.
     * @throws SpoolException naming the path if the directory does not exist or holds no queue: a mistyped path
     *                        fails here rather than giving a consumer an empty queue to wait on.
     */
    public static SpoolQueue open(final Path directory) {
        return builder(directory).open();
    }

    /**
     * Creates a new queue in {@code directory} with default settings; {@link #builder(Path)} gives others.
     *
     * @param directory an absent or empty directory.
     * @return the new queue, open.
     * @throws SpoolException if a queue exists there already, or the directory holds other files.
     */
    public static SpoolQueue create(final Path directory) {
        return builder(directory).create();
    }

    /**
     * Opens the queue in {@code directory}, or creates it with default settings if there is none.
     *
     * @param directory the queue's directory.
     * @return the opened queue.
     */
    public static SpoolQueue openOrCreate(final Path directory) {
        return builder(directory).openOrCreate();
    }

    static SpoolQueue open(final QueueConfig config) {
        JvmFlags.check();
        final QueueEngine engine = QueueEngine.open(config);
        if (!config.registerMBean()) {
            return new SpoolQueue(engine, null);
        }
        try {
            return new SpoolQueue(engine, MBeans.register("Queue", engine.directory().toString(), engine.metrics(),
                    QueueMXBean.class));
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
    }

    /**
     * @return this instance's metrics, read live; the same values its MBean shows. Safe to read from a metrics
     * thread while the queue closes; see {@link QueueMXBean} for what a read after close does.
     */
    public QueueMXBean metrics() {
        return engine.metrics();
    }

    /** @return a new appender with the queue's sync policy, to be used by one thread at a time and closed when done. */
    public ExcerptAppender createAppender() {
        return engine.createAppender();
    }

    /**
     * @param syncPolicy when this appender flushes to disk, instead of the queue's policy.
     * @return a new appender, to be used by one thread at a time and closed when done.
     */
    public ExcerptAppender createAppender(final SyncPolicy syncPolicy) {
        return engine.createAppender(syncPolicy);
    }

    /**
     * @param directory a directory.
     * @return true if it holds a queue's metadata file.
     */
    public static boolean exists(final Path directory) {
        return Files.exists(directory.resolve(MetadataDescriptor.FILE_NAME));
    }

    /** @return a new tailer positioned before the first excerpt. */
    public ExcerptTailer createTailer() {
        return engine.createTailer();
    }

    /**
     * A named tailer in {@link CommitMode#ON_READ}: each read persists its index in the queue's metadata, and a
     * tailer created later with the same name, in this process or another, resumes after it. At-least-once: a
     * process that dies inside {@link ExcerptTailer#read(ExcerptHandler)}'s handler reads that excerpt again; see
     * {@link CommitMode#ON_READ} for the copying read.
     *
     * @param name 1 to 48 UTF-8 bytes.
     * @return a tailer positioned after the last excerpt read under that name, or at the start.
     * @throws SpoolException if the name is empty or too long, or the metadata has no room for another name.
     */
    public ExcerptTailer createTailer(final String name) {
        return engine.createTailer(name, CommitMode.ON_READ);
    }

    /**
     * A named tailer that persists its position as {@code mode} says: with {@link CommitMode#EXPLICIT} only
     * {@link ExcerptTailer#commit(long)} moves it, for a consumer that hands excerpts off and commits each once it
     * is done with it; a tailer of that name created later, after a crash too, resumes after the last commit.
     *
     * @param name 1 to 48 UTF-8 bytes.
     * @param mode when the position persists.
     * @return a tailer positioned after the last excerpt committed under that name, or at the start.
     * @throws SpoolException if the name is empty or too long, or the metadata has no room for another name.
     */
    public ExcerptTailer createTailer(final String name, final CommitMode mode) {
        return engine.createTailer(name, mode);
    }

    /**
     * Forgets a named tailer that is no longer read, in any process: its position is dropped and it no longer keeps
     * cycles from retention ({@link SpoolQueueBuilder#retainForNamedTailers(boolean)}). A tailer created later with
     * the name starts at the beginning. Only for a name no process has a tailer of: a tailer of another process
     * would go on writing its position into an entry that a new name may reuse.
     *
     * @param name the tailer's name.
     * @return true if a named tailer of that name was removed, false if there was none.
     * @throws SpoolException if a tailer of that name is open in this queue instance.
     */
    public boolean removeTailer(final String name) {
        return engine.removeTailer(name);
    }

    /**
     * Creates a pretoucher, an agent for a runner or duty cycle of the caller's choosing to run, with the
     * builder's {@link SpoolQueueBuilder#pretouchLength(long)} and {@link SpoolQueueBuilder#pretouchLeadTime(Duration)}.
     * Stop that runner before closing the queue.
     *
     * @return a new pretoucher, to be used by one thread at a time and closed when done.
     */
    public Pretoucher createPretoucher() {
        return engine.createPretoucher();
    }

    /**
     * Starts a thread of the builder's thread factory, {@value Pretoucher#THREAD_NAME}: an {@link AgentRunner} that
     * runs a new pretoucher's {@link Pretoucher#doWork()} and sleeps {@code period} whenever it had nothing to do,
     * until the pretoucher or the queue is closed. A failure goes to the builder's error handler (logged as an error
     * by default) and the next run tries again; the writers go on without it meanwhile.
     *
     * @param period the time between two runs: shorter than the builder's pretouch lead time, and short enough
     *               that the writer does not outrun the pretouched pages in between.
     * @return the running pretoucher; close it to stop the thread, and do not call its {@code doWork()}.
     */
    public Pretoucher startPretoucher(final Duration period) {
        return engine.startPretoucher(period);
    }

    /**
     * Deletes the files of old cycles now, as a roll does, according to the builder's
     * {@link SpoolQueueBuilder#retainCycles(int)} and {@link SpoolQueueBuilder#retainBytes(long)}: never the highest
     * cycle nor a file past it, never a file open in this queue instance, and not a cycle a named tailer has not
     * passed unless {@link SpoolQueueBuilder#retainForNamedTailers(boolean)} is false. Deletion goes from the
     * oldest file and stops at the first that must stay. A tailer of another process reading a deleted file reads
     * it to its end and then moves on to the next file that exists.
     *
     * @return the number of files deleted; 0 if no retention limit is set.
     */
    public int applyRetention() {
        return engine.applyRetention();
    }

    /**
     * Creates the retention agent of this instance: from now on an appender's roll only raises a flag, and the
     * agent's {@link Agent#doWork()} deletes the old files as {@link #applyRetention()} does, on the runner or duty
     * cycle the caller chooses, so that the appender that rolls does not wait for the deletions. Its first run
     * applies retention once; later runs do nothing until a roll. Closing it (its runner or invoker closes it) hands
     * retention back to the rolls. Without one, the appender that rolls deletes the files itself.
     *
     * @return the agent, whose {@link Agent#doWork()} returns the number of files deleted.
     * @throws SpoolException if this instance has an open retention agent already.
     */
    public Agent createRetention() {
        return engine.createRetention();
    }

    /** @return the queue's directory. */
    public Path directory() {
        return engine.directory();
    }

    /** @return the roll cycle persisted for this queue. */
    public RollCycle rollCycle() {
        return engine.rollCycle();
    }

    /** @return the time cycle 0 starts, in ms since 1970. */
    public long epochMillis() {
        return engine.epochMillis();
    }

    /** @return the random identity given to the queue when it was created. */
    public UUID queueId() {
        return engine.queueId();
    }

    /**
     * Repairs this queue from a copy of it (a replica's directory, a backup), opened read-only or not: finds the
     * excerpts whose CRC32C fails and the data headers no writer produces, and rewrites each in place with the copy's
     * body of the same index when that body passes its own CRC32C and has exactly the stored length (for a bad
     * header: when the bytes after it are exactly that body; for an index entry: when the excerpt it should point at
     * is the copy's). If any damage a scan finds cannot be proven right, the repair is refused and nothing the scan
     * found is written; a bad header hides the damage after it in its cycle until it is repaired, so a refusal of what
     * only a later scan finds says what was rewritten before it. The writes go through a journal in the queue's directory: a crash leaves each excerpt
     * as it was or repaired, and the next writer to open the queue finishes the repair. A reader of a damaged excerpt
     * throws its checksum mismatch until the repair is done, and reads the original bytes after. Reads every excerpt
     * of the queue: an operator's call, not for a hot path. See docs/operations/troubleshooting.md, "Damaged files".
     *
     * @param copy another copy of this queue (the same queue id).
     * @return the number of regions rewritten (bodies and headers); 0 if nothing the checksums prove was damaged.
     * @throws RepairRefusedException naming the index range and why, if a range cannot be proven right, or the queue
     *                                was created without checksums.
     * @throws SpoolException         if this queue was opened read-only or is closed, or {@code copy} is another queue.
     */
    public long repairFrom(final SpoolQueue copy) {
        return engine.repairFrom(copy.engine, -1, -1);
    }

    /**
     * Repairs the excerpts of {@code fromIndex} to {@code toIndex} from a copy of this queue, as
     * {@link #repairFrom(SpoolQueue)} does every damaged range.
     *
     * @param copy      another copy of this queue (the same queue id).
     * @param fromIndex the first index to repair.
     * @param toIndex   the last index to repair, inclusive.
     * @return the number of regions rewritten; 0 if nothing in the range was damaged.
     * @throws RepairRefusedException naming the range and why, if it cannot be proven right; nothing is written then.
     * @throws SpoolException         if this queue was opened read-only or is closed, or {@code copy} is another queue.
     */
    public long repairFrom(final SpoolQueue copy, final long fromIndex, final long toIndex) {
        if (fromIndex < 0 || toIndex < fromIndex) {
            throw new RepairRefusedException(fromIndex, toIndex, "repair of " + fromIndex + ".." + toIndex
                    + " refused: not a range of indices; nothing was written");
        }
        return engine.repairFrom(copy.engine, fromIndex, toIndex);
    }

    /**
     * @return true if the queue was created with {@link SpoolQueueBuilder#checksums(boolean) checksums}: every
     * excerpt carries a CRC32C of its payload.
     */
    public boolean checksums() {
        return engine.checksums();
    }

    /**
     * @return true if the queue was created with {@link SpoolQueueBuilder#publisherIds(boolean) publisher ids}: every
     * excerpt carries its publisher's id and sequence, so a publish gateway writes a publish sent again only once.
     */
    public boolean publisherIds() {
        return engine.publisherIds();
    }

    /** @return the longest payload an appender accepts. */
    public int maxMessageLength() {
        return engine.maxMessageLength();
    }

    /**
     * @return the most excerpts one cycle can hold: the smaller of the index format's sequence bits and what the
     * sparse index can address ({@code 2^15 blocks * entries per block * index spacing}).
     */
    public long cycleCapacity() {
        return engine.cycleCapacity();
    }

    /** @return the index of the first excerpt, or -1 if the queue is empty. */
    public long firstIndex() {
        return engine.firstIndex();
    }

    /** @return the index of the last excerpt, or -1 if the queue is empty. */
    public long lastIndex() {
        return engine.lastIndex();
    }

    /**
     * @return the last index known to be on disk: every excerpt up to it has been flushed with msync by some
     * appender, in any process; -1 if none.
     */
    public long lastSyncedIndex() {
        return engine.lastSyncedIndex();
    }

    /**
     * Waits, parking between checks, until {@code index} is on disk; works for syncs done in other processes.
     *
     * @param index   the index to wait for.
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true if {@code index} is on disk, false on timeout.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    public boolean awaitSynced(final long index, final long timeout, final TimeUnit unit) throws InterruptedException {
        return engine.awaitSynced(index, timeout, unit);
    }

    /**
     * @return a group commit on its own thread of the builder's thread factory, {@code spool-group-commit}, an
     * {@link AgentRunner} that parks 1 ms at a time while idle and is woken by a new waiter; a failure goes to the
     * builder's error handler; close it before the queue.
     */
    public GroupCommit startGroupCommit() {
        return engine.startGroupCommit();
    }

    /** @return a group commit whose {@link GroupCommit#doWork()} the caller runs: on a runner, or in its own duty cycle. */
    public GroupCommit createGroupCommit() {
        return engine.createGroupCommit();
    }

    /**
     * @return every cycle that has a file, ascending; the last may be a cycle whose file a {@link Pretoucher} created
     * ahead of its roll, which holds nothing yet.
     */
    public long[] cycles() {
        return engine.cycles();
    }

    /** @return the names of the named tailers this queue has seen. */
    public List<String> tailerNames() {
        return engine.tailerNames();
    }

    /**
     * Closes every appender, tailer and pretoucher of this instance (stopping a pretoucher's thread) and unmaps the
     * files. Reads of the getters and {@link #metrics()} that other threads have in progress finish first; after
     * close, every method that would read or write the files throws a {@link SpoolException} saying the queue is
     * closed, and so do its appenders and tailers. The settings fixed at open ({@link #directory()},
     * {@link #rollCycle()}, {@link #checksums()}...) still answer. Stop the threads that use the appenders and
     * tailers first: each belongs to one thread, and closing it under that thread's feet is a race.
     */
    @Override
    public void close() {
        if (mbeanName != null && !engine.isClosed()) {
            MBeans.unregister(mbeanName);
        }
        engine.close();
    }

    /** @return true once {@link #close()} has run. */
    public boolean isClosed() {
        return engine.isClosed();
    }

    /**
     * For Spool's own modules (the ring buffer, replication): returns the implementation's view of the given type,
     * an interface the queue's implementation implements (or this queue's own class), as JDBC's
     * {@code Wrapper.unwrap} does. What types there are, and what they do, carries no promise of
     * compatibility between versions.
     *
     * @param type the type of the view.
     * @param <T>  the type of the view.
     * @return this queue's implementation of {@code type}.
     * @throws SpoolException naming the type if this queue does not implement it.
     */
    public <T> T unwrap(final Class<T> type) {
        // the interfaces the engine implements are the views; its class stays the facade's business
        if (type.isInterface() && type.isInstance(engine)) {
            return type.cast(engine);
        }
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SpoolException("queue " + engine.directory() + " does not implement " + type.getName());
    }
}
