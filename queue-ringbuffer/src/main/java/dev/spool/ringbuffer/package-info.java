/**
 * The ring buffer on tmpfs that sits in front of a queue. {@link dev.spool.ringbuffer.RingBuffer} is the shared,
 * multi-producer ring in a memory-mapped file (claim, commit, abort, revocation of dead claims);
 * {@link dev.spool.ringbuffer.AsyncQueue} puts one in front of a {@link dev.spool.queue.SpoolQueue}:
 * {@link dev.spool.ringbuffer.AsyncAppender}s write into the ring and return at once, and a
 * {@link dev.spool.ringbuffer.Drainer} copies the records into the queue in ring order, crash-safely.
 * {@link dev.spool.ringbuffer.BackPressure} decides what a full ring does, {@link dev.spool.ringbuffer.RingStats}
 * shows occupancy, high-water mark, drain lag and back-pressure. The file layouts are drawn in the package-private
 * {@code RingBufferDescriptor} and {@code RecordDescriptor}.
 * <p>
 * Not API, package-private: {@code AsyncQueueConfig} is what the builder concludes to, with the queue's clocks, and
 * the only settings the async queue, its drainer and its tailers read; {@code RingFile} creates, checks, maps and
 * deletes a ring file; the flyweights
 * {@code RingHeader}, {@code DrainState} (the drain intent and the drained snapshot's seqlock) and
 * {@code IndexJournal} each own one part of the file; {@code RingConsumer} is the read side of the record protocol
 * and {@code ClaimRevoker} its way past stuck claims; {@code CycleRule} gives ring records their queue indices;
 * {@code RingLocks} proves producers and the drainer alive, and holds every slot while {@code RingFile} deletes a
 * ring no process uses.
 */
package dev.spool.ringbuffer;
