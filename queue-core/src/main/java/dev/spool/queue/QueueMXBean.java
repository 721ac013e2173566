package dev.spool.queue;

import java.util.Map;

/**
 * The metrics of one open queue instance, as a JMX MXBean registered under
 * {@code dev.spool:type=Queue,name="<directory>"} when the builder asks ({@link SpoolQueueBuilder#registerMBean()}),
 * and always available from {@link SpoolQueue#metrics()}. Counts are of this instance (this process) since it
 * opened; indices are the queue's, whoever wrote them. The appenders count with plain stores into fields of their
 * own; reading sums them, so a value may be a moment behind.
 * <p>
 * Any thread may read it at any time, while the queue closes too. After {@link SpoolQueue#close()} the counts keep
 * their last values, and the attributes read from the queue's files (the indices, the lags, the role) throw a
 * {@link SpoolException} saying the queue is closed; a read in progress when the close began finishes before the
 * files are unmapped.
 */
public interface QueueMXBean {
    /** @return the queue's directory. */
    String getDirectory();

    /** @return excerpts appended through this instance (appenders and indexed appenders), sync markers excluded. */
    long getAppends();

    /** @return payload bytes appended through this instance. */
    long getAppendedBytes();

    /** @return the index of the last excerpt, or -1 if the queue is empty. */
    long getLastIndex();

    /** @return the last index known to be on disk (flushed with msync by any process), or -1. */
    long getLastSyncedIndex();

    /** @return the msyncs (MS_SYNC) this instance's appenders did, by policy or on demand. */
    long getSyncs();

    /** @return the time those msyncs took in all, in ns: with {@link #getSyncs()}, their mean latency. */
    long getSyncTimeTotalNanos();

    /** @return the longest of those msyncs, in ns. */
    long getSyncTimeMaxNanos();

    /** @return how often this instance took the write lock over from a dead process. */
    long getWriteLockTakeovers();

    /** @return torn tails (excerpts lost to a power loss behind the header's hint) this instance recovered. */
    long getTornTailRecoveries();

    /** @return torn write hints (a writer killed between its two hint stores) this instance repaired. */
    long getTornHintRepairs();

    /** @return the appenders and tailers open in this instance. */
    int getOpenUsers();

    /** @return the cycle files this instance has mapped. */
    int getOpenCycleFiles();

    /** @return the last index each named tailer read (-1 if none), by name. */
    Map<String, Long> getNamedTailerIndex();

    /**
     * @return how many excerpts each named tailer has still to read, by name: exact within a cycle; across cycles
     * it adds the excerpt counts that the cycle files' headers hold, which a writer updates as it goes.
     */
    Map<String, Long> getNamedTailerLag();

    /** @return PRIMARY, REPLICA or FENCED. */
    String getRole();

    /** @return the highest index a replica acknowledged (recorded by replication), or -1. */
    long getLastAckedIndex();

    /** @return excerpts appended here and not yet acknowledged by a replica, the replication lag seen from here. */
    long getAckLag();
}
