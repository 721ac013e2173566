/**
 * Spool's persisted queue: {@link dev.spool.queue.SpoolQueue} opens a directory of memory-mapped cycle files,
 * {@link dev.spool.queue.ExcerptAppender} writes excerpts and {@link dev.spool.queue.ExcerptTailer} reads them,
 * from any thread or process; {@link dev.spool.queue.Pretoucher} prepares pages and files ahead of the writers,
 * and retention ({@link dev.spool.queue.SpoolQueueBuilder#retainCycles(int)}) deletes old cycles. This package is the
 * API; the on-disk layouts are drawn in {@code dev.spool.queue.format}, the implementation is
 * {@code dev.spool.queue.engine}, the command-line tool (dump, tail, stats, verify) is in
 * {@code dev.spool.queue.tools}, and {@code dev.spool.queue.internal} serves the sibling modules (not API).
 */
package dev.spool.queue;
