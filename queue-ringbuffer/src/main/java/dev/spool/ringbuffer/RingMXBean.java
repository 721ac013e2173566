package dev.spool.ringbuffer;

/**
 * The metrics of a ring, as a JMX MXBean registered under {@code dev.spool:type=Ring,name="<ring path>"} when the
 * builder asks ({@link AsyncQueueBuilder#registerMBean()}). The counts live in the ring file's header, so they are
 * the ring's since it was created, across every process that used it: see {@link RingStats}, which also says what a
 * read after the ring closed does.
 */
public interface RingMXBean {
    /** @return the ring file. */
    String getPath();

    /** @return the capacity of the data region in bytes. */
    int getCapacity();

    /** @return bytes claimed and not yet drained, padding included. */
    long getOccupancy();

    /** @return the most bytes a claim has found in use since the ring was created. */
    long getHighWaterMark();

    /** @return how long ago the oldest record not yet drained was claimed, in ms; 0 when the ring is empty. */
    long getDrainLagMillis();

    /** @return how many claims found the ring full: the back-pressure events. */
    long getBackPressureEvents();

    /** @return claims turned into padding because their producer died or timed out. */
    long getRevokedClaims();

    /** @return claims whose header was never written that the consumer unblocked. */
    long getUnblockedClaims();

    /** @return records drainers have copied into the queue. */
    long getDrainedRecords();

    /** @return batches drainers have copied into the queue. */
    long getDrainedBatches();

    /** @return records a drainer found already in the queue after its predecessor died mid-batch. */
    long getRecoveredRecords();

    /** @return the queue index of the last drained record, or -1. */
    long getLastDrainedIndex();
}
