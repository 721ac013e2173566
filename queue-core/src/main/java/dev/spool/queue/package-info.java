/**
 * Spool's persisted queue: {@link dev.spool.queue.SpoolQueue} opens a directory of memory-mapped cycle files,
 * {@link dev.spool.queue.ExcerptAppender} writes excerpts and {@link dev.spool.queue.ExcerptTailer} reads them,
 * from any thread or process; {@link dev.spool.queue.Pretoucher} prepares pages and files ahead of the writers,
 * and retention ({@link dev.spool.queue.SpoolQueueBuilder#retainCycles(int)}) deletes old cycles. The on-disk
 * layouts are drawn in the package-private {@code *Descriptor} classes; {@link dev.spool.queue.SpoolTool} is the
 * command-line tool (dump, tail, stats, verify).
 */
package dev.spool.queue;
