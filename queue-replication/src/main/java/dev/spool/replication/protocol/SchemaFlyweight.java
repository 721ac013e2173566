package dev.spool.replication.protocol;

import dev.spool.queue.internal.SchemaFiles;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import static dev.spool.replication.protocol.FrameDescriptor.SCHEMA_CONTENT_LENGTH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.SCHEMA_NAME_LENGTH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.SCHEMA_NAME_OFFSET;
import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_FILE_NAME_MAX_LENGTH;
import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_MAX_LENGTH;

/**
 * Flyweight over a SCHEMA frame: one typed schema file, its name and its content. Wraps a little-endian buffer at
 * the frame's offset; the header is {@link FrameHeader}'s. Schema files are sent rarely, so the decoder copies the
 * name and content out (allocation is fine here); its {@link #check} refuses, before anything is written, a name
 * that is not a plain schema file name or content that is not a schema ({@link SchemaFiles#nameProblem},
 * {@link SchemaFiles#contentProblem}).
 */
public final class SchemaFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param nameLength    the name's length in bytes.
     * @param contentLength the content's length in bytes.
     * @return the length of a SCHEMA frame carrying them.
     */
    public static int frameLength(final int nameLength, final int contentLength) {
        return SCHEMA_NAME_OFFSET + nameLength + contentLength;
    }

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public SchemaFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the name's length in bytes, as the frame says. */
    public int nameLength() {
        return buffer.getInt(offset + SCHEMA_NAME_LENGTH_OFFSET);
    }

    /** @return the content's length in bytes, as the frame says. */
    public int contentLength() {
        return buffer.getInt(offset + SCHEMA_CONTENT_LENGTH_OFFSET);
    }

    /**
     * Encoder: writes the name and the content.
     *
     * @param name    the file name, UTF-8.
     * @param content the file's content.
     * @return the frame's length, before its MAC.
     */
    public int put(final byte[] name, final byte[] content) {
        buffer.putInt(offset + SCHEMA_NAME_LENGTH_OFFSET, name.length);
        buffer.putInt(offset + SCHEMA_CONTENT_LENGTH_OFFSET, content.length);
        buffer.put(offset + SCHEMA_NAME_OFFSET, name);
        buffer.put(offset + SCHEMA_NAME_OFFSET + name.length, content);
        return frameLength(name.length, content.length);
    }

    /** @return the file name; once {@link #check} passed. */
    public String name() {
        return new String(bytes(SCHEMA_NAME_OFFSET, nameLength()), StandardCharsets.UTF_8);
    }

    /** @return a copy of the content; once {@link #check} passed. */
    public byte[] content() {
        return bytes(SCHEMA_NAME_OFFSET + nameLength(), contentLength());
    }

    /**
     * Decoder: checks the whole frame before anything in it is written: both lengths within their limits and
     * filling the frame, the name a plain schema file name in UTF-8, the content a schema.
     *
     * @param peer        names the sender in the error.
     * @param frameLength the frame's length, from its header, without its MAC.
     * @throws FrameException naming the peer, the frame, the field and what is wrong with it.
     */
    public void check(final String peer, final int frameLength) throws FrameException {
        final int nameLength = nameLength();
        final int contentLength = contentLength();
        if (nameLength < 1 || nameLength > SCHEMA_FILE_NAME_MAX_LENGTH) {
            throw new FrameException("SCHEMA frame from " + peer + ": name length=" + nameLength + " outside [1, "
                    + SCHEMA_FILE_NAME_MAX_LENGTH + "]");
        }
        if (contentLength < 0 || contentLength > SCHEMA_MAX_LENGTH) {
            throw new FrameException("SCHEMA frame from " + peer + ": content length=" + contentLength + " outside [0, "
                    + SCHEMA_MAX_LENGTH + "]");
        }
        if (frameLength(nameLength, contentLength) != frameLength) {
            throw new FrameException("SCHEMA frame from " + peer + " of length " + frameLength + " holds a name of "
                    + nameLength + " bytes and content of " + contentLength + ", which make "
                    + frameLength(nameLength, contentLength));
        }
        final String name;
        try {
            name = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes(SCHEMA_NAME_OFFSET, nameLength))).toString();
        } catch (CharacterCodingException e) {
            throw new FrameException("SCHEMA frame from " + peer + ": name is not valid UTF-8");
        }
        final String nameProblem = SchemaFiles.nameProblem(name);
        if (nameProblem != null) {
            throw new FrameException("SCHEMA frame from " + peer + ": " + nameProblem);
        }
        final String contentProblem = SchemaFiles.contentProblem(content());
        if (contentProblem != null) {
            throw new FrameException("SCHEMA frame from " + peer + " for " + name + ": " + contentProblem);
        }
    }

    private byte[] bytes(final int from, final int length) {
        final byte[] bytes = new byte[length];
        buffer.get(offset + from, bytes);
        return bytes;
    }
}
