package dev.spool.queue;

import java.nio.file.Path;

/**
 * A queue file holds bytes that no writer produces. Nothing is repaired silently: the message names the file,
 * the position and the value so an operator can inspect it (see the {@code verify} tool).
 */
public final class CorruptQueueException extends SpoolException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    /** The byte position of the damage: part of the serialized form, which doclint requires documented. */
    private final long position;

    /**
     * @param file     the damaged file.
     * @param position the byte position of the damage.
     * @param what     what was found there.
     */
    public CorruptQueueException(final Path file, final long position, final String what) {
        super(what + " at position=" + position + " in " + file);
        this.file = file;
        this.position = position;
    }

    /** @return the damaged file. */
    public Path file() {
        return file;
    }

    /** @return the byte position of the damage. */
    public long position() {
        return position;
    }
}
