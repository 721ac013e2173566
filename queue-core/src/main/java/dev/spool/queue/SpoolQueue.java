package dev.spool.queue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A persisted queue: a directory holding a metadata file and one memory-mapped cycle file per roll period.
 * Appenders and tailers of any thread or process share it; see {@link ExcerptAppender} and {@link ExcerptTailer}.
 * <pre>{@code
 * try (SpoolQueue queue = SpoolQueue.open(Path.of("/data/orders"));
 *      ExcerptAppender appender = queue.createAppender();
 *      ExcerptTailer tailer = queue.createTailer()) {
 *     long index = appender.append("hello".getBytes(StandardCharsets.UTF_8));
 *     tailer.read((bytes, offset, length, at) -> System.out.println(at + ": " + bytes.toString()));
 * }
 * }</pre>
 * The instance is thread-safe; the appenders and tailers it creates each belong to one thread at a time.
 */
public final class SpoolQueue implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SpoolQueue.class);
    private final Path directory;
    private final MetadataFile metadata;
    private final CycleFiles cycleFiles;
    private final RollCycle rollCycle;
    private final long epochMillis;
    private final TimeProvider timeProvider;
    private final int maxMessageLength;
    private final SpoolQueueBuilder.PauseStrategyFactory pauseStrategy;
    private final RollClock rollClock;
    private final SyncPolicy syncPolicy;
    private final boolean syncMarkers;
    private final long pretouchLength;
    private final Duration pretouchLeadTime;
    private final Retention retention;
    private final Map<Object, Boolean> users = new IdentityHashMap<>();
    private final Doorbell.Group appends = new Doorbell.Group();
    private final Doorbell.Group acks = new Doorbell.Group();
    private ProcessSlots processSlots;
    private int processSlot = -1;
    private WriteLock writeLock;
    private boolean closed;

    private SpoolQueue(final Path directory, final MetadataFile metadata, final SpoolQueueBuilder builder) {
        this.directory = directory;
        this.metadata = metadata;
        this.rollCycle = metadata.rollCycle();
        this.epochMillis = metadata.epochMillis();
        this.maxMessageLength = metadata.maxMessageLength();
        this.timeProvider = builder.timeProvider();
        this.pauseStrategy = builder.pauseStrategy();
        this.cycleFiles = new CycleFiles(directory, rollCycle, epochMillis, metadata.chunkLength(), builder.cycleListener());
        this.syncPolicy = builder.syncPolicy();
        this.syncMarkers = builder.syncMarkers();
        this.pretouchLength = builder.pretouchLength();
        this.pretouchLeadTime = builder.pretouchLeadTime();
        if (syncPolicy.needsMsync()) {
            Msync.checkAvailable(syncPolicy.toString());
        }
        this.retention = new Retention(this, builder.retainCycles(), builder.retainBytes(), builder.retainForNamedTailers(),
                builder.cycleListener());
        this.rollClock = timeProvider == TimeProvider.SYSTEM ? RollClock.acquire(rollCycle, epochMillis) : null;
    }

    /**
     * @param directory the queue's directory.
     * @return a builder of the queue's settings.
     */
    public static SpoolQueueBuilder builder(final Path directory) {
        return new SpoolQueueBuilder(directory);
    }

    /**
     * Opens the queue in {@code directory}, creating it with default settings if it does not exist.
     *
     * @param directory the queue's directory.
     * @return the opened queue.
     */
    public static SpoolQueue open(final Path directory) {
        return builder(directory).build();
    }

    static SpoolQueue open(final SpoolQueueBuilder builder) {
        JvmFlags.check();
        final Path directory = builder.directory().toAbsolutePath().normalize();
        final Path metadataPath = directory.resolve(MetadataDescriptor.FILE_NAME);
        final MetadataFile metadata;
        if (Files.exists(metadataPath)) {
            metadata = MetadataFile.open(metadataPath);
        } else {
            if (!builder.createIfAbsent()) {
                throw new SpoolException("no queue at " + directory + ": " + MetadataDescriptor.FILE_NAME + " is missing");
            }
            if (Files.exists(directory) && !Files.isDirectory(directory)) {
                throw new SpoolException("not a Spool queue: " + directory + " is a file, not a directory");
            }
            final List<Path> strangers = contents(directory);
            if (!strangers.isEmpty()) {
                throw new SpoolException("not a Spool queue: " + directory + " has no " + MetadataDescriptor.FILE_NAME
                        + " but holds " + strangers.size() + " other files, e.g. " + strangers.get(0).getFileName());
            }
            final MetadataFile.Settings settings = builder.newQueueSettings();
            try {
                Files.createDirectories(directory);
            } catch (IOException e) {
                throw new SpoolException("cannot create queue directory " + directory + ": " + e.getMessage(), e);
            }
            metadata = MetadataFile.createIfAbsent(directory, settings);
        }
        try {
            builder.checkAgainst(metadata);
            checkCycleFiles(directory, metadata);
            return new SpoolQueue(directory, metadata, builder);
        } catch (RuntimeException e) {
            metadata.close();
            throw e;
        }
    }

    /**
     * The metadata's roll cycle, epoch and highest cycle decide which files readers find: damage there would hide
     * cycles from them without a word. Every cycle file must be named for the roll cycle and epoch, and none past
     * the highest cycle may hold excerpts (a writer records a cycle as the highest before it appends there; a
     * pretoucher's file ahead of the roll holds none).
     */
    private static void checkCycleFiles(final Path directory, final MetadataFile metadata) {
        final RollCycle rollCycle = metadata.rollCycle();
        final long epochMillis = metadata.epochMillis();
        final long highest = metadata.highestCycle();
        if (highest < -1 || highest > rollCycle.toCycle(Long.MAX_VALUE)) {
            throw new CorruptQueueException(metadata.path(), MetadataDescriptor.HIGHEST_CYCLE_OFFSET, "highest cycle="
                    + highest + " is outside what roll cycle " + rollCycle + " can index");
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + RollCycle.FILE_SUFFIX)) {
            for (final Path file : files) {
                final long cycle = rollCycle.parseCycle(file.getFileName().toString(), epochMillis);
                if (cycle < 0) {
                    throw new CorruptQueueException(metadata.path(), MetadataDescriptor.ROLL_CYCLE_OFFSET, "cycle file "
                            + file + " is not named for roll cycle " + rollCycle + " and epoch=" + epochMillis
                            + ": the roll cycle or epoch recorded here is damaged, or the file is not this queue's");
                }
                final long hint;
                // a writer of another process may have just started that cycle: it records it before appending there
                if (cycle > highest && (hint = CycleFile.readHint(file)) != CycleDescriptor.DATA_OFFSET
                        && cycle > metadata.highestCycle()) {
                    throw new CorruptQueueException(metadata.path(), MetadataDescriptor.HIGHEST_CYCLE_OFFSET,
                            "highest cycle=" + highest + " but " + file + " of cycle " + cycle + " holds excerpts (write"
                                    + " position=" + hint + "): the highest cycle recorded here is damaged");
                }
            }
        } catch (IOException e) {
            throw new SpoolException("cannot list " + directory + ": " + e.getMessage(), e);
        }
    }

    private static List<Path> contents(final Path directory) {
        final List<Path> files = new ArrayList<>();
        if (Files.isDirectory(directory)) {
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
                for (final Path file : stream) {
                    if (!file.getFileName().toString().endsWith(".tmp")) {
                        files.add(file);
                    }
                }
            } catch (IOException e) {
                throw new SpoolException("cannot list " + directory + ": " + e.getMessage(), e);
            }
        }
        return files;
    }

    /** @return a new appender with the queue's sync policy, to be used by one thread at a time and closed when done. */
    public ExcerptAppender createAppender() {
        return createAppender(syncPolicy);
    }

    /**
     * @param syncPolicy when this appender flushes to disk, instead of the queue's policy.
     * @return a new appender, to be used by one thread at a time and closed when done.
     */
    public ExcerptAppender createAppender(final SyncPolicy syncPolicy) {
        if (syncPolicy.needsMsync()) {
            Msync.checkAvailable(syncPolicy.toString());
        }
        synchronized (users) {
            checkOpen();
            final int role = metadata.role();
            if (role == MetadataDescriptor.ROLE_REPLICA) {
                throw new IllegalStateException("queue " + directory + " is a replica of queue id " + queueId()
                        + ": local appends are refused; its excerpts arrive by replication, or promote() it first");
            }
            if (role == MetadataDescriptor.ROLE_FENCED) {
                throw new IllegalStateException("queue " + directory + " was fenced by term " + metadata.fencedByTerm()
                        + " (its term is " + metadata.term() + "): another queue is the primary now, appends are refused");
            }
            final StoreAppender appender = new StoreAppender(this, syncPolicy);
            users.put(appender, Boolean.TRUE);
            return appender;
        }
    }

    /**
     * @return a new appender that writes excerpts at given indices, for the replication sink; the queue's sync
     * policy applies to it.
     * @throws IllegalStateException unless the queue is a {@link QueueRole#REPLICA}.
     */
    public ReplicaAppender createReplicaAppender() {
        synchronized (users) {
            checkOpen();
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA) {
                throw new IllegalStateException("queue " + directory + " is a " + role() + " queue, not a replica:"
                        + " only a replica is written at given indices");
            }
            final StoreAppender appender = new StoreAppender(this, syncPolicy);
            users.put(appender, Boolean.TRUE);
            return new ReplicaAppender(appender);
        }
    }

    /**
     * @param directory a directory.
     * @return true if it holds a queue's metadata file.
     */
    public static boolean exists(final Path directory) {
        return Files.exists(directory.resolve(MetadataDescriptor.FILE_NAME));
    }

    /** @return who may append to this queue, as persisted now. */
    public QueueRole role() {
        return QueueRole.of(metadata.role());
    }

    /** @return the number of promotions in this queue's history: 0 until a replica of it is first promoted. */
    public long term() {
        return metadata.term();
    }

    /**
     * @return the highest index a replica acknowledged, as recorded by this queue's replication source (in any
     * process), or -1 if none.
     */
    public long lastAckedIndex() {
        return metadata.lastAckedIndex();
    }

    /**
     * Records that a replica acknowledged every excerpt up to {@code index}, unless a later index is recorded
     * already. Called by the replication source; readable by other processes through {@link #lastAckedIndex()}.
     *
     * @param index the highest acknowledged index.
     */
    public void recordAcked(final long index) {
        metadata.advanceLastAckedIndex(index);
        acks.ring();
    }

    /**
     * @param wake run on the appending thread after an append through an appender of this instance, while the
     *             doorbell is armed: short and non-blocking, such as {@code selector::wakeup}.
     * @return a doorbell that wakes a thread sleeping until this queue grows; appends made through other instances
     * (another process) ring nothing, so bound the sleep. See {@link Doorbell}.
     */
    public Doorbell appendDoorbell(final Runnable wake) {
        return appends.add(wake);
    }

    /**
     * @param wake run on the thread that calls {@link #recordAcked(long)} on this instance, while the doorbell is
     *             armed: short and non-blocking, such as unparking the waiting thread.
     * @return a doorbell that wakes a thread sleeping until a replica acknowledges more. See {@link Doorbell}.
     */
    public Doorbell ackDoorbell(final Runnable wake) {
        return acks.add(wake);
    }

    /** Rings the append doorbells: called by an appender of this instance after each append. */
    void appended() {
        appends.ring();
    }

    /**
     * Makes this replica the primary of a new term, one more than its current one: local appends continue from its
     * last index, and a former primary of an earlier term is fenced when it meets this queue's term (see
     * {@link #fence(long)}). Stop the replication sink writing to it first.
     *
     * @return the new term.
     * @throws IllegalStateException unless the queue is a {@link QueueRole#REPLICA}.
     */
    public long promote() {
        final WriteLock lock = writeLock();
        lock.lock();
        try {
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA) {
                throw new IllegalStateException("queue " + directory + " is a " + role() + " queue of term " + term()
                        + ": only a replica can be promoted");
            }
            final long term = metadata.term() + 1;
            metadata.promote(term);
            LOG.info("queue {} promoted to primary of term {} at last index {}", directory, term, lastIndex());
            return term;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fences this primary: a primary of the later term {@code byTerm} exists, so new appenders are refused from now
     * on, in every process, and appenders created before the fence throw at their next write (a check under the
     * write lock, on the lock's own cache line).
     *
     * @param byTerm the later term; must exceed {@link #term()}.
     */
    public void fence(final long byTerm) {
        final WriteLock lock = writeLock();
        lock.lock();
        try {
            if (byTerm <= metadata.term()) {
                throw new IllegalArgumentException("queue " + directory + " has term " + metadata.term()
                        + ": term " + byTerm + " cannot fence it");
            }
            metadata.fence(byTerm);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A replica takes the term of the primary it copies when that term is later than its own.
     *
     * @param term the primary's term.
     * @throws IllegalStateException unless the queue is a replica and {@code term} is at least its own.
     */
    public void adoptTerm(final long term) {
        final WriteLock lock = writeLock();
        lock.lock();
        try {
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA || term < metadata.term()) {
                throw new IllegalStateException("queue " + directory + " is a " + role() + " queue of term "
                        + metadata.term() + ": it cannot take term " + term);
            }
            metadata.term(term);
        } finally {
            lock.unlock();
        }
    }

    /** @return a new tailer positioned before the first excerpt. */
    public ExcerptTailer createTailer() {
        synchronized (users) {
            checkOpen();
            final StoreTailer tailer = new StoreTailer(this, null, -1, pauseStrategy.create());
            users.put(tailer, Boolean.TRUE);
            tailer.toStart();
            return tailer;
        }
    }

    /**
     * A named tailer persists the last index it read in the queue's metadata, and a tailer created later with the
     * same name, in this process or another, resumes after it.
     *
     * @param name 1 to 48 UTF-8 bytes.
     * @return a tailer positioned after the last excerpt read under that name, or at the start.
     */
    public ExcerptTailer createTailer(final String name) {
        synchronized (users) {
            checkOpen();
            final WriteLock lock = writeLock();
            final int entry;
            lock.lock();
            try {
                entry = metadata.namedTailerEntry(name);
            } finally {
                lock.unlock();
            }
            final long indexOffset = MetadataDescriptor.namedTailerPosition(entry) + MetadataDescriptor.NAMED_TAILER_INDEX_OFFSET;
            final StoreTailer tailer = new StoreTailer(this, name, indexOffset, pauseStrategy.create());
            users.put(tailer, Boolean.TRUE);
            tailer.resume(metadata.readVolatileLong(indexOffset));
            return tailer;
        }
    }

    /**
     * Forgets a named tailer that is no longer read, in any process: its position is dropped and it no longer keeps
     * cycles from retention ({@link SpoolQueueBuilder#retainForNamedTailers(boolean)}). A tailer created later with
     * the name starts at the beginning. Only for a name no process has a tailer of: a tailer of another process
     * would go on writing its position into an entry that a new name may reuse.
     *
     * @param name the tailer's name.
     * @return true if a named tailer of that name was removed, false if there was none.
     * @throws IllegalStateException if a tailer of that name is open in this queue instance.
     */
    public boolean removeTailer(final String name) {
        synchronized (users) {
            checkOpen();
            for (final Object user : users.keySet()) {
                if (user instanceof ExcerptTailer tailer && name.equals(tailer.name())) {
                    throw new IllegalStateException("named tailer '" + name + "' of " + directory
                            + " is open in this queue instance: close it before removing it");
                }
            }
            final WriteLock lock = writeLock();
            lock.lock();
            try {
                return metadata.removeNamedTailer(name);
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Creates a pretoucher for a thread of the caller's choosing to run with {@link Pretoucher#execute()}, with the
     * builder's {@link SpoolQueueBuilder#pretouchLength(long)} and {@link SpoolQueueBuilder#pretouchLeadTime(Duration)}.
     * Stop that thread before closing the queue.
     *
     * @return a new pretoucher, to be used by one thread at a time and closed when done.
     */
    public Pretoucher createPretoucher() {
        synchronized (users) {
            checkOpen();
            final Pretoucher pretoucher = new Pretoucher(this, pretouchLength, pretouchLeadTime, timeProvider);
            users.put(pretoucher, Boolean.TRUE);
            return pretoucher;
        }
    }

    /**
     * Starts a daemon thread, {@value Pretoucher#THREAD_NAME}, that runs a new pretoucher's
     * {@link Pretoucher#execute()} every {@code period} until the pretoucher or the queue is closed. A failure stops
     * the thread and is logged as an error; the writers then go on without it.
     *
     * @param period the time between two runs: shorter than the builder's pretouch lead time, and short enough
     *               that the writer does not outrun the pretouched pages in between.
     * @return the running pretoucher; close it to stop the thread, and do not call its {@code execute()}.
     */
    public Pretoucher startPretoucher(final Duration period) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("period=" + period + " must be positive");
        }
        synchronized (users) {
            final Pretoucher pretoucher = createPretoucher();
            pretoucher.start(period);
            return pretoucher;
        }
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
        synchronized (users) {
            checkOpen();
        }
        return retention.apply();
    }

    /** @return the queue's directory. */
    public Path directory() {
        return directory;
    }

    /** @return the roll cycle persisted for this queue. */
    public RollCycle rollCycle() {
        return rollCycle;
    }

    /** @return the time cycle 0 starts, in ms since 1970. */
    public long epochMillis() {
        return epochMillis;
    }

    /** @return the random identity given to the queue when it was created. */
    public UUID queueId() {
        return metadata.queueId();
    }

    /** @return the longest payload an appender accepts. */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /**
     * @return the most excerpts one cycle can hold: the smaller of the index format's sequence bits and what the
     * sparse index can address ({@code 2^15 blocks * entries per block * index spacing}).
     */
    public long cycleCapacity() {
        return Math.min(rollCycle.maxSequences(),
                (long) CycleDescriptor.ROOT_ENTRIES * metadata.indexBlockEntries() * metadata.indexSpacing());
    }

    /** @return the index of the first excerpt, or -1 if the queue is empty. */
    public long firstIndex() {
        try (ExcerptTailer tailer = createTailer()) {
            return tailer.read(NO_OP) ? tailer.direction(Direction.BACKWARD).index() : -1;
        }
    }

    /** @return the index of the last excerpt, or -1 if the queue is empty. */
    public long lastIndex() {
        try (ExcerptTailer tailer = createTailer()) {
            tailer.direction(Direction.BACKWARD).toEnd();
            return tailer.read(NO_OP) ? tailer.direction(Direction.FORWARD).index() : -1;
        }
    }

    private static final ExcerptHandler NO_OP = (bytes, offset, length, index) -> { };

    /**
     * @return the last index known to be on disk: every excerpt up to it has been flushed with msync by some
     * appender, in any process; -1 if none.
     */
    public long lastSyncedIndex() {
        return metadata.lastSyncedIndex();
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
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        final PauseStrategy pause = PauseStrategy.backoff(0, 10, 1_000, 1_000_000);
        while (metadata.lastSyncedIndex() < index) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while awaiting sync of index " + index + " in " + directory);
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            pause.pause();
        }
        return true;
    }

    /**
     * @return a group commit on its own daemon thread, {@code spool-group-commit}, that parks while idle; close it
     * before the queue.
     */
    public GroupCommit startGroupCommit() {
        return new GroupCommit(this, true);
    }

    /** @return a group commit whose {@link GroupCommit#execute()} the caller runs on a thread of its choice. */
    public GroupCommit createGroupCommit() {
        return new GroupCommit(this, false);
    }

    /**
     * @return every cycle that has a file, ascending; the last may be a cycle whose file a {@link Pretoucher} created
     * ahead of its roll, which holds nothing yet.
     */
    public long[] cycles() {
        return cycleFiles.cycles();
    }

    /** @return the names of the named tailers this queue has seen. */
    public List<String> tailerNames() {
        return metadata.namedTailers();
    }

    /** Closes every appender, tailer and pretoucher of this instance (stopping a pretoucher's thread) and unmaps the files. */
    @Override
    public void close() {
        synchronized (users) {
            if (closed) {
                return;
            }
            for (final Object user : new ArrayList<>(users.keySet())) {
                if (user instanceof ExcerptAppender appender) {
                    appender.close();
                } else if (user instanceof Pretoucher pretoucher) {
                    pretoucher.close();
                } else {
                    ((ExcerptTailer) user).close();
                }
            }
            closed = true;
            if (rollClock != null) {
                rollClock.release();
            }
            cycleFiles.close();
            if (processSlot >= 0) {
                processSlots.free(processSlot);
                processSlots.release();
            }
            metadata.close();
        }
    }

    /** @return true once {@link #close()} has run. */
    public boolean isClosed() {
        synchronized (users) {
            return closed;
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("queue " + directory + " is closed");
        }
    }

    void closed(final Object user) {
        synchronized (users) {
            users.remove(user);
        }
    }

    /** Claims this instance's process slot on first use: readers that never write need none. */
    WriteLock writeLock() {
        synchronized (users) {
            if (writeLock == null) {
                final ProcessSlots slots = ProcessSlots.acquire(directory.resolve(MetadataDescriptor.LOCK_FILE_NAME),
                        MetadataDescriptor.PROCESS_SLOT_COUNT);
                try {
                    final int slot = slots.claim(0);
                    final long session = (UUID.randomUUID().getLeastSignificantBits() >>> MetadataDescriptor.LOCK_SLOT_BITS) | 1;
                    metadata.claimProcessSlot(slot, session, ProcessHandle.current().pid());
                    processSlots = slots;
                    processSlot = slot;
                    writeLock = new WriteLock(metadata, slots, MetadataDescriptor.lockWord(session, slot));
                } catch (RuntimeException e) {
                    slots.release();
                    throw e;
                }
            }
            return writeLock;
        }
    }

    /** @return true if a retention limit is set, so a roll deletes old files. */
    boolean retains() {
        return retention.isLimited();
    }

    /**
     * Applies retention after an appender of this instance started a new cycle. The append has succeeded by now,
     * so a failure is logged, not thrown: the files stay until the next roll or {@link #applyRetention()}.
     */
    void applyRetentionAfterRoll(final long cycle) {
        try {
            retention.apply();
        } catch (RuntimeException e) {
            LOG.error("retention of {} failed after the roll to cycle {}: old files stay until the next roll",
                    directory, cycle, e);
        }
    }

    int openCycleFiles() {
        return cycleFiles.openCount();
    }

    boolean syncMarkers() {
        return syncMarkers;
    }

    MetadataFile metadata() {
        return metadata;
    }

    CycleFiles cycleFiles() {
        return cycleFiles;
    }

    /** @return what tells a new appender the current cycle: the shared roll clock, or the injected clock read exactly. */
    CycleSource cycleSource() {
        return rollClock != null ? rollClock : new CycleClock(timeProvider, rollCycle, epochMillis);
    }
}
