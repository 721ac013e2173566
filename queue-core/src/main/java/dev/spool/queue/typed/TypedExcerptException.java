package dev.spool.queue.typed;

import dev.spool.queue.SpoolException;

/**
 * A typed excerpt cannot be read: it is not a typed excerpt, it is cut short, or a field's type differs from the
 * reader's (a field whose type was changed). The message names the excerpt's index, the method, the field and what
 * was found. The reader has moved past the excerpt: the next read continues with the one after.
 */
public final class TypedExcerptException extends SpoolException {
    private static final long serialVersionUID = 1L;

    /** The excerpt's queue index. */
    private final long index;

    /**
     * @param index   the excerpt's queue index.
     * @param message what was wrong, naming the method and the field.
     */
    public TypedExcerptException(final long index, final String message) {
        super(message);
        this.index = index;
    }

    /** @return the index of the excerpt that could not be read. */
    public long index() {
        return index;
    }
}
