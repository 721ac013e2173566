package dev.spool.queue.internal;

import dev.spool.queue.CycleListener;
import dev.spool.queue.SyncPolicy;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;

/**
 * Not API: the settings of one open queue, concluded by its builder: every option checked, every default resolved,
 * nothing null. Immutable (the builder gives it immutable sets), and the only thing the engine reads; the queue's
 * clocks, idle strategy, error handler and thread factory reach the sibling modules from here through
 * {@link QueueInternals}.
 *
 * @param directory             the queue's directory, absolute and normalized.
 * @param mayOpen               whether an existing queue is opened.
 * @param mayCreate             whether a missing queue is created.
 * @param readOnly              map read-only and never write: no appender, named tailer, retention or sync.
 * @param fileMode              the permissions of the files a writer creates; the lock file's derive from it.
 * @param directoryMode         the permissions of the directories a writer creates.
 * @param layout                the persisted settings: a new queue's, and which of them an existing queue must match.
 * @param syncPolicy            the appenders' default sync policy.
 * @param syncTriggers          makes an appender's evaluation of a sync policy.
 * @param syncMarkers           whether a sync appends a sync marker.
 * @param retainCycles          cycle files to keep; {@link Integer#MAX_VALUE} for every one.
 * @param retainBytes           used bytes to keep; {@link Long#MAX_VALUE} for no limit.
 * @param retainForNamedTailers whether a named tailer's unread cycles stay.
 * @param maxReplicaLagCycles   cycles a replica may lag behind the highest and still keep its cycles from retention.
 * @param cycleListener         told of cycle files acquired, released and deleted.
 * @param pretouchLength        bytes a pretoucher touches ahead of the writer.
 * @param pretouchLeadTime      how long before a roll a pretoucher creates the next file.
 * @param verifyChecksums       whether this instance's tailers check the CRC32C of what they read.
 * @param registerMBean         whether the queue's MXBean is registered while it is open.
 * @param epochClock            the wall clock: which cycle an append goes to, index and sync marker times.
 * @param nanoClock             the monotonic clock: timeouts, intervals, the time-based sync policies.
 * @param idleStrategy          makes the idle strategy of each waiting tailer.
 * @param errorHandler          told of the failures of the queue's background duties.
 * @param threadFactory         makes the threads of the queue's background duties.
 */
public record QueueConfig(Path directory, boolean mayOpen, boolean mayCreate, boolean readOnly,
                          Set<PosixFilePermission> fileMode, Set<PosixFilePermission> directoryMode, Layout layout,
                          SyncPolicy syncPolicy, SyncTriggers syncTriggers, boolean syncMarkers, int retainCycles,
                          long retainBytes, boolean retainForNamedTailers, int maxReplicaLagCycles,
                          CycleListener cycleListener,
                          long pretouchLength, Duration pretouchLeadTime, boolean verifyChecksums,
                          boolean registerMBean, EpochClock epochClock, NanoClock nanoClock,
                          Supplier<IdleStrategy> idleStrategy, ErrorHandler errorHandler,
                          ThreadFactory threadFactory) {
    /** Makes an appender's evaluation of a sync policy: the policy's own, which only the API's package may make. */
    @FunctionalInterface
    public interface SyncTriggers {
        /**
         * @param policy the appender's policy.
         * @param clock  the appender's monotonic clock, for the policy's time-based rules.
         * @return its evaluation for one appender, or null if it never syncs.
         */
        SyncTrigger create(SyncPolicy policy, NanoClock clock);
    }

    /** A persisted setting, which a builder may give or leave to the queue. */
    public enum Setting {
        /** The roll cycle. */
        ROLL_CYCLE,
        /** The epoch of the roll cycle. */
        EPOCH_MILLIS,
        /** The time of day and zone of a zoned roll. */
        ROLL_TIME,
        /** Excerpts between two index entries. */
        INDEX_SPACING,
        /** Entries per index block. */
        INDEX_BLOCK_ENTRIES,
        /** The longest payload. */
        MAX_MESSAGE_LENGTH,
        /** The mapping unit. */
        CHUNK_LENGTH,
        /** A CRC32C per excerpt. */
        CHECKSUMS,
        /** A time per index entry. */
        INDEX_TIMES,
        /** A publisher id and sequence per excerpt. */
        PUBLISHER_IDS,
        /** The primary's identity of a replica. */
        REPLICA_OF
    }

    /**
     * The settings a queue persists: all of them, resolved, for a new queue; for an existing queue, the ones in
     * {@code given} must equal the persisted ones, and the others are adopted from it.
     *
     * @param calendar          when each cycle starts: a roll cycle from an epoch, or a zoned roll.
     * @param epochMillis       the epoch of the roll cycle; 0 for a zoned roll.
     * @param indexSpacing      excerpts between two index entries.
     * @param indexBlockEntries entries per index block.
     * @param maxMessageLength  the longest payload.
     * @param chunkLength       the mapping unit.
     * @param checksums         whether excerpts carry a CRC32C.
     * @param indexTimes        whether index entries hold times.
     * @param publisherIds      whether excerpts carry their publisher's id and sequence.
     * @param replicaOf         the primary's queue id for a replica; empty for a primary.
     * @param given             the settings the builder was given.
     */
    public record Layout(CycleCalendar calendar, long epochMillis, int indexSpacing, int indexBlockEntries,
                         int maxMessageLength, long chunkLength, boolean checksums, boolean indexTimes,
                         boolean publisherIds, Optional<UUID> replicaOf, Set<Setting> given) {
        /**
         * @param setting a persisted setting.
         * @return true if the builder gave it, so an existing queue must have the same.
         */
        public boolean isGiven(final Setting setting) {
            return given.contains(setting);
        }
    }
}
