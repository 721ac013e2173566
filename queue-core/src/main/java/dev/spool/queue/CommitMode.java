package dev.spool.queue;

/**
 * When a named tailer moves the position persisted under its name, the position from which a tailer of that
 * name created later, in any process, resumes.
 */
public enum CommitMode {
    /**
     * Every read persists its index, after the handler of {@link ExcerptTailer#read(ExcerptHandler)} returns (after
     * the copy, for {@link ExcerptTailer#read(net.openhft.chronicle.bytes.Bytes)}). A process that dies inside the
     * handler reads that excerpt again when it resumes: at-least-once for handlers that finish their work before
     * returning. A process that dies after a copying read returned and before it used the copy does not see that
     * excerpt again. Excerpts the process read but had not finished are not tracked either way.
     */
    ON_READ,
    /**
     * Only {@link ExcerptTailer#commit()} and {@link ExcerptTailer#commit(long)} persist an index, for a consumer
     * that hands excerpts to other threads and commits once they are done: a process that dies resumes after the
     * last committed index, and reads again every excerpt it had read but not committed (at-least-once).
     */
    EXPLICIT
}
