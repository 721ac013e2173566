package dev.spool.queue.internal;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Not API: moves bytes of native memory between ranges that may overlap, in either direction, as C's
 * {@code memmove} does; every overlapping move in Spool goes through it.
 * <p>
 * Chronicle's {@code UnsafeMemory.copyMemory(long, long, long)} is not such a move: from 1 MiB on it copies front to
 * back in 1 MiB pieces, so a move to a higher address by less than the length overwrites source bytes before it
 * reads them; and below 1 MiB it hands the whole range to {@code Unsafe.copyMemory}, whose contract says nothing
 * about overlap. This class gives that call only ranges that do not overlap: disjoint moves whole, overlapping ones
 * in pieces no longer than the distance between the ranges, taken from the end first when the move goes to a
 * higher address. When the ranges are closer than {@value #PIECE_MIN_DISTANCE} bytes (a frame's MAC is 16) the
 * pieces would be too small to pay for the call, and the move goes by 8-byte words in the same order, each word
 * read before any byte of it is written. Allocates nothing.
 */
public final class MemoryMove {
    /** Overlapping ranges at least this far apart move in pieces of the distance; closer ones by words. */
    static final long PIECE_MIN_DISTANCE = 4096;

    private MemoryMove() {
    }

    /**
     * Moves {@code length} bytes from {@code srcAddress} to {@code dstAddress}: afterwards the destination holds what
     * the source held before, whether or not the ranges overlap. Bytes of the source outside the destination keep
     * their values.
     *
     * @param srcAddress where the bytes are.
     * @param dstAddress where they go.
     * @param length     how many bytes; 0 moves nothing.
     * @throws IllegalArgumentException if {@code length} is negative.
     */
    public static void move(final long srcAddress, final long dstAddress, final long length) {
        if (length <= 0 || srcAddress == dstAddress) {
            if (length < 0) {
                throw new IllegalArgumentException("length=" + length + " of a move from 0x"
                        + Long.toHexString(srcAddress) + " to 0x" + Long.toHexString(dstAddress) + " is negative");
            }
            return;
        }
        final long distance = dstAddress - srcAddress;
        if (distance >= length || -distance >= length) {
            MEMORY.copyMemory(srcAddress, dstAddress, length);
        } else if (distance > 0) {
            moveUp(srcAddress, dstAddress, length, distance);
        } else {
            moveDown(srcAddress, dstAddress, length, -distance);
        }
    }

    /** To a higher address: from the end, so each byte is read before the move reaches it as a destination. */
    private static void moveUp(final long srcAddress, final long dstAddress, final long length, final long distance) {
        if (distance >= PIECE_MIN_DISTANCE) {
            long end = length;
            while (end > 0) {
                final long piece = Math.min(distance, end);
                end -= piece;
                MEMORY.copyMemory(srcAddress + end, dstAddress + end, piece);
            }
            return;
        }
        final long words = length & ~(Long.BYTES - 1L);
        for (long i = length - 1; i >= words; i--) {
            MEMORY.writeByte(dstAddress + i, MEMORY.readByte(srcAddress + i));
        }
        for (long i = words - Long.BYTES; i >= 0; i -= Long.BYTES) {
            MEMORY.writeLong(dstAddress + i, MEMORY.readLong(srcAddress + i));
        }
    }

    /** To a lower address: from the start, so each byte is read before the move reaches it as a destination. */
    private static void moveDown(final long srcAddress, final long dstAddress, final long length, final long distance) {
        if (distance >= PIECE_MIN_DISTANCE) {
            long start = 0;
            while (start < length) {
                final long piece = Math.min(distance, length - start);
                MEMORY.copyMemory(srcAddress + start, dstAddress + start, piece);
                start += piece;
            }
            return;
        }
        final long words = length & ~(Long.BYTES - 1L);
        for (long i = 0; i < words; i += Long.BYTES) {
            MEMORY.writeLong(dstAddress + i, MEMORY.readLong(srcAddress + i));
        }
        for (long i = words; i < length; i++) {
            MEMORY.writeByte(dstAddress + i, MEMORY.readByte(srcAddress + i));
        }
    }
}
