package dev.spool.queue;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;

import java.nio.ByteBuffer;

/**
 * Appends excerpts to a queue. One appender belongs to one thread at a time; create one per writing thread.
 * Appenders of any thread or process may write to the same queue: each append holds the queue's write lock for
 * the time it takes to copy the payload.
 * <p>
 * Zero-copy writes claim space, fill it, then commit:
 * <pre>{@code
 * long offset = appender.claim(64);
 * appender.claimedBytes().writeLong(offset, orderId);
 * long index = appender.commit(8);
 * }</pre>
 * Between {@code claim} and {@code commit} or {@code rollback} the write lock is held: keep that short, and
 * never append through another appender in the meantime.
 */
public interface ExcerptAppender extends AutoCloseable {
    /**
     * @param src the payload.
     * @return the index of the new excerpt.
     */
    default long append(final byte[] src) {
        return append(src, 0, src.length);
    }

    /**
     * @param src    holds the payload.
     * @param offset where it starts in {@code src}.
     * @param length its length.
     * @return the index of the new excerpt.
     */
    long append(byte[] src, int offset, int length);

    /**
     * Appends the bytes between the buffer's position and limit, leaving the buffer unchanged. The bytes are copied
     * as they are, whatever the buffer's {@link ByteBuffer#order()}: a reader of the excerpt's {@code BytesStore}
     * reads multi-byte values in native order, little-endian on x86-64 and AArch64, so write them little-endian.
     *
     * @param src holds the payload.
     * @return the index of the new excerpt.
     */
    long append(ByteBuffer src);

    /**
     * Copies the payload byte for byte: a value {@code src} wrote with its native-order accessors reads back the
     * same through the tailer's {@code BytesStore}, little-endian on x86-64 and AArch64.
     *
     * @param src    holds the payload.
     * @param offset where it starts in {@code src}.
     * @param length its length.
     * @return the index of the new excerpt.
     */
    long append(BytesStore<?, ?> src, long offset, int length);

    /**
     * Appends the bytes between the read position and the read limit, leaving {@code src} unchanged, byte for byte
     * (see {@link #append(BytesStore, long, int)} for the byte order).
     *
     * @param src holds the payload.
     * @return the index of the new excerpt.
     */
    default long append(final Bytes<?> src) {
        return append(src.bytesStore(), src.readPosition(), Math.toIntExact(src.readRemaining()));
    }

    /**
     * Takes the write lock and reserves room for a payload of up to {@code maxLength} bytes.
     *
     * @param maxLength the most the payload will need.
     * @return the offset in {@link #claimedBytes()} where the payload goes.
     */
    long claim(int maxLength);

    /**
     * @return the mapped memory of the open claim; offsets are positions in the cycle file. Byte order: the payload's bytes are as the writer gave them; the multi-byte accessors of this {@code BytesStore} ({@code readLong}, {@code writeInt}...) use the native byte order, little-endian on x86-64 and AArch64.
     */
    BytesStore<?, ?> claimedBytes();

    /**
     * Publishes the open claim and releases the write lock.
     *
     * @param length the payload length actually written, at most the claimed length.
     * @return the index of the new excerpt.
     */
    long commit(int length);

    /** Abandons the open claim, leaving no trace, and releases the write lock. */
    void rollback();

    /**
     * Flushes everything appended to the current cycle so far, by any writer, to disk with {@code msync(MS_SYNC)},
     * and records it as the queue's last synced index.
     *
     * @return the last index now on disk, or -1 if the queue is empty.
     */
    long sync();

    /** @return the index of the last excerpt this appender appended, or -1 if none. */
    long lastIndexAppended();

    /**
     * Returns a writer of typed messages: every call on it appends one excerpt (the method's id and its arguments,
     * see {@link dev.spool.queue.format.TypedExcerptDescriptor}) through this appender's claim/commit, allocating
     * nothing. The writer is generated at build time by the {@code spool-processor} annotation processor; creating
     * it also stores the interface's schema in the queue directory, for {@code dump} and {@code tail}. The writer
     * belongs to this appender's thread. A null argument, or a message larger than the queue accepts, is an
     * exception naming the method and parameter, and nothing is appended.
     *
     * @param events an interface annotated {@link dev.spool.queue.typed.Events}.
     * @param <T>    the interface.
     * @return its generated writer over this appender.
     * @throws SpoolException if {@code events} is not an {@code @Events} interface or was not processed.
     */
    <T> T methodWriter(Class<T> events);

    /** Rolls back an open claim and releases this appender's resources. */
    @Override
    void close();
}
