package dev.spool.queue.internal;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolException;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Not API: writes each excerpt at an index its caller chose, for the replication sink (a {@link QueueRole#REPLICA}
 * holds its primary's excerpts at the primary's indices) and the ring buffer's drainer (a {@link QueueRole#PRIMARY}
 * written at the indices the ring assigned). The index must be the next one of the current cycle, or sequence 0 of
 * a later cycle, which ends the current cycle as a roll would (end-of-cycle marker, new file, retention after the
 * roll, doorbells); anything else is a {@link SpoolException} naming both indices and the queue's directory: an
 * earlier index is written already (another writer appended), a later one leaves a gap. A fenced queue refuses
 * it. Obtained from {@link QueueInternals#createIndexedAppender()}; one instance belongs to one thread at a time.
 */
public interface IndexedAppender extends AutoCloseable {
    /**
     * @param index  the index the excerpt takes.
     * @param src    holds the payload.
     * @param offset where it starts in {@code src}.
     * @param length its length.
     * @return {@code index}.
     */
    long appendAt(long index, BytesStore<?, ?> src, long offset, int length);

    /**
     * @param index  the index the excerpt takes.
     * @param src    holds the payload.
     * @param offset where it starts in {@code src}.
     * @param length its length.
     * @return {@code index}.
     */
    long appendAt(long index, byte[] src, int offset, int length);

    /**
     * Writes a data excerpt's body as a queue of the same kind stores it, and as a body tailer
     * ({@link QueueInternals#createBodyTailer()}) delivers it: in a queue with checksums, the CRC32C field then the
     * payload; in a queue with publisher ids, the CRC32C field (0 without checksums), the publisher id and sequence,
     * then the payload (see {@code ExcerptDescriptor}); otherwise the payload alone. Written verbatim, so the files of a
     * replica hold the same bytes as its primary's. In a queue with checksums, a body whose CRC32C does not match its
     * payload is refused with an {@link SpoolException} naming the index and both values, and nothing is
     * written.
     *
     * @param index      the index the excerpt takes.
     * @param src        holds the body.
     * @param offset     where it starts in {@code src}.
     * @param bodyLength its length.
     * @return {@code index}.
     */
    long appendBodyAt(long index, BytesStore<?, ?> src, long offset, int bodyLength);

    /**
     * Flushes everything written so far to disk, as {@link ExcerptAppender#sync()} does.
     *
     * @return the last index now on disk, or -1 if the queue is empty.
     */
    long sync();

    /** Releases the appender's resources. */
    @Override
    void close();
}
