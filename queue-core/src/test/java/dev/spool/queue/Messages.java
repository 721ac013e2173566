package dev.spool.queue;

import net.openhft.chronicle.bytes.BytesStore;

import java.util.zip.CRC32;

/**
 * Self-checking test messages: {@code writer id, sequence, filler, CRC32 of all before it}. A torn or interleaved
 * excerpt fails the check.
 */
public final class Messages {
    public static final int MIN_LENGTH = 12;

    private Messages() {
    }

    /** Fills {@code target[0, length)} with message {@code sequence} of {@code writer}. */
    public static void encode(final byte[] target, final int length, final int writer, final int sequence) {
        putInt(target, 0, writer);
        putInt(target, 4, sequence);
        for (int i = 8; i < length - 4; i++) {
            target[i] = (byte) (writer * 31 + sequence * 17 + i);
        }
        final CRC32 crc = new CRC32();
        crc.update(target, 0, length - 4);
        putInt(target, length - 4, (int) crc.getValue());
    }

    public static int lengthOf(final int writer, final int sequence, final int maxLength) {
        return MIN_LENGTH + Math.floorMod(writer * 7919 + sequence * 104729, maxLength - MIN_LENGTH + 1);
    }

    /** @return {writer, sequence} of a valid message; throws if the bytes are not one. */
    public static int[] decode(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
        if (length < MIN_LENGTH) {
            throw new AssertionError("excerpt " + Long.toHexString(index) + " too short: " + length);
        }
        final byte[] copy = new byte[length];
        bytes.read(offset, copy, 0, length);
        final CRC32 crc = new CRC32();
        crc.update(copy, 0, length - 4);
        if ((int) crc.getValue() != getInt(copy, length - 4)) {
            throw new AssertionError("excerpt " + Long.toHexString(index) + " of length " + length + " fails its checksum");
        }
        return new int[]{getInt(copy, 0), getInt(copy, 4)};
    }

    private static void putInt(final byte[] target, final int at, final int value) {
        target[at] = (byte) value;
        target[at + 1] = (byte) (value >>> 8);
        target[at + 2] = (byte) (value >>> 16);
        target[at + 3] = (byte) (value >>> 24);
    }

    private static int getInt(final byte[] source, final int at) {
        return (source[at] & 0xFF) | (source[at + 1] & 0xFF) << 8 | (source[at + 2] & 0xFF) << 16 | (source[at + 3] & 0xFF) << 24;
    }
}
