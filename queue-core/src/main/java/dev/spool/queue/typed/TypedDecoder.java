package dev.spool.queue.typed;

import net.openhft.chronicle.bytes.BytesStore;

/** The contract of a generated method reader. Public for the generated code only. */
public interface TypedDecoder {
    /**
     * Decodes one excerpt and calls the matching method of the target.
     *
     * @param bytes  holds the payload.
     * @param offset where it starts.
     * @param length its length.
     * @param index  the excerpt's queue index, for the message of an error.
     * @return false if the excerpt belongs to another interface or names a method this reader does not know.
     * @throws TypedExcerptException if the excerpt is not a typed excerpt or a field cannot be read.
     */
    boolean decode(BytesStore<?, ?> bytes, long offset, int length, long index);

    /**
     * @return how many excerpts of methods whose arguments all have a fixed length did not have the layout this
     * reader's build writes (written by an older or newer build of a message, or damaged), and were read field by
     * field instead of at constant offsets.
     */
    long layoutMismatches();
}
