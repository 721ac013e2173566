/**
 * What a JLBH experiment measures: the {@link dev.spool.benchmarks.latency.variants.LatencyVariant} interface, one
 * implementation per way of handing a timestamp from a sender to a reader (the in-memory and TCP floors, Spool
 * plain, pretouched, through the ring buffer, replicated, with sync policies and group commit, and Chronicle Queue
 * beside them), the {@link dev.spool.benchmarks.latency.variants.LatencyVariants} registry that lists them by name,
 * and their shared helpers (an in-memory SPSC ring of longs, the start-time reader, the large-order flag of E3b).
 * It depends on no part of the harness, so a variant can be read and tested on its own.
 */
package dev.spool.benchmarks.latency.variants;
