/**
 * Spool's persisted queue: {@link dev.spool.queue.SpoolQueue} opens a directory of memory-mapped cycle files,
 * {@link dev.spool.queue.ExcerptAppender} writes excerpts and {@link dev.spool.queue.ExcerptTailer} reads them,
 * from any thread or process; {@link dev.spool.queue.Pretoucher} prepares pages and files ahead of the writers,
 * and retention ({@link dev.spool.queue.SpoolQueueBuilder#retainCycles(int)}) deletes old cycles. This package is the
 * API; the on-disk layouts are drawn in {@code dev.spool.queue.format}, the implementation is
 * {@code dev.spool.queue.engine}, the command-line tool (dump, tail, stats, verify) is in
 * {@code dev.spool.queue.tools}, and {@code dev.spool.queue.internal} serves the sibling modules (not API).
 *
 * <h2>Exceptions</h2>
 * Everything Spool throws for misuse or damage, in this module and in the ring buffer and replication modules, is
 * an unchecked {@link dev.spool.queue.SpoolException} or a subtype:
 * <pre>
 * SpoolException                    a bad argument or option, a closed or fenced object, a missing or foreign
 *  |                                directory, a full disk: the message names the option, path and value
 *  +-- CorruptQueueException        a queue file holds bytes no writer produces: file, position, value
 *  +-- RepairRefusedException       a repair of damage that cannot be proven right: the index range, why
 *  +-- RingFullException            (queue-ringbuffer) a full ring under the throwing back-pressure policy
 *  +-- ReplicationException         (queue-replication) peers that cannot go on without a person
 * </pre>
 * The exceptions to the rule are Java's own conventions: {@link NullPointerException} for a null argument,
 * {@link InterruptedException} from a method that waits, and {@link java.io.UncheckedIOException} where a
 * replication socket fails. Expected conditions are return values, never exceptions: nothing to read, a full ring
 * under a back-pressure policy that returns a code.
 *
 * <h2>Indices</h2>
 * An index is {@code cycle << sequenceBits | sequence} ({@link dev.spool.queue.RollCycle}); logs, exception
 * messages and the {@code dump} and {@code tail} tools print it with {@link dev.spool.queue.IndexFormat}, as
 * {@code 0x501f00000011 (cycle 20511 seq 17)}.
 *
 * <h2>Byte order</h2>
 * Spool stores a payload's bytes as given and never reorders them. The accessors that expose payload bytes hand
 * over a Chronicle {@code BytesStore}, whose multi-byte accessors ({@code readLong}, {@code writeInt}...) use the
 * native byte order, little-endian on x86-64 and AArch64, the platforms Spool runs on; each such accessor says
 * so in its javadoc. The queue's own headers are little-endian ({@code dev.spool.queue.format}).
 */
package dev.spool.queue;
