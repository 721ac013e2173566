/**
 * Not API: the implementation of a queue. {@link dev.spool.queue.engine.QueueEngine} is its one public class, because
 * the {@code SpoolQueue} facade, in the API's package, opens it with the builder's concluded
 * {@link dev.spool.queue.internal.QueueConfig} and calls it; it implements
 * {@link dev.spool.queue.internal.QueueInternals} for the sibling modules. Everything else is package-private. A
 * package-private {@code Store} holds what one open queue shares (metadata, cycle files, write lock, cycle source,
 * doorbells, retention), and the appenders, tailers, retention, pretouchers and group commits depend on it. No class
 * here refers to the facade ({@code SpoolQueue}, {@code SpoolQueueBuilder}).
 */
package dev.spool.queue.engine;
