/**
 * The {@code import} command: the throughput of an import from Chronicle Queue into Spool beside a plain copy of
 * the same bytes.
 */
package dev.spool.benchmarks.migration;
