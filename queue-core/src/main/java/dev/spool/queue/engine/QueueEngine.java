package dev.spool.queue.engine;

import dev.spool.queue.CommitMode;
import dev.spool.queue.Direction;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.GroupCommit;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.Pretoucher;
import dev.spool.queue.QueueMXBean;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SyncPolicy;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.CycleCalendar;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.internal.MappingGuard;
import dev.spool.queue.internal.NamedPosition;
import dev.spool.queue.internal.PublisherAppender;
import dev.spool.queue.internal.PublisherReader;
import dev.spool.queue.internal.QueueConfig;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.QueueRole;
import dev.spool.queue.internal.SchemaFiles;
import dev.spool.queue.internal.TermHistory;

import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The engine of one open queue, and the one public class of this package: public only because the
 * {@code SpoolQueue} facade, in the API's package, opens it ({@link #open(QueueConfig)}) and calls it. Not API: an
 * application reaches it only through the facade, and Spool's sibling modules through the {@link QueueInternals} it
 * implements ({@code queue.unwrap(QueueInternals.class)}). Creates the appenders, tailers, pretouchers and group
 * commits of a {@code Store} and tracks them, so that {@link #close()} closes them; reads the settings fixed at open
 * from the {@link QueueConfig} and the metadata once. Thread-safe.
 */
public final class QueueEngine implements QueueInternals {
    private static final ExcerptHandler NO_OP = (bytes, offset, length, index) -> { };

    private final Store store;
    private final QueueMetrics metrics;
    private final MetadataFile metadata;
    private final Roles roles;
    private final Path directory;
    private final RollCycle rollCycle;
    private final long epochMillis;
    private final CycleCalendar calendar;
    private final int maxMessageLength;
    private final boolean checksums;
    private final boolean verifyChecksums;
    private final SyncPolicy syncPolicy;
    private final QueueConfig.SyncTriggers syncTriggers;
    private final Supplier<IdleStrategy> idleStrategy;
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    private final ErrorHandler errorHandler;
    private final ThreadFactory threadFactory;
    /** The name key of the queue's MBean if the builder registers it, for its duties' MBeans to go beside; or null. */
    private final String agentMBeanOwner;
    private final long pretouchLength;
    private final Duration pretouchLeadTime;
    /** Why {@link #createAppender(SyncPolicy)} refuses, or null while it does not. */
    private volatile String appendersRefused;

    private QueueEngine(final Store store, final QueueConfig config) {
        this.store = store;
        this.metrics = new QueueMetrics(this, store);
        this.metadata = store.metadata();
        this.roles = new Roles(store);
        this.directory = store.directory();
        this.rollCycle = store.rollCycle();
        this.epochMillis = store.epochMillis();
        this.calendar = store.calendar();
        this.maxMessageLength = store.maxMessageLength();
        this.checksums = store.checksums();
        this.verifyChecksums = store.verifyChecksums();
        this.syncPolicy = config.syncPolicy();
        this.syncTriggers = config.syncTriggers();
        this.idleStrategy = config.idleStrategy();
        this.epochClock = config.epochClock();
        this.nanoClock = config.nanoClock();
        this.errorHandler = config.errorHandler();
        this.threadFactory = config.threadFactory();
        this.agentMBeanOwner = config.registerMBean() ? store.directory().toString() : null;
        this.pretouchLength = config.pretouchLength();
        this.pretouchLeadTime = config.pretouchLeadTime();
    }

    /**
     * Opens or creates the queue.
     *
     * @param config the builder's concluded settings.
     * @return the engine of the open queue.
     */
    public static QueueEngine open(final QueueConfig config) {
        return new QueueEngine(StoreOpener.open(config), config);
    }

    /**
     * @param policy the appender's sync policy.
     * @return a new appender.
     * @throws SpoolException if the queue is closed, read-only, a replica, fenced, or its appenders are refused
     *                        ({@link #refuseAppenders(String)}).
     */
    public ExcerptAppender createAppender(final SyncPolicy policy) {
        final String refusal = appendersRefused;
        if (refusal != null) {
            throw new SpoolException("queue " + directory + " refuses appenders: " + refusal);
        }
        return openAppender(policy);
    }

    /**
     * From now on {@link #createAppender(SyncPolicy)} refuses, saying why: another component of this process is the
     * queue's only writer and gives each excerpt its index, such as an async queue's drainer, which appends through
     * {@link #createIndexedAppender()}. Appenders created before stay open. Group commits, which append nothing but
     * sync markers, are still made.
     *
     * @param why the writer and the call to use instead, for the message.
     */
    @Override
    public void refuseAppenders(final String why) {
        appendersRefused = Objects.requireNonNull(why, "why");
    }

    /** Ends what {@link #refuseAppenders(String)} began: the writer that refused them has closed. */
    @Override
    public void allowAppenders() {
        appendersRefused = null;
    }

    private ExcerptAppender openAppender(final SyncPolicy policy) {
        return openStoreAppender(policy);
    }

    private StoreAppender openStoreAppender(final SyncPolicy policy) {
        if (policy.needsMsync()) {
            Msync.checkAvailable(policy.toString());
        }
        synchronized (store.users()) {
            store.checkOpen();
            store.checkWritable("an appender");
            // the term before the role: a demotion writes the role first, so this term is never one it wrote unless
            // the role read next is the replica's
            final long term = metadata.term();
            final int role = metadata.role();
            if (role == MetadataDescriptor.ROLE_REPLICA) {
                throw new SpoolException("queue " + directory + " is a replica of queue id " + queueId()
                        + ": local appends are refused; its excerpts arrive by replication, or promote() it first");
            }
            if (role == MetadataDescriptor.ROLE_FENCED) {
                throw fenced();
            }
            final StoreAppender appender = new StoreAppender(store, syncTriggers.create(policy, nanoClock), term);
            store.opened(appender);
            return appender;
        }
    }

    /**
     * @return a new appender of publishes with the queue's sync policy, refused where {@link #createAppender()} is.
     */
    @Override
    public PublisherAppender createPublisherAppender() {
        final String refusal = appendersRefused;
        if (refusal != null) {
            throw new SpoolException("queue " + directory + " refuses appenders: " + refusal);
        }
        return new StorePublisherAppender(openStoreAppender(syncPolicy));
    }

    @Override
    public long readLastPublishers(final long excerpts, final PublisherReader reader) {
        Objects.requireNonNull(reader, "reader");
        if (!store.publisherIds() || excerpts <= 0) {
            return 0;
        }
        final PublisherScan scan = new PublisherScan(reader);
        try (ExcerptTailer tailer = createBodyTailer()) {
            tailer.direction(Direction.BACKWARD).toEnd();
            if (!tailer.read(scan)) {
                return 0;
            }
            final long last = scan.index;
            final long first;
            if (rollCycle.toSequence(last) + 1 >= excerpts) {
                // the indices of one cycle follow one another: no walk back
                first = last - (excerpts - 1);
            } else {
                long read = 1;
                while (read < excerpts && tailer.read(scan)) {
                    read++;
                }
                first = scan.index;
            }
            tailer.direction(Direction.FORWARD);
            if (!tailer.moveToIndex(first)) {
                throw new SpoolException("queue " + directory + ": index " + IndexFormat.format(first, rollCycle)
                        + ", read a moment ago, cannot be found again: did retention delete its cycle?");
            }
            scan.reporting = true;
            long read = 0;
            while (tailer.read(scan)) {
                read++;
            }
            return read;
        }
    }

    /** Reads the publisher id and sequence of each body: backward to find the first index, forward to report. */
    private static final class PublisherScan implements ExcerptHandler {
        private static final int ID_OFFSET = ExcerptDescriptor.PUBLISHER_ID_OFFSET - ExcerptDescriptor.HEADER_LENGTH;
        private static final int SEQUENCE_OFFSET = ExcerptDescriptor.PUBLISHER_SEQUENCE_OFFSET
                - ExcerptDescriptor.HEADER_LENGTH;
        private static final int PAYLOAD_OFFSET = ExcerptDescriptor.PUBLISHED_PAYLOAD_OFFSET
                - ExcerptDescriptor.HEADER_LENGTH;
        private final PublisherReader reader;
        private boolean reporting;
        private long index = -1;

        PublisherScan(final PublisherReader reader) {
            this.reader = reader;
        }

        @Override
        public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
            this.index = index;
            if (!reporting) {
                return;
            }
            final long publisherId = bytes.readLong(offset + ID_OFFSET);
            if (publisherId != 0) {
                reader.onPublish(publisherId, bytes.readLong(offset + SEQUENCE_OFFSET), index, bytes,
                        offset + PAYLOAD_OFFSET, length - PAYLOAD_OFFSET);
            }
        }
    }

    /** @return a new appender with the queue's sync policy. */
    public ExcerptAppender createAppender() {
        return createAppender(syncPolicy);
    }

    /**
     * @return a new appender at given indices, with the queue's sync policy: on a replica, or on a primary.
     * @throws SpoolException if the queue is fenced.
     */
    @Override
    public IndexedAppender createIndexedAppender() {
        synchronized (store.users()) {
            store.checkOpen();
            store.checkWritable("an indexed appender");
            // the term before the role, as for createAppender
            final long term = metadata.term();
            if (metadata.role() == MetadataDescriptor.ROLE_FENCED) {
                throw fenced();
            }
            final StoreAppender appender = new StoreAppender(store, syncTriggers.create(syncPolicy, nanoClock), term);
            store.opened(appender);
            return new StoreIndexedAppender(appender);
        }
    }

    private SpoolException fenced() {
        return new SpoolException("queue " + directory + " was fenced by term " + metadata.fencedByTerm()
                + " (its term is " + metadata.term() + "): another queue is the primary now, appends are refused");
    }

    /** @return a new tailer positioned before the first excerpt. */
    public ExcerptTailer createTailer() {
        synchronized (store.users()) {
            store.checkOpen();
            final StoreTailer tailer = new StoreTailer(store, null, CommitMode.ON_READ, idleStrategy.get());
            store.opened(tailer);
            tailer.toStart();
            return tailer;
        }
    }

    /**
     * @return a new tailer positioned before the first excerpt that delivers each data excerpt's body as stored: in a
     * checksummed queue the CRC32C field then the payload, checked as every tailer checks it.
     */
    @Override
    public ExcerptTailer createBodyTailer() {
        synchronized (store.users()) {
            store.checkOpen();
            final StoreTailer tailer = new StoreTailer(store, null, CommitMode.ON_READ, idleStrategy.get(), true);
            store.opened(tailer);
            tailer.toStart();
            return tailer;
        }
    }

    /**
     * Rewrites the damaged excerpts checksums prove with {@code copy}'s verified bodies (see
     * {@code SpoolQueue.repairFrom}).
     *
     * @param copy      the engine of the copy.
     * @param fromIndex the first index, or -1 for every damaged range a scan finds.
     * @param toIndex   the last index, inclusive.
     * @return the number of regions rewritten.
     */
    public long repairFrom(final QueueEngine copy, final long fromIndex, final long toIndex) {
        store.checkOpen();
        store.checkWritable("a repair");
        if (copy.store.directory().toAbsolutePath().normalize().equals(store.directory().toAbsolutePath().normalize())) {
            throw new SpoolException("cannot repair " + store.directory() + " from itself: give another copy of the queue");
        }
        if (!copy.queueId().equals(queueId())) {
            throw new SpoolException("cannot repair " + store.directory() + " (queue id " + queueId() + ") from "
                    + copy.store.directory() + " (queue id " + copy.queueId() + "): another queue, not a copy");
        }
        try (ExcerptTailer bodies = copy.createBodyTailer()) {
            return new ExcerptRepairer(store).repairFrom(bodies, fromIndex, toIndex);
        }
    }

    @Override
    public List<DamagedRange> damagedRanges(final long fromIndex) {
        store.checkOpen();
        return new ExcerptRepairer(store).damagedRanges(fromIndex);
    }

    @Override
    public int repairExcerpts(final long fromIndex, final long toIndex, final LongFunction<byte[]> bodies) {
        store.checkOpen();
        store.checkWritable("a repair");
        return new ExcerptRepairer(store).repair(fromIndex, toIndex, bodies);
    }

    @Override
    public boolean verifyChecksums() {
        return verifyChecksums;
    }

    /** @return true if every data excerpt of the queue carries a CRC32C of its payload. */
    @Override
    public boolean checksums() {
        return checksums;
    }

    /** @return true if every data excerpt of the queue carries its publisher's id and sequence. */
    @Override
    public boolean publisherIds() {
        return store.publisherIds();
    }

    /**
     * @param name 1 to 48 UTF-8 bytes.
     * @param mode when the tailer persists its position.
     * @return a tailer positioned after the last excerpt committed under that name, or at the start.
     */
    public ExcerptTailer createTailer(final String name, final CommitMode mode) {
        Objects.requireNonNull(mode, "mode");
        if (name != null && name.startsWith(MetadataDescriptor.REPLICA_NAME_PREFIX)) {
            throw new SpoolException("tailer name '" + name + "' in " + store.directory() + ": names starting with '"
                    + MetadataDescriptor.REPLICA_NAME_PREFIX + "' are the replication source's records of its replicas");
        }
        synchronized (store.users()) {
            final StoreNamedPosition position = openPosition(name);
            final StoreTailer tailer = new StoreTailer(store, position, mode, idleStrategy.get());
            store.opened(tailer);
            try {
                // resumes after the last index committed under the name, or at the start
                final long committed = position.committedIndex();
                if (committed < 0 || !tailer.moveToIndex(committed)) {
                    tailer.toStart();
                } else {
                    tailer.read(NO_OP);
                }
                return tailer;
            } catch (RuntimeException e) {
                // a damaged file: the name is free again for a tailer that comes after the repair
                tailer.close();
                throw e;
            }
        }
    }

    /**
     * @param name 1 to 48 UTF-8 bytes.
     * @return the position persisted under the name, its entry created if absent; close it with its tailer.
     */
    @Override
    public NamedPosition namedPosition(final String name) {
        return openPosition(name);
    }

    @Override
    public Set<String> replicasPastLagLimit() {
        return store.retention().unpinnedReplicas();
    }

    private StoreNamedPosition openPosition(final String name) {
        synchronized (store.users()) {
            store.checkOpen();
            store.checkWritable("named tailer '" + name + "', which persists its position,");
            final WriteLock lock = store.writeLock();
            final int entry;
            lock.lock();
            try {
                entry = metadata.namedTailerEntry(name);
            } finally {
                lock.unlock();
            }
            final StoreNamedPosition position = new StoreNamedPosition(store, name,
                    MetadataDescriptor.namedTailerPosition(entry) + MetadataDescriptor.NAMED_TAILER_INDEX_OFFSET);
            store.opened(position);
            return position;
        }
    }

    /**
     * @param name the tailer's name.
     * @return true if a named tailer of that name was removed, false if there was none.
     */
    public boolean removeTailer(final String name) {
        synchronized (store.users()) {
            store.checkOpen();
            store.checkWritable("removing named tailer '" + name + "'");
            for (final AutoCloseable user : store.openUsers()) {
                if (user instanceof NamedPosition position && name.equals(position.name())) {
                    throw new SpoolException("named tailer '" + name + "' of " + directory
                            + " is open in this queue instance: close it before removing it");
                }
            }
            final WriteLock lock = store.writeLock();
            lock.lock();
            try {
                return metadata.removeNamedTailer(name);
            } finally {
                lock.unlock();
            }
        }
    }

    /** @return a new pretoucher with the builder's pretouch length and lead time. */
    public Pretoucher createPretoucher() {
        synchronized (store.users()) {
            store.checkOpen();
            store.checkWritable("a pretoucher");
            final StorePretoucher pretoucher = new StorePretoucher(store, pretouchLength, pretouchLeadTime);
            store.opened(pretoucher);
            return pretoucher;
        }
    }

    /**
     * @param period the time between two runs.
     * @return a pretoucher running on its own daemon thread.
     */
    public Pretoucher startPretoucher(final Duration period) {
        if (period.isNegative() || period.isZero()) {
            throw new SpoolException("period=" + period + " must be positive");
        }
        synchronized (store.users()) {
            final StorePretoucher pretoucher = (StorePretoucher) createPretoucher();
            pretoucher.start(period, agentMBeanOwner);
            return pretoucher;
        }
    }

    /** @return the number of files deleted; 0 if no retention limit is set. */
    public int applyRetention() {
        synchronized (store.users()) {
            store.checkOpen();
            store.checkWritable("retention");
        }
        return store.retention().apply();
    }

    /** @return a new retention agent, which the appenders' rolls trigger from now on. */
    public Agent createRetention() {
        return store.createRetentionAgent();
    }

    /** @return a group commit on its own daemon thread. */
    public GroupCommit startGroupCommit() {
        final StoreGroupCommit groupCommit = new StoreGroupCommit(store, openAppender(SyncPolicy.NONE));
        groupCommit.start(agentMBeanOwner);
        return groupCommit;
    }

    /** @return a group commit whose {@link GroupCommit#doWork()} the caller runs. */
    public GroupCommit createGroupCommit() {
        return new StoreGroupCommit(store, openAppender(SyncPolicy.NONE));
    }

    /** @return this instance's metrics, read live. */
    public QueueMXBean metrics() {
        return metrics;
    }

    /** @return the queue's directory, absolute. */
    public Path directory() {
        return directory;
    }

    /** @return the persisted roll cycle. */
    public RollCycle rollCycle() {
        return rollCycle;
    }

    /** @return the time cycle 0 starts, in ms since 1970. */
    public long epochMillis() {
        return epochMillis;
    }

    @Override
    public CycleCalendar calendar() {
        return calendar;
    }

    @Override
    public EpochClock epochClock() {
        return epochClock;
    }

    @Override
    public NanoClock nanoClock() {
        return nanoClock;
    }

    @Override
    public ErrorHandler errorHandler() {
        return errorHandler;
    }

    @Override
    public ThreadFactory threadFactory() {
        return threadFactory;
    }

    /** @return the features the queue was created with, fixed since: the metadata's bit set. */
    @Override
    public int features() {
        final MappingGuard guard = enter();
        try {
            return metadata.features();
        } finally {
            guard.exit();
        }
    }

    /** @return the queue's identity. */
    public UUID queueId() {
        final MappingGuard guard = enter();
        try {
            return metadata.queueId();
        } finally {
            guard.exit();
        }
    }

    /** @return the longest payload an appender accepts. */
    public int maxMessageLength() {
        return maxMessageLength;
    }

    /** @return the most excerpts one cycle can hold. */
    public long cycleCapacity() {
        final MappingGuard guard = enter();
        try {
            return Math.min(rollCycle.maxSequences(),
                    (long) CycleDescriptor.ROOT_ENTRIES * metadata.indexBlockEntries() * metadata.indexSpacing());
        } finally {
            guard.exit();
        }
    }

    /** @return the index of the first excerpt, or -1 if the queue is empty. */
    public long firstIndex() {
        final MappingGuard guard = enter();
        try (ExcerptTailer tailer = createTailer()) {
            return tailer.read(NO_OP) ? tailer.direction(Direction.BACKWARD).index() : -1;
        } finally {
            guard.exit();
        }
    }

    /** @return the index of the last excerpt, or -1 if the queue is empty. */
    public long lastIndex() {
        final MappingGuard guard = enter();
        try (ExcerptTailer tailer = createTailer()) {
            tailer.direction(Direction.BACKWARD).toEnd();
            return tailer.read(NO_OP) ? tailer.direction(Direction.FORWARD).index() : -1;
        } finally {
            guard.exit();
        }
    }

    /** @return the last index known to be on disk, or -1. */
    public long lastSyncedIndex() {
        final MappingGuard guard = enter();
        try {
            return metadata.lastSyncedIndex();
        } finally {
            guard.exit();
        }
    }

    /**
     * @param index   the index to wait for.
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true if {@code index} is on disk, false on timeout.
     * @throws InterruptedException if the thread is interrupted while waiting.
     */
    public boolean awaitSynced(final long index, final long timeout, final TimeUnit unit) throws InterruptedException {
        final long deadline = nanoClock.nanoTime() + unit.toNanos(timeout);
        final IdleStrategy idle = new BackoffIdleStrategy(0, 10, 1_000, 1_000_000);
        while (lastSyncedIndex() < index) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while awaiting sync of index "
                        + IndexFormat.format(index, rollCycle) + " in " + directory);
            }
            if (nanoClock.nanoTime() - deadline >= 0) {
                return false;
            }
            idle.idle();
        }
        return true;
    }

    /** @return every cycle that has a file, ascending. */
    public long[] cycles() {
        return store.cycleFiles().cycles();
    }

    /** @return the names of the named tailers this queue has seen. */
    public List<String> tailerNames() {
        final MappingGuard guard = enter();
        try {
            return metadata.namedTailers();
        } finally {
            guard.exit();
        }
    }

    /** @return the last index each named tailer read (-1 if none), by name. */
    Map<String, Long> namedTailerIndices() {
        final MappingGuard guard = enter();
        try {
            return metadata.namedTailerIndices();
        } finally {
            guard.exit();
        }
    }

    /** @return who may append to this queue, as persisted now. */
    @Override
    public QueueRole role() {
        final MappingGuard guard = enter();
        try {
            return roles.role();
        } finally {
            guard.exit();
        }
    }

    /** @return the number of promotions in this queue's history. */
    @Override
    public long term() {
        final MappingGuard guard = enter();
        try {
            return metadata.term();
        } finally {
            guard.exit();
        }
    }

    /** @return the highest index a replica acknowledged, or -1 if none. */
    @Override
    public long lastAckedIndex() {
        final MappingGuard guard = enter();
        try {
            return metadata.lastAckedIndex();
        } finally {
            guard.exit();
        }
    }

    /**
     * Records an acknowledgement and rings the ack doorbells.
     *
     * @param index the highest acknowledged index.
     */
    @Override
    public void recordAcked(final long index) {
        final MappingGuard guard = enter();
        try {
            metadata.advanceLastAckedIndex(index);
        } finally {
            guard.exit();
        }
        store.acks().ring();
    }

    /**
     * @param what what would write, for the message.
     * @throws SpoolException naming the queue if it was opened read-only.
     */
    @Override
    public void checkWritable(final String what) {
        metadata.checkWritable(what);
    }

    /** @return the typed schema files of the queue's directory, with the metadata's schema generation. */
    @Override
    public SchemaFiles schemaFiles() {
        return store.schemaFiles();
    }

    /** @return the highest index an ack quorum of replicas acknowledged, or -1 if none. */
    @Override
    public long quorumAckedIndex() {
        final MappingGuard guard = enter();
        try {
            return metadata.quorumAckedIndex();
        } finally {
            guard.exit();
        }
    }

    /**
     * Records an acknowledgement by an ack quorum; the ack doorbells ring with {@link #recordAcked(long)}.
     *
     * @param index the highest index acknowledged by the quorum.
     */
    @Override
    public void recordQuorumAcked(final long index) {
        final MappingGuard guard = enter();
        try {
            metadata.advanceQuorumAckedIndex(index);
        } finally {
            guard.exit();
        }
    }

    /**
     * @param wake run on the appending thread while the doorbell is armed.
     * @return a doorbell rung after each append through this instance.
     */
    @Override
    public Doorbell appendDoorbell(final Runnable wake) {
        return store.appends().add(wake);
    }

    /**
     * @param wake run on the thread that records an acknowledgement while the doorbell is armed.
     * @return a doorbell rung after each {@link #recordAcked(long)}.
     */
    @Override
    public Doorbell ackDoorbell(final Runnable wake) {
        return store.acks().add(wake);
    }

    /**
     * Makes this replica the primary of a new term, one more than its current one.
     *
     * @return the new term.
     * @throws SpoolException unless the queue is a replica.
     */
    @Override
    public long promote() {
        return promote(term() + 1);
    }

    /**
     * Makes this replica the primary of {@code term}.
     *
     * @param term the new term, later than the queue's.
     * @return {@code term}.
     * @throws SpoolException unless the queue is a replica of an earlier term.
     */
    @Override
    public long promote(final long term) {
        final MappingGuard guard = enter();
        try {
            return roles.promote(term, this::lastIndex);
        } finally {
            guard.exit();
        }
    }

    /**
     * Makes this primary or fenced queue a replica of {@code laterTerm}, keeping every excerpt.
     *
     * @param laterTerm the term of a later primary.
     * @return true if the queue changed; false for a replica of that term or a later one.
     * @throws SpoolException if the queue is a primary or fenced and {@code laterTerm} is not later than its term.
     */
    @Override
    public boolean demote(final long laterTerm) {
        final MappingGuard guard = enter();
        try {
            return roles.demote(laterTerm, this::lastIndex);
        } finally {
            guard.exit();
        }
    }

    /**
     * Fences this primary: new appenders are refused, and appenders created before throw at their next write.
     *
     * @param byTerm the later term; must exceed {@link #term()}.
     */
    @Override
    public void fence(final long byTerm) {
        final MappingGuard guard = enter();
        try {
            roles.fence(byTerm);
        } finally {
            guard.exit();
        }
    }

    /**
     * A replica takes the term history of the primary it copies, and its term when it is later than its own.
     *
     * @param history the primary's term history.
     * @throws SpoolException unless the queue is a replica and the history's last term is at least its own.
     */
    @Override
    public void adoptTerm(final TermHistory history) {
        final MappingGuard guard = enter();
        try {
            roles.adoptTerm(history);
        } finally {
            guard.exit();
        }
    }

    /** @return the queue's term history, as persisted now. */
    @Override
    public TermHistory termHistory() {
        final MappingGuard guard = enter();
        try {
            return roles.termHistory();
        } finally {
            guard.exit();
        }
    }

    /**
     * Enters the guard of the mapped files for a read that any thread may make at any time; the caller exits it.
     *
     * @return the guard, to exit in a finally block.
     * @throws SpoolException once the queue is closed.
     */
    private MappingGuard enter() {
        final MappingGuard guard = store.guard();
        guard.enter();
        return guard;
    }

    /**
     * Closes every appender, tailer and pretoucher of this instance and unmaps the files. First refuses new reads of
     * the getters and metrics and waits for those in progress on other threads, outside the users' monitor, which
     * such a read may take.
     */
    public void close() {
        store.guard().close();
        synchronized (store.users()) {
            if (store.isClosed()) {
                return;
            }
            for (final AutoCloseable user : store.openUsers()) {
                closeUser(user);
            }
            store.close();
        }
    }

    private static void closeUser(final AutoCloseable user) {
        if (user instanceof ExcerptAppender appender) {
            appender.close();
        } else if (user instanceof Pretoucher pretoucher) {
            pretoucher.close();
        } else if (user instanceof NamedPosition position) {
            // a named tailer's own, or one an async tailer holds through QueueInternals
            position.close();
        } else {
            ((ExcerptTailer) user).close();
        }
    }

    /** @return true once {@link #close()} has run. */
    public boolean isClosed() {
        return store.isClosed();
    }

    Store store() {
        return store;
    }
}
