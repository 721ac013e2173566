package dev.spool.queue.internal;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every move is checked against {@link System#arraycopy}, which the JDK specifies as a copy through a temporary
 * array: right for overlapping ranges in both directions. The whole region around the move is compared, so a byte
 * written outside the destination fails too.
 */
class MemoryMoveTest {
    @Test
    void shouldMoveEverySmallLengthAtEveryAlignmentAndDistanceInBothDirections() {
        final int region = 160;
        final long base = MEMORY.allocate(region);
        try {
            final byte[] original = randomBytes(region, 1);
            for (int length = 0; length <= 40; length++) {
                for (int alignment = 0; alignment < Long.BYTES; alignment++) {
                    for (int distance = -48; distance <= 48; distance++) {
                        final int src = 56 + alignment;
                        assertMove(base, original, src, src + distance, length);
                    }
                }
            }
        } finally {
            MEMORY.freeMemory(base, region);
        }
    }

    @Test
    void shouldMoveLargeRangesCloseAndFarApartInBothDirections() {
        final int length = (2 << 20) + 5;
        final int region = 3 * length + 64;
        final long base = MEMORY.allocate(region);
        try {
            final byte[] original = randomBytes(region, 2);
            final int src = length + 3;
            final int[] distances = {16, -16, 1, -1, 7, -7, (int) MemoryMove.PIECE_MIN_DISTANCE - 1,
                    (int) -MemoryMove.PIECE_MIN_DISTANCE + 1, (int) MemoryMove.PIECE_MIN_DISTANCE,
                    (int) -MemoryMove.PIECE_MIN_DISTANCE, (1 << 20) + 7, -(1 << 20) - 7, length - 1, -length + 1,
                    length, -length, length + 9, -length - 1};
            for (final int distance : distances) {
                assertMove(base, original, src, src + distance, length);
            }
        } finally {
            MEMORY.freeMemory(base, region);
        }
    }

    @Test
    void shouldRefuseANegativeLength() {
        assertThrows(IllegalArgumentException.class, () -> MemoryMove.move(4096, 8192, -1));
    }

    /** Fills the region with {@code original}, moves, and compares the whole region with the array model's. */
    private static void assertMove(final long base, final byte[] original, final int src, final int dst,
                                   final int length) {
        MEMORY.writeBytes(base, original, 0, original.length);
        MemoryMove.move(base + src, base + dst, length);
        final byte[] expected = original.clone();
        System.arraycopy(expected, src, expected, dst, length);
        final byte[] actual = new byte[original.length];
        MEMORY.readBytes(base, actual, 0, actual.length);
        assertArrayEquals(expected, actual, () -> "move of " + length + " bytes from offset " + src + " to " + dst);
    }

    private static byte[] randomBytes(final int length, final long seed) {
        final byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }
}
