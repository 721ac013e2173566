package dev.spool.queue.internal;

/**
 * Not API: the position persisted under a named tailer's name in the queue's metadata, the last index committed
 * under it, from which a tailer of that name resumes, in any process. The ring buffer's tailer keeps its named
 * position with one of these. Belongs to one thread at a time; {@link #close() close} it with its tailer.
 */
public interface NamedPosition extends AutoCloseable {
    /** @return the tailer's name. */
    String name();

    /** @return the last index committed under the name, or -1 if none. */
    long committedIndex();

    /**
     * Persists {@code index} under the name with a release store, visible to every process at once; survives the
     * death of this process (it is in the shared mapping), and reaches the disk with the page cache's write-back.
     *
     * @param index the last index processed.
     */
    void commit(long index);

    /** Lets the name be {@linkplain dev.spool.queue.SpoolQueue#removeTailer(String) removed} again. */
    @Override
    void close();
}
