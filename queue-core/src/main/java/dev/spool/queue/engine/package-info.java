/**
 * Not API: the implementation of a queue. {@link dev.spool.queue.engine.QueueEngine} is public only for the
 * {@code SpoolQueue} facade and {@code QueueInternals}, which delegate to it; everything else is package-private.
 * A package-private {@code Store} holds what one open queue shares (metadata, cycle files, write lock, cycle source,
 * doorbells, retention), and the appenders, tailers, retention, pretouchers and group commits depend on it.
 */
package dev.spool.queue.engine;
