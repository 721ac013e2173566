/**
 * The on-disk layouts of a queue, each drawn once in its descriptor: {@link dev.spool.queue.format.MetadataDescriptor}
 * (the metadata file), {@link dev.spool.queue.format.CycleDescriptor} (a cycle file's header and sparse index) and
 * {@link dev.spool.queue.format.ExcerptDescriptor} (an excerpt's header), {@link
 * dev.spool.queue.format.TermHistoryDescriptor} (which term wrote which indices) and {@link
 * dev.spool.queue.format.RepairJournalDescriptor} (a repair's journal). Offsets are computed from field lengths.
 */
package dev.spool.queue.format;
