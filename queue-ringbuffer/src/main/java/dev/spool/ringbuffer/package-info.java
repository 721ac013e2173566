/**
 * The ring buffer on tmpfs that sits in front of a queue. {@link dev.spool.ringbuffer.RingBuffer} is the shared,
 * multi-producer ring in a memory-mapped file (claim, commit, abort, revocation of dead claims);
 * {@link dev.spool.ringbuffer.AsyncQueue} puts one in front of a {@link dev.spool.queue.SpoolQueue}:
 * {@link dev.spool.ringbuffer.AsyncAppender}s write into the ring and return at once, and a
 * {@link dev.spool.ringbuffer.Drainer} copies the records into the queue in ring order, crash-safely.
 * {@link dev.spool.ringbuffer.BackPressure} decides what a full ring does, {@link dev.spool.ringbuffer.RingStats}
 * shows occupancy, high-water mark, drain lag and back-pressure. The file layouts are drawn in the package-private
 * {@code RingBufferDescriptor} and {@code RecordDescriptor}.
 */
package dev.spool.ringbuffer;
