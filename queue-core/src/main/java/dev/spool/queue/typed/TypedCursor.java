package dev.spool.queue.typed;

import dev.spool.queue.IndexFormat;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesMarshallable;
import net.openhft.chronicle.bytes.BytesStore;

import java.util.Arrays;

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
import static dev.spool.queue.format.TypedExcerptDescriptor.tagName;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The decoding half of the typed layout ({@link dev.spool.queue.format.TypedExcerptDescriptor}): a generated reader
 * walks one excerpt's fields with it, in order. A field past the end of the data (an older writer's excerpt, or a
 * message's) reads as its default; fields the reader does not know are skipped when a message ends; a tag that
 * differs from the expected type, or a length past the end, is a {@link TypedExcerptException} naming the excerpt,
 * the method and the field. One cursor per reader, reused for every excerpt; allocates nothing except on the throw
 * path. Public for the generated code only.
 */
public final class TypedCursor {
    /** What {@code methodId} returns for a payload that is not a typed excerpt of the reader's interface. */
    public static final int NOT_THIS_INTERFACE = -1;

    private final Bytes<?> scratch = Bytes.allocateElasticOnHeap(64);
    private BytesStore<?, ?> bytes;
    private long start;
    private long position;
    private long end;
    private long index;
    private String method;
    private long layoutMismatches;

    /**
     * Starts on an excerpt.
     *
     * @param bytes  holds the payload.
     * @param offset where it starts.
     * @param length its length.
     * @param index  its queue index.
     * @return the events id (high 16 bits) and method id (low 16 bits) of its header.
     * @throws TypedExcerptException if it is too short for the header or its magic is wrong.
     */
    public int start(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
        this.bytes = bytes;
        this.start = offset;
        this.end = offset + length;
        this.index = index;
        this.method = null;
        if (length < HEADER_LENGTH) {
            throw new TypedExcerptException(index, "excerpt " + IndexFormat.format(index, null)
                    + " is not a typed excerpt: " + length + " bytes, fewer than the " + HEADER_LENGTH + "-byte typed header");
        }
        final int magic = bytes.readUnsignedShort(offset);
        if (magic != MAGIC) {
            throw new TypedExcerptException(index, "excerpt " + IndexFormat.format(index, null)
                    + " is not a typed excerpt: magic 0x" + Integer.toHexString(magic) + ", expected 0x" + Integer.toHexString(MAGIC));
        }
        position = offset + HEADER_LENGTH;
        return bytes.readUnsignedShort(offset + EVENTS_ID_OFFSET) << 16 | bytes.readUnsignedShort(offset + METHOD_ID_OFFSET);
    }

    /**
     * Counts an excerpt of a method with fixed-length arguments that did not have the layout the reader's build
     * writes, so is read field by field.
     */
    public void layoutMismatch() {
        layoutMismatches++;
    }

    /** @return how many excerpts {@link #layoutMismatch()} counted. */
    public long layoutMismatches() {
        return layoutMismatches;
    }

    /**
     * @param address  where a payload starts, in native memory.
     * @param length   its length.
     * @param eventsId the reader's interface id.
     * @return the payload's method id if it is a typed excerpt of that interface, else {@link #NOT_THIS_INTERFACE}.
     */
    public static int methodId(final long address, final int length, final int eventsId) {
        if (length < HEADER_LENGTH || (MEMORY.readShort(address) & 0xFFFF) != MAGIC
                || (MEMORY.readShort(address + EVENTS_ID_OFFSET) & 0xFFFF) != eventsId) {
            return NOT_THIS_INTERFACE;
        }
        return MEMORY.readShort(address + METHOD_ID_OFFSET) & 0xFFFF;
    }

    /**
     * @param bytes    holds a payload.
     * @param offset   where it starts.
     * @param length   its length.
     * @param eventsId the reader's interface id.
     * @return the payload's method id if it is a typed excerpt of that interface, else {@link #NOT_THIS_INTERFACE}.
     */
    public static int methodId(final BytesStore<?, ?> bytes, final long offset, final int length, final int eventsId) {
        if (length < HEADER_LENGTH || bytes.readUnsignedShort(offset) != MAGIC
                || bytes.readUnsignedShort(offset + EVENTS_ID_OFFSET) != eventsId) {
            return NOT_THIS_INTERFACE;
        }
        return bytes.readUnsignedShort(offset + METHOD_ID_OFFSET);
    }

    /** @param method the interface and method being read, named by errors from now on. */
    public void method(final String method) {
        this.method = method;
    }

    /** @return true if a field follows in the current message (or the excerpt); false if it reads as its default. */
    public boolean present() {
        return position < end;
    }

    /**
     * @param field the parameter or field path.
     * @return the value, or false if absent.
     */
    public boolean readBoolean(final String field) {
        final long at = field(TAG_BOOLEAN, Byte.BYTES, field);
        return at >= 0 && bytes.readByte(at) != 0;
    }

    /**
     * @param field the parameter or field path.
     * @return the value, or 0 if absent.
     */
    public byte readByte(final String field) {
        final long at = field(TAG_BYTE, Byte.BYTES, field);
        return at < 0 ? 0 : bytes.readByte(at);
    }

    /**
     * @param field the parameter or field path.
     * @return the value, or 0 if absent.
     */
    public short readShort(final String field) {
        final long at = field(TAG_SHORT, Short.BYTES, field);
        return at < 0 ? 0 : bytes.readShort(at);
    }

    /**
     * @param field the parameter or field path.
     * @return the value, or 0 if absent.
     */
    public char readChar(final String field) {
        final long at = field(TAG_CHAR, Short.BYTES, field);
        return at < 0 ? 0 : (char) bytes.readUnsignedShort(at);
    }

    /**
     * @param field the parameter or field path.
     * @return the value, or 0 if absent.
     */
    public int readInt(final String field) {
        final long at = field(TAG_INT, Integer.BYTES, field);
        return at < 0 ? 0 : bytes.readInt(at);
    }

    /**
     * @param field the parameter or field path.
     * @return the value, or 0 if absent.
     */
    public long readLong(final String field) {
        final long at = field(TAG_LONG, Long.BYTES, field);
        return at < 0 ? 0 : bytes.readLong(at);
    }

    /**
     * @param field the parameter or field path.
     * @return the value, or 0 if absent.
     */
    public float readFloat(final String field) {
        final long at = field(TAG_FLOAT, Float.BYTES, field);
        return at < 0 ? 0 : bytes.readFloat(at);
    }

    /**
     * @param field the parameter or field path.
     * @return the value, or 0 if absent.
     */
    public double readDouble(final String field) {
        final long at = field(TAG_DOUBLE, Double.BYTES, field);
        return at < 0 ? 0 : bytes.readDouble(at);
    }

    /**
     * @param field     the parameter or field path.
     * @param constants how many constants the reader's enum has.
     * @return the ordinal, or -1 if absent.
     * @throws TypedExcerptException if the ordinal is not one of the reader's constants.
     */
    public int readEnum(final String field, final int constants) {
        final long at = field(TAG_ENUM, Short.BYTES, field);
        if (at < 0) {
            return -1;
        }
        final int ordinal = bytes.readUnsignedShort(at);
        if (ordinal >= constants) {
            throw error(field, "enum ordinal " + ordinal + " is not one of the reader's " + constants + " constants", at);
        }
        return ordinal;
    }

    /**
     * Reads a variable- or fixed-length string, whichever was written; a fixed one without its zero padding.
     *
     * @param field the parameter or field path.
     * @param into  cleared, then receives the string; left empty if absent.
     */
    public void readString(final String field, final StringBuilder into) {
        into.setLength(0);
        if (position >= end) {
            return;
        }
        final byte tag = bytes.readByte(position);
        if (tag == TAG_FIXED_STRING) {
            final long at = region(tag, FIXED_LENGTH_LENGTH, field);
            appendFixedString(bytes, at, (int) (position - at), into);
            return;
        }
        final long at = region(TAG_STRING, LENGTH_LENGTH, field);
        decodeUtf8(at, position, into, field);
    }

    /**
     * Appends a fixed string's characters, up to its zero padding: what a generated reader calls for a fixed string
     * whose address it knows.
     *
     * @param address where its characters start, in native memory the caller has checked holds them.
     * @param length  its fixed length.
     * @param into    receives the characters.
     */
    public static void appendFixedString(final long address, final int length, final StringBuilder into) {
        for (int i = 0; i < length; i++) {
            final int b = MEMORY.readByte(address + i) & 0xFF;
            if (b == 0) {
                return;
            }
            into.append((char) b);
        }
    }

    /**
     * Copies a fixed byte array whose address a generated reader knows.
     *
     * @param address where its bytes start, in native memory the caller has checked holds {@code into.length}.
     * @param into    receives them.
     */
    public static void readFixedBytes(final long address, final byte[] into) {
        for (int i = 0; i < into.length; i++) {
            into[i] = MEMORY.readByte(address + i);
        }
    }

    private static void appendFixedString(final BytesStore<?, ?> bytes, final long at, final int length,
                                          final StringBuilder into) {
        for (int i = 0; i < length; i++) {
            final int b = bytes.readUnsignedByte(at + i);
            if (b == 0) {
                return;
            }
            into.append((char) b);
        }
    }

    /**
     * @param field the parameter or field path.
     * @param into  cleared, then receives the bytes; left empty if absent.
     */
    public void readBytes(final String field, final Bytes<?> into) {
        into.clear();
        if (position >= end) {
            return;
        }
        final long at = region(TAG_BYTES, LENGTH_LENGTH, field);
        into.write(bytes, at, position - at);
    }

    /**
     * @param field the parameter or field path.
     * @param into  receives the bytes, zero-padded if fewer were written; all zeros if absent.
     */
    public void readFixedBytes(final String field, final byte[] into) {
        if (position >= end) {
            Arrays.fill(into, (byte) 0);
            return;
        }
        final long at = region(TAG_FIXED_BYTES, FIXED_LENGTH_LENGTH, field);
        final int length = (int) Math.min(into.length, position - at);
        bytes.read(at, into, 0, length);
        Arrays.fill(into, length, into.length, (byte) 0);
    }

    /**
     * Reads a {@code BytesMarshallable} field; call only when {@link #present()}.
     * An exception its {@code readMarshallable} throws is a {@link TypedExcerptException} naming the field.
     *
     * @param field the parameter or field path.
     * @param into  reads what its writer wrote, from a copy.
     */
    public void readMarshallable(final String field, final BytesMarshallable into) {
        final long at = region(TAG_MARSHALLABLE, LENGTH_LENGTH, field);
        scratch.clear();
        scratch.write(bytes, at, position - at);
        try {
            into.readMarshallable(scratch);
        } catch (RuntimeException e) {
            // its own code reading past its bytes, or refusing them: a damaged excerpt, or another build's class
            throw error(field, "its readMarshallable failed on the " + (position - at) + " bytes written: " + e, at);
        }
    }

    /**
     * Enters a nested message: its fields are read until {@link #exitMessage(long)}. An absent message reads as
     * all its fields' defaults.
     *
     * @param field the parameter or field path.
     * @return the end to restore on exit.
     */
    public long enterMessage(final String field) {
        final long outerEnd = end;
        if (position >= end) {
            return outerEnd;
        }
        final long fields = region(TAG_MESSAGE, LENGTH_LENGTH, field);
        end = position;
        position = fields;
        return outerEnd;
    }

    /**
     * Leaves a nested message, skipping the fields this reader does not know.
     *
     * @param outerEnd what {@link #enterMessage(String)} returned.
     */
    public void exitMessage(final long outerEnd) {
        position = end;
        end = outerEnd;
    }

    /** @return a {@link TypedExcerptException} for a value the reader cannot use, naming the excerpt, method, field. */
    TypedExcerptException error(final String field, final String what, final long at) {
        return new TypedExcerptException(index, "excerpt " + IndexFormat.format(index, null) + " ("
                + (method == null ? "unknown method" : method) + "), field " + field + ": " + what + " at offset " + (at - start) + " of a " + (end - start)
                + "-byte payload");
    }

    /** @return the position of the field's value, or -1 if absent; moves past it. */
    private long field(final byte tag, final int length, final String field) {
        if (position >= end) {
            return -1;
        }
        final byte found = bytes.readByte(position);
        if (found != tag) {
            throw error(field, "expected a " + tagName(tag) + " field, found a " + tagName(found), position);
        }
        final long at = position + TAG_LENGTH;
        if (at + length > end) {
            throw error(field, "a " + tagName(tag) + " of " + length + " bytes runs past the end", position);
        }
        position = at + length;
        return at;
    }

    /** @return the position of a length-prefixed value; moves past it. */
    private long region(final byte tag, final int lengthLength, final String field) {
        final byte found = bytes.readByte(position);
        if (found != tag) {
            throw error(field, "expected a " + tagName(tag) + " field, found a " + tagName(found), position);
        }
        final long lengthAt = position + TAG_LENGTH;
        if (lengthAt + lengthLength > end) {
            throw error(field, "the length of a " + tagName(tag) + " runs past the end", position);
        }
        final long length = lengthLength == LENGTH_LENGTH ? bytes.readInt(lengthAt) : bytes.readUnsignedShort(lengthAt);
        final long at = lengthAt + lengthLength;
        if (length < 0 || at + length > end) {
            throw error(field, "a " + tagName(tag) + " of length=" + length + " runs past the end", position);
        }
        position = at + length;
        return at;
    }

    private void decodeUtf8(final long from, final long to, final StringBuilder into, final String field) {
        long at = from;
        while (at < to) {
            final int b = bytes.readUnsignedByte(at);
            if (b < 0x80) {
                into.append((char) b);
                at++;
                continue;
            }
            final int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : -1;
            if (extra < 0 || at + extra >= to) {
                throw error(field, "malformed UTF-8 byte 0x" + Integer.toHexString(b), at);
            }
            int cp = b & (0x3F >> extra);
            for (int i = 1; i <= extra; i++) {
                final int next = bytes.readUnsignedByte(at + i);
                if ((next & 0xC0) != 0x80) {
                    throw error(field, "malformed UTF-8 byte 0x" + Integer.toHexString(next), at + i);
                }
                cp = cp << 6 | next & 0x3F;
            }
            if (cp > Character.MAX_CODE_POINT) {
                throw error(field, "malformed UTF-8: code point 0x" + Integer.toHexString(cp), at);
            }
            if (Character.isBmpCodePoint(cp)) {
                into.append((char) cp);
            } else {
                // appendCodePoint would allocate a char[2] for a supplementary code point
                into.append(Character.highSurrogate(cp)).append(Character.lowSurrogate(cp));
            }
            at += extra + 1;
        }
    }
}
