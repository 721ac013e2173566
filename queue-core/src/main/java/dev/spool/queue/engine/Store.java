package dev.spool.queue.engine;

import dev.spool.queue.CycleListener;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.CycleCalendar;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.MappingGuard;
import dev.spool.queue.internal.SchemaFiles;
import dev.spool.queue.internal.ProcessSlots;
import dev.spool.queue.internal.QueueConfig;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;

/**
 * What the appenders, tailers, retention, pretouchers and group commits of one open queue share: the metadata, the
 * cycle files, the write lock (whose process slot is claimed on first use), the source of the current cycle, the
 * doorbells, retention, and the set of open users that closing the queue closes. They depend on this, never on
 * the queue's facade.
 */
final class Store {
    private static final Logger LOG = LoggerFactory.getLogger(Store.class);

    private final Path directory;
    private final MetadataFile metadata;
    private final CycleFiles cycleFiles;
    private final RollCycle rollCycle;
    private final long epochMillis;
    private final CycleCalendar calendar;
    private final int maxMessageLength;
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    private final ErrorHandler errorHandler;
    private final ThreadFactory threadFactory;
    private final RollClock rollClock;
    private final boolean syncMarkers;
    private final boolean checksums;
    private final boolean verifyChecksums;
    /** Bytes of a data excerpt's body before its payload: see {@link ExcerptDescriptor#bodyPrefixLength(int)}. */
    private final int bodyPrefixLength;
    private final Retention retention;
    private final StoreCounters counters = new StoreCounters();
    private final Set<PosixFilePermission> fileMode;
    /** Keeps the files mapped while a view of any thread reads them; closed before they are unmapped. */
    private final MappingGuard guard;
    private final SchemaFiles schemaFiles;
    /** The agent that applies retention after a roll, if the application runs one; else the rolling appender does. */
    private volatile RetentionAgent retentionAgent;
    private final Doorbell.Group appends = new Doorbell.Group();
    private final Doorbell.Group acks = new Doorbell.Group();
    private final Map<AutoCloseable, Boolean> users = new IdentityHashMap<>();
    private ProcessSlots processSlots;
    private int processSlot = -1;
    private WriteLock writeLock;
    private boolean closed;

    Store(final Path directory, final MetadataFile metadata, final QueueConfig config) {
        this.directory = directory;
        this.metadata = metadata;
        this.rollCycle = metadata.rollCycle();
        this.epochMillis = metadata.epochMillis();
        this.calendar = metadata.calendar();
        this.maxMessageLength = metadata.maxMessageLength();
        this.epochClock = config.epochClock();
        this.nanoClock = config.nanoClock();
        this.errorHandler = config.errorHandler();
        this.threadFactory = config.threadFactory();
        this.syncMarkers = config.syncMarkers();
        this.checksums = (metadata.features() & MetadataDescriptor.FEATURE_CRC32C) != 0;
        this.verifyChecksums = checksums && config.verifyChecksums();
        this.bodyPrefixLength = ExcerptDescriptor.bodyPrefixLength(metadata.features());
        this.fileMode = config.fileMode();
        this.guard = new MappingGuard("queue " + directory);
        this.schemaFiles = new SchemaFiles(directory, fileMode, new GuardedGeneration());
        final CycleListener listener = config.cycleListener();
        this.cycleFiles = new CycleFiles(directory, calendar, metadata.chunkLength(), listener, config.readOnly(),
                config.fileMode());
        this.retention = new Retention(this, config.retainCycles(), config.retainBytes(), config.retainForNamedTailers(),
                config.maxReplicaLagCycles(), listener);
        // the system clock is read through the JVM's shared roll clock; any other is read exactly, on every append
        this.rollClock = epochClock == SystemEpochClock.INSTANCE ? RollClock.acquire(calendar) : null;
    }

    Path directory() {
        return directory;
    }

    /** @return the permissions the queue's files are created with: its cycle files', its repair journal's. */
    Set<PosixFilePermission> fileMode() {
        return fileMode;
    }

    MetadataFile metadata() {
        return metadata;
    }

    /**
     * @return the guard that a read of the mapped files by a method any thread may call at any time (the queue's
     * getters, its metrics) enters, and that {@link QueueEngine#close()} closes before anything is unmapped.
     */
    MappingGuard guard() {
        return guard;
    }

    /** @return the typed schema files of the directory, counted in the metadata's schema generation. */
    SchemaFiles schemaFiles() {
        return schemaFiles;
    }

    CycleFiles cycleFiles() {
        return cycleFiles;
    }

    RollCycle rollCycle() {
        return rollCycle;
    }

    long epochMillis() {
        return epochMillis;
    }

    CycleCalendar calendar() {
        return calendar;
    }

    int maxMessageLength() {
        return maxMessageLength;
    }

    /** @return true if every data excerpt carries a CRC32C of its payload ({@link MetadataDescriptor#FEATURE_CRC32C}). */
    boolean checksums() {
        return checksums;
    }

    /** @return true if this instance's tailers check the CRC32C of what they read. */
    boolean verifyChecksums() {
        return verifyChecksums;
    }

    /** @return true if every data excerpt carries its publisher's id and sequence (publisher ids). */
    boolean publisherIds() {
        return bodyPrefixLength > ExcerptDescriptor.CHECKSUM_LENGTH;
    }

    /**
     * @return the bytes of a data excerpt's body before its payload: the CRC32C field, and the publisher id and
     * sequence, as the queue's features have them.
     */
    int bodyPrefixLength() {
        return bodyPrefixLength;
    }

    /** @return the longest body a data header may give: the longest payload and the body's prefix. */
    int maxDataLength() {
        return maxMessageLength + bodyPrefixLength;
    }

    /** @return the wall clock: the cycle of each append, the times of index entries and sync markers. */
    EpochClock epochClock() {
        return epochClock;
    }

    /** @return the monotonic clock: timeouts and intervals. */
    NanoClock nanoClock() {
        return nanoClock;
    }

    /** @return what a background duty's runner reports its failures to. */
    ErrorHandler errorHandler() {
        return errorHandler;
    }

    /** @return what makes a background duty's thread. */
    ThreadFactory threadFactory() {
        return threadFactory;
    }

    boolean syncMarkers() {
        return syncMarkers;
    }

    Retention retention() {
        return retention;
    }

    /** @return what tells a new appender the current cycle: the shared roll clock, or the injected clock read exactly. */
    CycleSource cycleSource() {
        return rollClock != null ? rollClock : new CycleClock(epochClock, calendar);
    }

    /** @return the doorbells an appender of this instance rings after each append. */
    Doorbell.Group appends() {
        return appends;
    }

    /** @return the doorbells {@link QueueEngine#recordAcked(long)} rings. */
    Doorbell.Group acks() {
        return acks;
    }

    /** Rings the append doorbells: called by an appender of this instance after each append. */
    void appended() {
        appends.ring();
    }

    /** @return true if a retention limit is set, so a roll deletes old files. */
    boolean retains() {
        return retention.isLimited();
    }

    /**
     * Applies retention after an appender of this instance started a new cycle. The append has succeeded by now,
     * so a failure is logged, not thrown: the files stay until the next roll or an explicit retention run.
     */
    void applyRetentionAfterRoll(final long cycle) {
        final RetentionAgent agent = retentionAgent;
        if (agent != null) {
            agent.rolled();
            return;
        }
        try {
            retention.apply();
        } catch (RuntimeException e) {
            LOG.error("retention of {} failed after the roll to cycle {}: old files stay until the next roll",
                    directory, cycle, e);
        }
    }

    /**
     * @return a new retention agent, which the appenders' rolls now trigger instead of deleting files themselves.
     * @throws SpoolException if this instance has one already.
     */
    RetentionAgent createRetentionAgent() {
        synchronized (users) {
            checkOpen();
            checkWritable("a retention agent");
            if (retentionAgent != null) {
                throw new SpoolException("queue " + directory + " has a retention agent already: close it first");
            }
            retentionAgent = new RetentionAgent(this);
            return retentionAgent;
        }
    }

    /** Hands retention back to the appenders' rolls, if {@code agent} is this instance's retention agent. */
    void retentionClosed(final RetentionAgent agent) {
        synchronized (users) {
            if (retentionAgent == agent) {
                retentionAgent = null;
            }
        }
    }

    /** Claims this instance's process slot on first use: readers that never write need none. */
    WriteLock writeLock() {
        synchronized (users) {
            checkOpen();
            checkWritable("the write lock");
            if (writeLock == null) {
                final ProcessSlots slots = ProcessSlots.acquire(directory.resolve(MetadataDescriptor.LOCK_FILE_NAME),
                        MetadataDescriptor.PROCESS_SLOT_COUNT, FileModes.lockMode(fileMode));
                try {
                    final int slot = slots.claim(0);
                    final long session = (UUID.randomUUID().getLeastSignificantBits() >>> MetadataDescriptor.LOCK_SLOT_BITS) | 1;
                    metadata.claimProcessSlot(slot, session, ProcessHandle.current().pid());
                    processSlots = slots;
                    processSlot = slot;
                    writeLock = new WriteLock(metadata, slots, MetadataDescriptor.lockWord(session, slot), counters,
                            nanoClock);
                } catch (RuntimeException e) {
                    slots.release();
                    throw e;
                }
            }
            return writeLock;
        }
    }

    /** Registers an appender, tailer or pretoucher that closing the store closes; the caller holds {@link #users()}. */
    void opened(final AutoCloseable user) {
        checkOpen();
        users.put(user, Boolean.TRUE);
    }

    StoreCounters counters() {
        return counters;
    }

    /** @return the counters of the open appenders; the caller holds {@link #users()}. */
    List<AppenderCounters> openAppenderCounters() {
        final List<AppenderCounters> open = new ArrayList<>();
        for (final AutoCloseable user : users.keySet()) {
            if (user instanceof StoreAppender appender) {
                open.add(appender.counters());
            }
        }
        return open;
    }

    /** Forgets an appender that closed itself, adding its counters to the totals at the same moment. */
    void closed(final StoreAppender appender) {
        synchronized (users) {
            if (users.remove(appender) != null) {
                counters.fold(appender.counters());
            }
        }
    }

    /** Forgets a user that closed itself. */
    void closed(final AutoCloseable user) {
        synchronized (users) {
            users.remove(user);
        }
    }

    /** @return the monitor that guards the users, the process slot and the open state. */
    Object users() {
        return users;
    }

    /** @return the open users; the caller holds {@link #users()}. */
    List<AutoCloseable> openUsers() {
        return new ArrayList<>(users.keySet());
    }

    /**
     * @param what what needs to write, for the message.
     * @throws SpoolException if the queue was opened read-only; the metadata file, which every writer of the queue
     *                        passes, refuses the write the same way.
     */
    void checkWritable(final String what) {
        metadata.checkWritable(what);
    }

    /** @throws SpoolException once closed; the caller holds {@link #users()}. */
    void checkOpen() {
        if (closed) {
            throw new SpoolException("queue " + directory + " is closed");
        }
    }

    boolean isClosed() {
        synchronized (users) {
            return closed;
        }
    }

    int openCycleFiles() {
        return cycleFiles.openCount();
    }

    /** Unmaps the files and frees the process slot; the caller closed the users first and holds {@link #users()}. */
    void close() {
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

    /**
     * The metadata's schema generation for {@link SchemaFiles}, which a replication source reads on its duty cycle:
     * read through the guard, so that a read after the queue closed is refused rather than touching unmapped memory.
     */
    private final class GuardedGeneration implements SchemaFiles.Generation {
        @Override
        public long schemaGeneration() {
            guard.enter();
            try {
                return metadata.schemaGeneration();
            } finally {
                guard.exit();
            }
        }

        @Override
        public void incrementSchemaGeneration() {
            guard.enter();
            try {
                metadata.incrementSchemaGeneration();
            } finally {
                guard.exit();
            }
        }

        @Override
        public void checkWritable(final String what) {
            metadata.checkWritable(what);
            guard.checkOpen();
        }
    }
}
