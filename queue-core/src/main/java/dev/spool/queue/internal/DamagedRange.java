package dev.spool.queue.internal;

/**
 * Not API: consecutive indices whose excerpts the queue's checksums or format checks prove damaged, as a scan of the
 * queue's files finds them; a repair fetches them from another copy of the queue.
 *
 * @param fromIndex the first damaged index.
 * @param toIndex   the last damaged index, inclusive.
 * @param what      what is wrong, naming the file and position of the first.
 */
public record DamagedRange(long fromIndex, long toIndex, String what) {
}
