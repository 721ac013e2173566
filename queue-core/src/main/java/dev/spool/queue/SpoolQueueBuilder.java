package dev.spool.queue;

import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.AgentHost;
import dev.spool.queue.internal.CycleCalendar;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.QueueConfig;
import dev.spool.queue.internal.QueueConfig.Setting;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;

/**
 * Settings of a queue. A new queue persists them in its metadata file; reopening adopts the persisted ones, and
 * a setting given here that differs from the persisted one is an error, never a silent change of format.
 * <p>
 * The call that ends the builder says whether the queue must exist: {@link #open()} opens an existing queue only,
 * {@link #create()} creates a new one only, and {@link #openOrCreate()} does either. Every setting is checked
 * there, and a bad one is refused with a message naming the option and its value.
 * <p>
 * A setting the queue persists (roll, epoch, index spacing and block entries, longest message, chunk length,
 * checksums, index times, publisher ids, replica) that is not given here is the default for a new queue and the
 * persisted value for an existing one. The others (clocks, idle strategy, error handler, thread factory, sync policy, retention,
 * pretouch, listener, file modes) are this instance's own and default as each option says.
 */
public final class SpoolQueueBuilder {
    /** Default mapping unit: 64 MiB. */
    public static final long DEFAULT_CHUNK_LENGTH = 64L << 20;
    /** Default number of excerpts between two index entries. */
    public static final int DEFAULT_INDEX_SPACING = 64;
    /** Default entries in one index block (64 KiB). */
    public static final int DEFAULT_INDEX_BLOCK_ENTRIES = 8192;
    /** Smallest mapping unit: the first chunk must hold the header and the root index. */
    public static final long MIN_CHUNK_LENGTH = 1L << 20;
    /** Default bytes a {@link Pretoucher} keeps touched ahead of the write position: 4 MiB. */
    public static final long DEFAULT_PRETOUCH_LENGTH = 4L << 20;
    /** Default time before a roll at which a {@link Pretoucher} creates the next cycle's file. */
    public static final Duration DEFAULT_PRETOUCH_LEAD_TIME = Duration.ofSeconds(5);
    /** Default of {@link #maxReplicaLagCycles(int)} when only {@link #retainBytes(long)} limits retention. */
    public static final int DEFAULT_MAX_REPLICA_LAG_CYCLES = 24;
    private static final int UNSET = Integer.MIN_VALUE;

    /**
     * Default permissions of the files a queue creates, {@code rw-r-----} (0640): the owner writes, its group may
     * read, others may not. The lock file gets {@code rw-------}: see {@link #fileMode(Set)}.
     */
    public static final Set<PosixFilePermission> DEFAULT_FILE_MODE =
            Collections.unmodifiableSet(PosixFilePermissions.fromString("rw-r-----"));
    /** Default permissions of the directories a queue creates, {@code rwxr-x---} (0750). */
    public static final Set<PosixFilePermission> DEFAULT_DIRECTORY_MODE =
            Collections.unmodifiableSet(PosixFilePermissions.fromString("rwxr-x---"));

    /** The default idle strategy of a waiting tailer: spins, yields, then parks from 1 µs doubling up to 1 ms. */
    private static final Supplier<IdleStrategy> DEFAULT_IDLE_STRATEGY =
            () -> new BackoffIdleStrategy(100, 100, 1_000, 1_000_000);

    private final Path directory;
    /** The persisted settings given, which an existing queue must match. */
    private final Set<Setting> given = EnumSet.noneOf(Setting.class);
    private RollCycle rollCycle = RollCycle.DAILY;
    private long epochMillis;
    private int indexSpacing = DEFAULT_INDEX_SPACING;
    private int indexBlockEntries = DEFAULT_INDEX_BLOCK_ENTRIES;
    private int maxMessageLength;
    private long chunkLength = DEFAULT_CHUNK_LENGTH;
    private boolean indexTimes;
    private LocalTime rollTime;
    private ZoneId rollZone;
    private UUID replicaOf;
    private boolean checksums;
    private boolean publisherIds;
    private EpochClock epochClock = SystemEpochClock.INSTANCE;
    private NanoClock nanoClock = SystemNanoClock.INSTANCE;
    private Supplier<IdleStrategy> idleStrategy = DEFAULT_IDLE_STRATEGY;
    private ErrorHandler errorHandler = failure -> { };
    private ThreadFactory threadFactory = AgentHost.daemonThreads();
    private SyncPolicy syncPolicy = SyncPolicy.NONE;
    private boolean syncMarkers;
    private int retainCycles = Integer.MAX_VALUE;
    private long retainBytes = Long.MAX_VALUE;
    private boolean retainForNamedTailers = true;
    /** {@link #UNSET} until given: then twice retainCycles, or {@link #DEFAULT_MAX_REPLICA_LAG_CYCLES} without it. */
    private int maxReplicaLagCycles = UNSET;
    private CycleListener cycleListener = CycleListener.NONE;
    private long pretouchLength = DEFAULT_PRETOUCH_LENGTH;
    private Duration pretouchLeadTime = DEFAULT_PRETOUCH_LEAD_TIME;
    private boolean verifyChecksums = true;
    private boolean readOnly;
    private boolean registerMBean;
    private Set<PosixFilePermission> fileMode = DEFAULT_FILE_MODE;
    private Set<PosixFilePermission> directoryMode = DEFAULT_DIRECTORY_MODE;

    SpoolQueueBuilder(final Path directory) {
        this.directory = directory;
    }

    /**
     * Cycles of a fixed length from an epoch. The roll is of one kind, this or {@link #rollTime}: the last of the two
     * called wins, so this clears a roll time set before.
     *
     * @param rollCycle how often a new cycle file starts; default {@link RollCycle#DAILY}.
     * @return this builder.
     */
    public SpoolQueueBuilder rollCycle(final RollCycle rollCycle) {
        this.rollCycle = rollCycle;
        given.add(Setting.ROLL_CYCLE);
        clearRollTime();
        return this;
    }

    /**
     * Starts each cycle at a local time of day in a time zone, e.g. 17:00 America/New_York for a trading day, as the
     * zone's rules place it that day: a cycle spans 23 or 25 hours across a daylight-saving change, and its file is
     * named {@code yyyyMMdd-HHmm.cycle} of its local start, which sorts as the cycles do. Rolls daily. The roll is of
     * one kind, this or {@link #rollCycle} and {@link #epochMillis}: the last called wins, so this clears a roll cycle
     * and an epoch set before, and they clear it. Persisted (a queue with it is format version 2, which builds before
     * it refuse). Default: cycles of the roll cycle from the epoch.
     *
     * @param rollTime the local time each cycle starts, a whole minute.
     * @param zone     the zone whose rules place it, e.g. {@code ZoneId.of("America/New_York")}.
     * @return this builder.
     */
    public SpoolQueueBuilder rollTime(final LocalTime rollTime, final ZoneId zone) {
        this.rollTime = Objects.requireNonNull(rollTime, "rollTime");
        this.rollZone = Objects.requireNonNull(zone, "zone");
        this.rollCycle = RollCycle.DAILY;
        this.epochMillis = 0;
        given.remove(Setting.ROLL_CYCLE);
        given.remove(Setting.EPOCH_MILLIS);
        given.add(Setting.ROLL_TIME);
        return this;
    }

    /**
     * Of the roll of a fixed length: clears a {@link #rollTime} set before, as {@link #rollCycle} does.
     *
     * @param epochMillis the time cycle 0 starts, shifting every roll (e.g. 17:00 New York for a trading day);
     *                    default 0, midnight UTC.
     * @return this builder.
     */
    public SpoolQueueBuilder epochMillis(final long epochMillis) {
        this.epochMillis = epochMillis;
        given.add(Setting.EPOCH_MILLIS);
        clearRollTime();
        return this;
    }

    private void clearRollTime() {
        this.rollTime = null;
        this.rollZone = null;
        given.remove(Setting.ROLL_TIME);
    }

    /**
     * @param indexSpacing excerpts between two index entries, a power of two from 1 to 4096: larger saves index
     *                     space and makes {@code moveToIndex} walk further; default 64.
     * @return this builder.
     */
    public SpoolQueueBuilder indexSpacing(final int indexSpacing) {
        this.indexSpacing = indexSpacing;
        given.add(Setting.INDEX_SPACING);
        return this;
    }

    /**
     * @param indexBlockEntries entries in one index block, a power of two from 8 to 65536; default 8192.
     * @return this builder.
     */
    public SpoolQueueBuilder indexBlockEntries(final int indexBlockEntries) {
        this.indexBlockEntries = indexBlockEntries;
        given.add(Setting.INDEX_BLOCK_ENTRIES);
        return this;
    }

    /**
     * @param maxMessageLength the longest payload an appender accepts; default and upper bound: a quarter of the
     *                         chunk length, less 64 bytes.
     * @return this builder.
     */
    public SpoolQueueBuilder maxMessageLength(final int maxMessageLength) {
        this.maxMessageLength = maxMessageLength;
        given.add(Setting.MAX_MESSAGE_LENGTH);
        return this;
    }

    /**
     * @param chunkLength the unit in which cycle files are mapped and grown, a power of two of at least 1 MiB;
     *                    default 64 MiB.
     * @return this builder.
     */
    public SpoolQueueBuilder chunkLength(final long chunkLength) {
        this.chunkLength = chunkLength;
        given.add(Setting.CHUNK_LENGTH);
        return this;
    }

    /**
     * Records, in each sparse index entry, the time its excerpt was appended, which
     * {@link ExcerptTailer#moveToTime(java.time.Instant)} needs; costs one clock read per {@code indexSpacing}
     * appends and doubles the index's size. Persisted as a feature of the queue (a queue with it is format version 2,
     * which builds before it refuse). Default false.
     *
     * @param indexTimes true to record times.
     * @return this builder.
     */
    public SpoolQueueBuilder indexTimes(final boolean indexTimes) {
        this.indexTimes = indexTimes;
        given.add(Setting.INDEX_TIMES);
        return this;
    }

    /**
     * @param epochClock the wall clock, in ms since 1970: it picks the cycle of each append, and stamps index entries
     *                   ({@link #indexTimes(boolean)}) and sync markers; the ring buffer and replication of this queue
     *                   read it too. Default {@link SystemEpochClock#INSTANCE}, read through the shared roll clock
     *                   (see docs/architecture.md); another clock is read on every append. Inject one in tests to roll
     *                   cycles on demand.
     * @return this builder.
     */
    public SpoolQueueBuilder epochClock(final EpochClock epochClock) {
        this.epochClock = epochClock;
        return this;
    }

    /**
     * @param nanoClock the monotonic clock: the timeouts of waits, the time-based {@link SyncPolicy}, the write
     *                  lock's liveness checks; the ring buffer and replication of this queue read it too. Default
     *                  {@link SystemNanoClock#INSTANCE}.
     * @return this builder.
     */
    public SpoolQueueBuilder nanoClock(final NanoClock nanoClock) {
        this.nanoClock = nanoClock;
        return this;
    }

    /**
     * @param idleStrategy makes the Agrona {@link IdleStrategy} of each tailer, called once per tailer: how it waits
     *                     in {@link ExcerptTailer#await}. Default: spins 100 times, yields 100 times, then parks from
     *                     1 µs doubling up to 1 ms ({@code new BackoffIdleStrategy(100, 100, 1_000, 1_000_000)}).
     * @return this builder.
     */
    public SpoolQueueBuilder idleStrategy(final Supplier<IdleStrategy> idleStrategy) {
        this.idleStrategy = idleStrategy;
        return this;
    }

    /**
     * @param errorHandler told of each failure of the queue's background duties (pretoucher, group commit), and of
     *                     those of the ring buffer and replication built on this queue, after the duty's host counted
     *                     and logged it (see {@link AgentMXBean}); default: nothing more.
     * @return this builder.
     */
    public SpoolQueueBuilder errorHandler(final ErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
        return this;
    }

    /**
     * @param threadFactory makes the threads of the background duties that the queue starts
     *                      ({@link SpoolQueue#startPretoucher(Duration)}, {@link SpoolQueue#startGroupCommit()}),
     *                      and those of the ring buffer and replication built on this queue; default: daemon threads.
     * @return this builder.
     */
    public SpoolQueueBuilder threadFactory(final ThreadFactory threadFactory) {
        this.threadFactory = threadFactory;
        return this;
    }

    /**
     * @param syncPolicy when appenders flush to disk with msync; default {@link SyncPolicy#NONE}. Not persisted:
     *                   each process, and each appender ({@link SpoolQueue#createAppender(SyncPolicy)}), chooses.
     * @return this builder.
     */
    public SpoolQueueBuilder syncPolicy(final SyncPolicy syncPolicy) {
        this.syncPolicy = syncPolicy;
        return this;
    }

    /**
     * @param syncMarkers true to append a sync marker after every msync of this process's appenders, so tailers in
     *                    any process can see what reached the disk ({@link ExcerptTailer#syncMarkers}); default false.
     * @return this builder.
     */
    public SpoolQueueBuilder syncMarkers(final boolean syncMarkers) {
        this.syncMarkers = syncMarkers;
        return this;
    }

    /**
     * Keeps at most this many cycle files, the newest, up to the highest cycle; older ones are deleted when a new
     * cycle starts and on {@link SpoolQueue#applyRetention()}, unless a tailer of this process has them open or a
     * named tailer has not passed them (see {@link #retainForNamedTailers(boolean)}). Not persisted: every process
     * that rolls applies its own. Default: every cycle is kept.
     *
     * @param retainCycles at least 1.
     * @return this builder.
     */
    public SpoolQueueBuilder retainCycles(final int retainCycles) {
        this.retainCycles = retainCycles;
        return this;
    }

    /**
     * Keeps the newest cycle files whose used lengths (header, root index and excerpts; not the sparse files'
     * apparent lengths) add up to at most this many bytes, and always the highest cycle; deletes the older ones like
     * {@link #retainCycles(int)}, and together with it, whichever keeps fewer. Not persisted. Default: no limit.
     *
     * @param retainBytes at least 1.
     * @return this builder.
     */
    public SpoolQueueBuilder retainBytes(final long retainBytes) {
        this.retainBytes = retainBytes;
        return this;
    }

    /**
     * @param retainForNamedTailers true to keep every cycle from the one of a named tailer's last read index on
     *                              (every cycle while a named tailer has read nothing), whatever the retention
     *                              limits; false to let retention delete cycles a named tailer has not read, which
     *                              it then skips. Default true. A named tailer cannot be removed: with true, one
     *                              that is no longer read stops retention.
     * @return this builder.
     */
    public SpoolQueueBuilder retainForNamedTailers(final boolean retainForNamedTailers) {
        this.retainForNamedTailers = retainForNamedTailers;
        return this;
    }

    /**
     * A replication source records in this queue's metadata the index each of its replicas acknowledged, and
     * retention keeps every cycle from that index's on, so that a replica away for a while catches up when it comes
     * back; but only while the replica lags at most this many cycles behind the highest cycle. Past it, the replica
     * stops keeping cycles from deletion, with one WARN naming it and its lag: a replica that is dead or gone never
     * fills the disk. A replica whose next index retention then deletes is rebuilt from the oldest cycle left, its
     * old directory set aside. Not persisted. Default: twice {@link #retainCycles(int)}, so that the disk holds at
     * most about twice what retention keeps; {@link #DEFAULT_MAX_REPLICA_LAG_CYCLES} if only
     * {@link #retainBytes(long)} limits retention.
     *
     * @param maxReplicaLagCycles at least 1.
     * @return this builder.
     */
    public SpoolQueueBuilder maxReplicaLagCycles(final int maxReplicaLagCycles) {
        this.maxReplicaLagCycles = maxReplicaLagCycles;
        return this;
    }

    /**
     * @param cycleListener told when this queue instance opens, closes and deletes cycle files; default
     *                      {@link CycleListener#NONE}.
     * @return this builder.
     */
    public SpoolQueueBuilder cycleListener(final CycleListener cycleListener) {
        this.cycleListener = cycleListener;
        return this;
    }

    /**
     * @param pretouchLength bytes ahead of the write position that a {@link Pretoucher} keeps touched, 0 for none;
     *                       default {@link #DEFAULT_PRETOUCH_LENGTH}. Not persisted.
     * @return this builder.
     */
    public SpoolQueueBuilder pretouchLength(final long pretouchLength) {
        this.pretouchLength = pretouchLength;
        return this;
    }

    /**
     * @param pretouchLeadTime how long before a roll a {@link Pretoucher} creates the next cycle's file; longer than
     *                         the period at which it runs, or it may not run in time. A lead time of a cycle or more
     *                         creates the next file as soon as the current cycle starts. Default
     *                         {@link #DEFAULT_PRETOUCH_LEAD_TIME}. Not persisted.
     * @return this builder.
     */
    public SpoolQueueBuilder pretouchLeadTime(final Duration pretouchLeadTime) {
        this.pretouchLeadTime = pretouchLeadTime;
        return this;
    }

    /**
     * Opens the queue as a replica: written only through the replication sink's indexed appender, at the indices
     * of the primary it copies, while {@link SpoolQueue#createAppender()} refuses. A new queue is created with
     * {@code queueId} as its identity (give it the primary's roll cycle and epoch too); an existing queue must be a
     * replica with that identity. Persisted: reopening the queue later without this setting keeps it a replica
     * until it is promoted.
     *
     * @param queueId the identity of the primary queue, {@link SpoolQueue#queueId()}; null for a primary.
     * @return this builder.
     */
    public SpoolQueueBuilder replicaOf(final UUID queueId) {
        this.replicaOf = queueId;
        if (queueId == null) {
            given.remove(Setting.REPLICA_OF);
        } else {
            given.add(Setting.REPLICA_OF);
        }
        return this;
    }

    /**
     * Stores a CRC32C of each excerpt's payload with the excerpt, so that a flipped byte is found by tailers,
     * {@code verify}, {@code dump} and the replica instead of being read as data. Persisted and fixed when the queue
     * is created (as metadata feature {@code FEATURE_CRC32C}); reopening with a different explicit value is an error,
     * and without one the persisted choice is adopted. Default for a new queue: false. Costs one CRC32C (a hardware
     * instruction) per append and per read, and 4 bytes per excerpt.
     *
     * @param checksums true to checksum every excerpt.
     * @return this builder.
     */
    public SpoolQueueBuilder checksums(final boolean checksums) {
        this.checksums = checksums;
        given.add(Setting.CHECKSUMS);
        return this;
    }

    /**
     * Stores with each excerpt the id of the client that published it and that client's sequence number for it, so
     * that a {@code PublishGateway} on this queue, or on a replica promoted in its place after a failover, writes a
     * publish its client sent again (having never seen its commit) only once, and answers it with the original's
     * index. Readers never see them: tailers, typed readers and the tools deliver the payload alone; appends that do
     * not come through a gateway store id 0, sequence 0. Persisted and fixed when the queue is created (as metadata
     * feature {@code FEATURE_PUBLISHER_IDS}, format version 2); reopening with a different explicit value is an
     * error, and without one the persisted choice is adopted; a replica is created with its primary's features.
     * Default for a new queue: false. Costs 20 bytes per excerpt (16 with {@link #checksums(boolean) checksums}),
     * which the longest message a chunk can hold loses too.
     *
     * @param publisherIds true to store each excerpt's publisher id and sequence.
     * @return this builder.
     */
    public SpoolQueueBuilder publisherIds(final boolean publisherIds) {
        this.publisherIds = publisherIds;
        given.add(Setting.PUBLISHER_IDS);
        return this;
    }

    /**
     * @param verifyChecksums false to let this instance's tailers skip the CRC32C check of a checksummed queue, for a
     *                        trusted hot path; appenders still write checksums and the tools still check them.
     *                        Not persisted. Default true.
     * @return this builder.
     */
    public SpoolQueueBuilder verifyChecksums(final boolean verifyChecksums) {
        this.verifyChecksums = verifyChecksums;
        return this;
    }

    /**
     * Opens an existing queue with these settings.
     *
     * @return the opened queue.
     * @throws SpoolException if the directory does not exist, or holds no queue (the message names the path), or
     *                        a setting differs from the persisted one.
     */
    public SpoolQueue open() {
        return SpoolQueue.open(conclude(true, false));
    }

    /**
     * Opens an existing queue read-only, for audit, surveillance and backup readers and for read-only mounts: the
     * files are mapped read-only and nothing is ever written, so no write permission is needed. Tailers read as
     * usual. Everything that would write is refused with a {@link SpoolException} saying the queue {@code is open
     * read-only}, before anything is written: appenders and typed writers, named tailers (which persist their
     * position), {@code removeTailer}, pretouchers, group commits, retention, typed schema files, and, in the sibling
     * modules, replication sources and async queues, which are refused when built. The metadata file refuses every
     * write itself, whichever writer asks. A missing queue is an error, never created. Not persisted.
     *
     * @return this builder.
     */
    public SpoolQueueBuilder readOnly() {
        this.readOnly = true;
        return this;
    }

    /**
     * @param fileMode the permissions of the files this instance creates (metadata and cycle files), set exactly
     *                 whatever the umask; the owner must read and write, and nobody execute. The lock file
     *                 ({@code metadata.lock}) gets read and write for the classes that may write here and nothing
     *                 for the others ({@code rw-r-----} gives {@code rw-------}), because a process that can open it
     *                 could hold a slot's lock and pass for a live writer. Files that exist keep their mode. Default
     *                 {@link #DEFAULT_FILE_MODE}.
     * @return this builder.
     */
    public SpoolQueueBuilder fileMode(final Set<PosixFilePermission> fileMode) {
        this.fileMode = fileMode;
        return this;
    }

    /**
     * @param directoryMode the permissions of the directories this instance creates (the queue's, and missing
     *                      parents), set exactly whatever the umask; the owner must have {@code rwx}. Default
     *                      {@link #DEFAULT_DIRECTORY_MODE}.
     * @return this builder.
     */
    public SpoolQueueBuilder directoryMode(final Set<PosixFilePermission> directoryMode) {
        this.directoryMode = directoryMode;
        return this;
    }

    /**
     * Registers the queue's {@link QueueMXBean} with the platform MBean server as
     * {@code dev.spool:type=Queue,name="<absolute directory>"} when it opens, and unregisters it when it closes. Two
     * instances of one queue in a JVM cannot both register.
     *
     * @return this builder.
     */
    public SpoolQueueBuilder registerMBean() {
        this.registerMBean = true;
        return this;
    }

    /**
     * Creates a new queue with these settings.
     *
     * @return the new queue, open.
     * @throws SpoolException if a queue exists in the directory already, or the directory holds other files.
     */
    public SpoolQueue create() {
        return SpoolQueue.open(conclude(false, true));
    }

    /**
     * Opens the queue if it exists, or else creates it with these settings.
     *
     * @return the opened queue.
     */
    public SpoolQueue openOrCreate() {
        return SpoolQueue.open(conclude(true, true));
    }

    /**
     * The conclude step: checks every option, naming the option and the value of the first that is wrong, and
     * resolves every default. A persisted setting that was not given is marked so, for an existing queue to keep its
     * own; the layout of a new queue is checked whole only where the queue may be created.
     *
     * @param mayOpen   whether an existing queue is opened.
     * @param mayCreate whether a missing queue is created.
     * @return what the engine opens the queue with.
     */
    QueueConfig conclude(final boolean mayOpen, final boolean mayCreate) {
        require(directory != null, "directory", null, "must be given");
        require(rollCycle != null, "rollCycle", null, "must not be null");
        require(retainCycles >= 1, "retainCycles", retainCycles, "must be at least 1: the highest cycle always stays");
        require(retainBytes >= 1, "retainBytes", retainBytes, "must be at least 1");
        require(maxReplicaLagCycles == UNSET || maxReplicaLagCycles >= 1, "maxReplicaLagCycles", maxReplicaLagCycles,
                "must be at least 1");
        require(pretouchLength >= 0, "pretouchLength", pretouchLength, "must not be negative");
        require(pretouchLeadTime != null && !pretouchLeadTime.isNegative(), "pretouchLeadTime", pretouchLeadTime,
                "must not be negative");
        require(epochClock != null, "epochClock", null, "must not be null");
        require(nanoClock != null, "nanoClock", null, "must not be null");
        require(idleStrategy != null, "idleStrategy", null, "must not be null");
        require(errorHandler != null, "errorHandler", null, "must not be null");
        require(threadFactory != null, "threadFactory", null, "must not be null");
        require(syncPolicy != null, "syncPolicy", null, "must not be null");
        require(cycleListener != null, "cycleListener", null, "must not be null");
        final Set<PosixFilePermission> files = FileModes.checkFileMode("fileMode", fileMode);
        final Set<PosixFilePermission> directories = FileModes.checkDirectoryMode("directoryMode", directoryMode);
        if (readOnly) {
            refuseReadOnly("replicaOf", replicaOf != null, replicaOf);
            refuseReadOnly("syncPolicy", syncPolicy != SyncPolicy.NONE, syncPolicy);
            refuseReadOnly("syncMarkers", syncMarkers, syncMarkers);
            refuseReadOnly("retainCycles", retainCycles != Integer.MAX_VALUE, retainCycles);
            refuseReadOnly("retainBytes", retainBytes != Long.MAX_VALUE, retainBytes);
        }
        final Path absolute = directory.toAbsolutePath().normalize();
        return new QueueConfig(absolute, mayOpen, mayCreate && !readOnly, readOnly, Set.copyOf(files),
                Set.copyOf(directories),
                layout(mayCreate && !readOnly), syncPolicy, SyncPolicy::newTrigger, syncMarkers, retainCycles,
                retainBytes, retainForNamedTailers, maxReplicaLagCycles(), cycleListener, pretouchLength, pretouchLeadTime, verifyChecksums,
                registerMBean, epochClock, nanoClock, idleStrategy, errorHandler, threadFactory);
    }

    /** @return the replica lag limit given, or its default. */
    private int maxReplicaLagCycles() {
        if (maxReplicaLagCycles != UNSET) {
            return maxReplicaLagCycles;
        }
        return retainCycles == Integer.MAX_VALUE ? DEFAULT_MAX_REPLICA_LAG_CYCLES
                : (int) Math.min(Integer.MAX_VALUE, 2L * retainCycles);
    }

    /**
     * @param mayCreate whether a new queue may be created with this layout, so that it is checked as a whole.
     * @return the persisted settings, with the defaults of a new queue where none was given.
     */
    private QueueConfig.Layout layout(final boolean mayCreate) {
        check(isPowerOfTwo(chunkLength) && chunkLength >= MIN_CHUNK_LENGTH,
                "chunkLength=" + chunkLength + " must be a power of two of at least " + MIN_CHUNK_LENGTH);
        check(isPowerOfTwo(indexSpacing) && indexSpacing <= MetadataDescriptor.MAX_INDEX_SPACING, "indexSpacing="
                + indexSpacing + " must be a power of two from 1 to " + MetadataDescriptor.MAX_INDEX_SPACING);
        check(isPowerOfTwo(indexBlockEntries) && indexBlockEntries >= MetadataDescriptor.MIN_INDEX_BLOCK_ENTRIES
                        && indexBlockEntries <= MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES,
                "indexBlockEntries=" + indexBlockEntries + " must be a power of two from "
                        + MetadataDescriptor.MIN_INDEX_BLOCK_ENTRIES + " to " + MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES);
        final CycleCalendar calendar;
        if (rollZone != null) {
            final String roll = "rollTime=" + rollTime + " " + rollZone;
            check(rollTime.getSecond() == 0 && rollTime.getNano() == 0, roll + " must be a whole minute");
            check(rollZone.getId().getBytes(StandardCharsets.UTF_8).length <= MetadataDescriptor.ROLL_ZONE_MAX_LENGTH,
                    roll + ": the zone id is longer than " + MetadataDescriptor.ROLL_ZONE_MAX_LENGTH + " bytes");
            calendar = CycleCalendar.zoned(rollTime, rollZone);
        } else {
            calendar = CycleCalendar.of(rollCycle, epochMillis);
        }
        final int features = (checksums ? MetadataDescriptor.FEATURE_CRC32C : 0)
                | (indexTimes ? MetadataDescriptor.FEATURE_INDEX_TIMES : 0)
                | (publisherIds ? MetadataDescriptor.FEATURE_PUBLISHER_IDS : 0)
                | (rollZone != null ? MetadataDescriptor.FEATURE_ZONED_ROLL : 0);
        // an excerpt's body holds its CRC32C, publisher id and sequence too, as the features say
        final long maxLimit = CycleDescriptor.maxPayloadLength(chunkLength) - ExcerptDescriptor.bodyPrefixLength(features);
        final int maxLength = given.contains(Setting.MAX_MESSAGE_LENGTH) ? maxMessageLength : (int) maxLimit;
        // a new queue's chunk length bounds it; an existing queue's own length is what the engine compares it with
        check(maxLength >= 1 && (!mayCreate || maxLength <= maxLimit), "maxMessageLength=" + maxLength
                + " must be from 1 to " + maxLimit + " with chunkLength=" + chunkLength);
        if (mayCreate) {
            check(CycleDescriptor.blockPayloadLength(indexBlockEntries, features) <= maxLimit, "indexBlockEntries="
                    + indexBlockEntries + " makes index blocks longer than a chunk of " + chunkLength + " can hold");
        }
        return new QueueConfig.Layout(calendar, epochMillis, indexSpacing, indexBlockEntries, maxLength, chunkLength,
                checksums, indexTimes, publisherIds, Optional.ofNullable(replicaOf),
                Collections.unmodifiableSet(EnumSet.copyOf(given)));
    }

    /** Refuses a persisted setting, in the words an existing queue's mismatch uses too: the option and its value. */
    private static void check(final boolean valid, final String message) {
        if (!valid) {
            throw new SpoolException(message);
        }
    }

    private static boolean isPowerOfTwo(final long value) {
        return value > 0 && (value & (value - 1)) == 0;
    }

    private void require(final boolean valid, final String option, final Object value, final String rule) {
        if (!valid) {
            throw new SpoolException("queue " + directory + ": " + option + "=" + value + " " + rule);
        }
    }

    private void refuseReadOnly(final String option, final boolean set, final Object value) {
        require(!set, option, value, "writes to the queue, which readOnly() forbids");
    }
}
