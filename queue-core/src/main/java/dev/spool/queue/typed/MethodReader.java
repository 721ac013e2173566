package dev.spool.queue.typed;

import dev.spool.queue.ExcerptHandler;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Reads typed excerpts and calls the matching method of an {@link Events} implementation, through the reader the
 * processor generated for the interface. Each message class argument is one instance per parameter, reused for
 * every call: copy what must outlive the call. Allocates nothing per message.
 * <p>
 * An excerpt of another interface, or whose method this reader does not know (written by a newer build), is
 * skipped and counted in {@link #unknownMethods()}. One that cannot be read (not a typed excerpt, cut short, a field
 * whose type changed) throws a {@link TypedExcerptException} naming the excerpt, method and field; the reader has
 * moved past it, so the next {@link #readOne()} continues with the excerpt after. One reader belongs to one thread.
 */
public final class MethodReader {
    private final ExcerptSource source;
    private final Decode decode;

    MethodReader(final ExcerptSource source, final TypedDecoder decoder) {
        this.source = source;
        this.decode = new Decode(decoder);
    }

    /**
     * Reads the next excerpt, if any, and calls the implementation's method for it (nothing for a skipped one).
     *
     * @return false if there was nothing to read.
     * @throws TypedExcerptException if the excerpt read cannot be decoded; the reader has moved past it.
     */
    public boolean readOne() {
        if (!source.read(decode)) {
            return false;
        }
        final TypedExcerptException failure = decode.failure;
        if (failure != null) {
            decode.failure = null;
            throw failure;
        }
        return true;
    }

    /** @return how many excerpts were skipped because they belong to another interface or name an unknown method. */
    public long unknownMethods() {
        return decode.unknown;
    }

    /**
     * The reader decodes an excerpt at constant offsets when it has exactly the layout this build writes, and field
     * by field otherwise. A count that keeps rising means the queue's writers run another build of a message class:
     * still read correctly (see the evolution rules in docs/file-format.md), more slowly.
     *
     * @return how many excerpts of methods whose arguments all have a fixed length were read field by field because
     * their layout differed from this build's.
     */
    public long layoutMismatches() {
        return decode.decoder.layoutMismatches();
    }

    /** Holds back a decoding failure until the tailer has moved past the excerpt, so one bad excerpt is read once. */
    private static final class Decode implements ExcerptHandler {
        private final TypedDecoder decoder;
        private long unknown;
        private TypedExcerptException failure;

        Decode(final TypedDecoder decoder) {
            this.decoder = decoder;
        }

        @Override
        public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
            try {
                if (!decoder.decode(bytes, offset, length, index)) {
                    unknown++;
                }
            } catch (TypedExcerptException e) {
                failure = e;
            }
        }
    }
}
