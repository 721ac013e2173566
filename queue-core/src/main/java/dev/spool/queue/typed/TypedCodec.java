package dev.spool.queue.typed;

import dev.spool.queue.SpoolException;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesMarshallable;
import net.openhft.chronicle.bytes.BytesStore;

import static dev.spool.queue.format.TypedExcerptDescriptor.EVENTS_ID_OFFSET;
import static dev.spool.queue.format.TypedExcerptDescriptor.FIXED_LENGTH_LENGTH;
import static dev.spool.queue.format.TypedExcerptDescriptor.HEADER_LENGTH;
import static dev.spool.queue.format.TypedExcerptDescriptor.LENGTH_LENGTH;
import static dev.spool.queue.format.TypedExcerptDescriptor.MAGIC;
import static dev.spool.queue.format.TypedExcerptDescriptor.METHOD_ID_OFFSET;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_BOOLEAN;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_BYTE;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_BYTES;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_CHAR;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_DOUBLE;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_ENUM;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_FIXED_BYTES;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_FIXED_STRING;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_FLOAT;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_INT;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_LENGTH;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_LONG;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_MARSHALLABLE;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_MESSAGE;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_SHORT;
import static dev.spool.queue.format.TypedExcerptDescriptor.TAG_STRING;

/**
 * The encoding half of the typed layout ({@link dev.spool.queue.format.TypedExcerptDescriptor}): a generated
 * writer first sizes a call with the {@code sizeOf} methods, which also reject nulls and values that do not fit,
 * so that nothing is claimed for a call that cannot be written; then claims exactly that and writes the fields with
 * the {@code write} methods, each of which returns the position after what it wrote. Public for the generated code
 * only; allocates nothing except on the throw path.
 */
public final class TypedCodec {
    /** Bytes of a boolean or byte field, tag included. */
    public static final int BYTE_FIELD_LENGTH = TAG_LENGTH + Byte.BYTES;
    /** Bytes of a short, char or enum field, tag included. */
    public static final int SHORT_FIELD_LENGTH = TAG_LENGTH + Short.BYTES;
    /** Bytes of an int or float field, tag included. */
    public static final int INT_FIELD_LENGTH = TAG_LENGTH + Integer.BYTES;
    /** Bytes of a long or double field, tag included. */
    public static final int LONG_FIELD_LENGTH = TAG_LENGTH + Long.BYTES;
    /** Bytes before a fixed string's or fixed byte array's value: its tag and length. */
    public static final int FIXED_PREFIX_LENGTH = TAG_LENGTH + FIXED_LENGTH_LENGTH;
    /** Bytes before a message's fields: its tag and length. */
    public static final int MESSAGE_PREFIX_LENGTH = TAG_LENGTH + LENGTH_LENGTH;

    private TypedCodec() {
    }

    /**
     * @param value  an argument or field value.
     * @param method the interface and method being written.
     * @param field  the parameter or field path.
     * @param <T>    its type.
     * @return {@code value}.
     * @throws NullPointerException naming the method and field, if it is null.
     */
    public static <T> T requireNonNull(final T value, final String method, final String field) {
        if (value == null) {
            throw new NullPointerException(method + ": " + field + " is null; a typed message has no nulls");
        }
        return value;
    }

    /**
     * @param value  a string argument or field.
     * @param method the interface and method being written.
     * @param field  the parameter or field path.
     * @return the bytes of its field: tag, length and UTF-8.
     */
    public static int sizeOfString(final CharSequence value, final String method, final String field) {
        requireNonNull(value, method, field);
        return TAG_LENGTH + LENGTH_LENGTH + utf8Length(value);
    }

    /**
     * Checks a fixed string's length; its characters are checked as {@link #writeFixedString} writes them, so that
     * the string is read once.
     *
     * @param value  a string argument or field.
     * @param length its fixed length in bytes.
     * @param method the interface and method being written.
     * @param field  the parameter or field path.
     * @return the bytes of its field.
     * @throws SpoolException if it is longer than {@code length}.
     */
    public static int sizeOfFixedString(final CharSequence value, final int length, final String method, final String field) {
        requireNonNull(value, method, field);
        final int chars = value.length();
        if (chars > length) {
            throw new SpoolException(method + ": " + field + " has " + chars + " characters, more than its @Fixed("
                    + length + ")");
        }
        return FIXED_PREFIX_LENGTH + length;
    }

    /**
     * @param value  a {@code Bytes} argument or field: its readable bytes are written.
     * @param method the interface and method being written.
     * @param field  the parameter or field path.
     * @return the bytes of its field.
     */
    public static int sizeOfBytes(final Bytes<?> value, final String method, final String field) {
        requireNonNull(value, method, field);
        return TAG_LENGTH + LENGTH_LENGTH + Math.toIntExact(value.readRemaining());
    }

    /**
     * @param value  a {@code byte[]} argument or field.
     * @param length its fixed length.
     * @param method the interface and method being written.
     * @param field  the parameter or field path.
     * @return the bytes of its field.
     * @throws SpoolException if the array's length is not {@code length}.
     */
    public static int sizeOfFixedBytes(final byte[] value, final int length, final String method, final String field) {
        requireNonNull(value, method, field);
        if (value.length != length) {
            throw new SpoolException(method + ": " + field + " has " + value.length + " bytes, not its @Fixed("
                    + length + ")");
        }
        return TAG_LENGTH + FIXED_LENGTH_LENGTH + length;
    }

    /**
     * Writes a {@code BytesMarshallable} into the writer's scratch buffer for that field, to learn its length.
     *
     * @param value   the argument or field.
     * @param scratch the writer's buffer for this field, written again by {@link #writeMarshallable}.
     * @param method  the interface and method being written.
     * @param field   the parameter or field path.
     * @return the bytes of its field.
     */
    public static int sizeOfMarshallable(final BytesMarshallable value, final Bytes<?> scratch, final String method,
                                         final String field) {
        requireNonNull(value, method, field);
        scratch.clear();
        value.writeMarshallable(scratch);
        return TAG_LENGTH + LENGTH_LENGTH + Math.toIntExact(scratch.readRemaining());
    }

    /**
     * @param bytes    the claim.
     * @param offset   where the payload starts.
     * @param eventsId the interface's id.
     * @param methodId the method's id.
     * @return the position of the first field.
     */
    public static long writeHeader(final BytesStore<?, ?> bytes, final long offset, final int eventsId, final int methodId) {
        bytes.writeShort(offset, (short) MAGIC);
        bytes.writeShort(offset + EVENTS_ID_OFFSET, (short) eventsId);
        bytes.writeShort(offset + METHOD_ID_OFFSET, (short) methodId);
        return offset + HEADER_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    its value.
     * @return the position after it.
     */
    public static long writeBoolean(final BytesStore<?, ?> bytes, final long position, final boolean value) {
        bytes.writeByte(position, TAG_BOOLEAN);
        bytes.writeByte(position + TAG_LENGTH, (byte) (value ? 1 : 0));
        return position + BYTE_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    its value.
     * @return the position after it.
     */
    public static long writeByte(final BytesStore<?, ?> bytes, final long position, final byte value) {
        bytes.writeByte(position, TAG_BYTE);
        bytes.writeByte(position + TAG_LENGTH, value);
        return position + BYTE_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    its value.
     * @return the position after it.
     */
    public static long writeShort(final BytesStore<?, ?> bytes, final long position, final short value) {
        bytes.writeByte(position, TAG_SHORT);
        bytes.writeShort(position + TAG_LENGTH, value);
        return position + SHORT_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    its value.
     * @return the position after it.
     */
    public static long writeChar(final BytesStore<?, ?> bytes, final long position, final char value) {
        bytes.writeByte(position, TAG_CHAR);
        bytes.writeShort(position + TAG_LENGTH, (short) value);
        return position + SHORT_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    its value.
     * @return the position after it.
     */
    public static long writeInt(final BytesStore<?, ?> bytes, final long position, final int value) {
        bytes.writeByte(position, TAG_INT);
        bytes.writeInt(position + TAG_LENGTH, value);
        return position + INT_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    its value.
     * @return the position after it.
     */
    public static long writeLong(final BytesStore<?, ?> bytes, final long position, final long value) {
        bytes.writeByte(position, TAG_LONG);
        bytes.writeLong(position + TAG_LENGTH, value);
        return position + LONG_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    its value.
     * @return the position after it.
     */
    public static long writeFloat(final BytesStore<?, ?> bytes, final long position, final float value) {
        bytes.writeByte(position, TAG_FLOAT);
        bytes.writeFloat(position + TAG_LENGTH, value);
        return position + INT_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    its value.
     * @return the position after it.
     */
    public static long writeDouble(final BytesStore<?, ?> bytes, final long position, final double value) {
        bytes.writeByte(position, TAG_DOUBLE);
        bytes.writeDouble(position + TAG_LENGTH, value);
        return position + LONG_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    the enum constant, not null (sized first).
     * @return the position after it.
     */
    public static long writeEnum(final BytesStore<?, ?> bytes, final long position, final Enum<?> value) {
        bytes.writeByte(position, TAG_ENUM);
        bytes.writeShort(position + TAG_LENGTH, (short) value.ordinal());
        return position + SHORT_FIELD_LENGTH;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    the string, not null (sized first).
     * @return the position after it.
     */
    public static long writeString(final BytesStore<?, ?> bytes, final long position, final CharSequence value) {
        bytes.writeByte(position, TAG_STRING);
        final long start = position + TAG_LENGTH + LENGTH_LENGTH;
        long at = start;
        final int chars = value.length();
        for (int i = 0; i < chars; i++) {
            final char c = value.charAt(i);
            if (c < 0x80) {
                bytes.writeByte(at++, (byte) c);
            } else if (c < 0x800) {
                bytes.writeByte(at++, (byte) (0xC0 | c >> 6));
                bytes.writeByte(at++, (byte) (0x80 | c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(value.charAt(i + 1))) {
                final int cp = Character.toCodePoint(c, value.charAt(++i));
                bytes.writeByte(at++, (byte) (0xF0 | cp >> 18));
                bytes.writeByte(at++, (byte) (0x80 | cp >> 12 & 0x3F));
                bytes.writeByte(at++, (byte) (0x80 | cp >> 6 & 0x3F));
                bytes.writeByte(at++, (byte) (0x80 | cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                bytes.writeByte(at++, (byte) '?');
            } else {
                bytes.writeByte(at++, (byte) (0xE0 | c >> 12));
                bytes.writeByte(at++, (byte) (0x80 | c >> 6 & 0x3F));
                bytes.writeByte(at++, (byte) (0x80 | c & 0x3F));
            }
        }
        bytes.writeInt(position + TAG_LENGTH, (int) (at - start));
        return at;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    the string, its length checked by {@link #sizeOfFixedString}.
     * @param length   its fixed length.
     * @param method   the interface and method being written.
     * @param field    the parameter or field path.
     * @return the position after it.
     * @throws SpoolException if a character is above U+00FF; the generated writer then rolls the claim back.
     */
    public static long writeFixedString(final BytesStore<?, ?> bytes, final long position, final CharSequence value,
                                        final int length, final String method, final String field) {
        bytes.writeByte(position, TAG_FIXED_STRING);
        bytes.writeShort(position + TAG_LENGTH, (short) length);
        final long start = position + FIXED_PREFIX_LENGTH;
        final int chars = value.length();
        for (int i = 0; i < chars; i++) {
            final char c = value.charAt(i);
            if (c > 0xFF) {
                throw new SpoolException(method + ": " + field + " has character U+" + String.format("%04X", (int) c)
                        + " at " + i + ", outside the ISO-8859-1 of a @Fixed string");
            }
            bytes.writeByte(start + i, (byte) c);
        }
        for (int i = chars; i < length; i++) {
            bytes.writeByte(start + i, (byte) 0);
        }
        return start + length;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    the bytes, not null (sized first); its readable bytes are written, its positions unchanged.
     * @return the position after it.
     */
    public static long writeBytes(final BytesStore<?, ?> bytes, final long position, final Bytes<?> value) {
        return writeRegion(bytes, position, TAG_BYTES, value);
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param value    the array, checked by {@link #sizeOfFixedBytes}.
     * @return the position after it.
     */
    public static long writeFixedBytes(final BytesStore<?, ?> bytes, final long position, final byte[] value) {
        bytes.writeByte(position, TAG_FIXED_BYTES);
        bytes.writeShort(position + TAG_LENGTH, (short) value.length);
        final long start = position + TAG_LENGTH + FIXED_LENGTH_LENGTH;
        bytes.write(start, value, 0, value.length);
        return start + value.length;
    }

    /**
     * @param bytes    the claim.
     * @param position where the field goes.
     * @param scratch  the buffer {@link #sizeOfMarshallable} wrote the value into.
     * @return the position after it.
     */
    public static long writeMarshallable(final BytesStore<?, ?> bytes, final long position, final Bytes<?> scratch) {
        return writeRegion(bytes, position, TAG_MARSHALLABLE, scratch);
    }

    /**
     * Starts a nested message: writes its tag and leaves its length to {@link #endMessage}.
     *
     * @param bytes    the claim.
     * @param position where the field goes.
     * @return the position of the message's first field.
     */
    public static long startMessage(final BytesStore<?, ?> bytes, final long position) {
        bytes.writeByte(position, TAG_MESSAGE);
        return position + MESSAGE_PREFIX_LENGTH;
    }

    /**
     * @param bytes the claim.
     * @param start what {@link #startMessage} returned.
     * @param end   the position after the message's last field.
     * @return {@code end}.
     */
    public static long endMessage(final BytesStore<?, ?> bytes, final long start, final long end) {
        bytes.writeInt(start - LENGTH_LENGTH, (int) (end - start));
        return end;
    }

    /**
     * @param value a string.
     * @return the length of its UTF-8 encoding; an unpaired surrogate, which UTF-8 cannot carry, is written as '?'.
     */
    static int utf8Length(final CharSequence value) {
        final int chars = value.length();
        int length = 0;
        for (int i = 0; i < chars; i++) {
            final char c = value.charAt(i);
            if (c < 0x80) {
                length++;
            } else if (c < 0x800) {
                length += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(value.charAt(i + 1))) {
                length += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                length++;
            } else {
                length += 3;
            }
        }
        return length;
    }

    private static long writeRegion(final BytesStore<?, ?> bytes, final long position, final byte tag, final Bytes<?> value) {
        final int length = (int) value.readRemaining();
        bytes.writeByte(position, tag);
        bytes.writeInt(position + TAG_LENGTH, length);
        final long start = position + TAG_LENGTH + LENGTH_LENGTH;
        bytes.write(start, value, value.readPosition(), length);
        return start + length;
    }
}
