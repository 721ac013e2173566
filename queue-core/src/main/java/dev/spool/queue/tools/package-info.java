/**
 * The offline tools: {@link dev.spool.queue.tools.SpoolTool} is the command line (dump, tail, stats, verify); the
 * others read a queue's files without opening the queue, so they work on a damaged or foreign queue too.
 */
package dev.spool.queue.tools;
