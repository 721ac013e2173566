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
 * writer of the same {@code @Events} interface, which encodes the call into this sink's buffer; the session then
 * writes that one excerpt, only once the whole document was read and found to be exactly one call of the interface.
 * Anything else stops the import with nothing of that document written, so that documents and excerpts stay one to
 * one, which resuming relies on. Belongs to the session's thread.
 */
final class TypedCopier implements ExcerptSink {
    private final Class<?> events;
    private final MethodReader reader;
    private BytesStore<?, ?> buffer = BytesStore.wrap(new byte[4096]);
    private int calls;
    private int length;

    <T> TypedCopier(final ExcerptTailer tailer, final Class<T> events, final SchemaFiles schemas) {
        this.events = events;
        this.reader = tailer.methodReader(TypedMessages.writer(events, this, schemas));
    }

    /**
     * Reads the next document and encodes its call into {@link #bytes()}, {@link #length()} bytes from 0, writing
     * nothing; {@link #calls()} says whether it was one call.
     *
     * @return false if there was no document to read.
     */
    boolean readOne() {
        calls = 0;
        length = 0;
        return reader.readOne();
    }

    /** @return the length of the last document's encoded call. */
    int length() {
        return length;
    }

    /** @return a copy of the last document's encoded call. */
    byte[] encoded() {
        final byte[] copy = new byte[length];
        buffer.read(0, copy, 0, length);
        return copy;
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
    public boolean commit(final int committed) {
        calls++;
        if (calls > 1) {
            throw new SpoolException("a Chronicle document holds more than one call of " + events.getName()
                    + ": each document must be one call to be imported as one excerpt");
        }
        length = committed;
        return true;
    }

    @Override
    public void rollback() {
        // the claim is a buffer of this sink's own: nothing was written anywhere
    }
}
