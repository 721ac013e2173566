package dev.spool.importer;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.SchemaFiles;
import dev.spool.queue.typed.ExcerptSink;
import dev.spool.queue.typed.TypedMessages;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MethodReader;
import net.openhft.chronicle.queue.ExcerptTailer;

/**
 * The typed mapping: Chronicle's method reader decodes each method-writer document and calls Spool's generated
 * writer of the same {@code @Events} interface, whose one excerpt this sink hands to the session. Each document must
 * be exactly one call of the interface: anything else stops the import, so that documents and excerpts stay one to
 * one, which resuming relies on. Belongs to the session's thread.
 */
final class TypedCopier implements ExcerptSink {
    /** Where the sink's excerpt goes. */
    interface Target {
        /**
         * @param src    holds the payload.
         * @param length its length.
         */
        void write(BytesStore<?, ?> src, int length);
    }

    private final Class<?> events;
    private final MethodReader reader;
    private final Target target;
    private BytesStore<?, ?> buffer = BytesStore.wrap(new byte[4096]);
    private int calls;
    private byte[] captured;

    <T> TypedCopier(final ExcerptTailer tailer, final Class<T> events, final SchemaFiles schemas, final Target target) {
        this.events = events;
        this.target = target;
        this.reader = tailer.methodReader(TypedMessages.writer(events, this, schemas));
    }

    /**
     * Reads the next document and writes its call.
     *
     * @return false if there was no document to read.
     */
    boolean copyOne() {
        calls = 0;
        captured = null;
        return reader.readOne();
    }

    /**
     * Reads the next document and returns the excerpt its call would be, writing nothing.
     *
     * @return the excerpt's payload, or null if there was no document.
     */
    byte[] encodeOne() {
        calls = 0;
        captured = new byte[0];
        try {
            return reader.readOne() && calls == 1 ? captured : null;
        } finally {
            captured = null;
        }
    }

    /** @return the calls of the interface the last document held: 1 unless it was not a call of the interface. */
    int calls() {
        return calls;
    }

    /** @return the interface the documents are calls of. */
    Class<?> events() {
        return events;
    }

    @Override
    public long claim(final int length, final String method) {
        if (buffer.capacity() < length) {
            buffer = BytesStore.wrap(new byte[Math.max(length, (int) Math.min(Integer.MAX_VALUE - 8,
                    buffer.capacity() * 2))]);
        }
        return 0;
    }

    @Override
    public BytesStore<?, ?> bytes() {
        return buffer;
    }

    @Override
    public boolean commit(final int length) {
        calls++;
        if (calls > 1) {
            throw new SpoolException("a Chronicle document holds more than one call of " + events.getName()
                    + ": each document must be one call to be imported as one excerpt");
        }
        if (captured != null) {
            captured = new byte[length];
            buffer.read(0, captured, 0, length);
        } else {
            target.write(buffer, length);
        }
        return true;
    }

    @Override
    public void rollback() {
        // the claim is a buffer of this sink's own: nothing was written anywhere
    }
}
