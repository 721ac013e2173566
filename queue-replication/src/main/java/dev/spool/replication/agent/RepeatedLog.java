package dev.spool.replication.agent;

/**
 * Counts one kind of event that a peer may repeat at will (a failed authentication, a handshake that never ends), so
 * that it cannot flood the log: the 1st occurrence is logged, then the 2nd, 4th, 8th... each with the count so far.
 * One thread at a time.
 */
public final class RepeatedLog {
    private long count;

    /** @return the number of occurrences so far, this one included, if this one is to be logged; else 0. */
    public long next() {
        count++;
        return Long.bitCount(count) == 1 ? count : 0;
    }

    /** @return the number of occurrences since the last {@link #reset()}. */
    public long count() {
        return count;
    }

    /** Starts counting again: the streak ended. */
    public void reset() {
        count = 0;
    }

    /** @return "" for the first occurrence, else " (N times so far)": for a message of {@link #next()}. */
    public static String times(final long count) {
        return count > 1 ? " (" + count + " times so far)" : "";
    }
}
