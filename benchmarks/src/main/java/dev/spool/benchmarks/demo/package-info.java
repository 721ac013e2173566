/**
 * The {@code demo} command, {@link dev.spool.benchmarks.demo.Demo}: the main job on embedded defaults (a queue
 * tailed live, the ring buffer and its drainer, replication to a second queue), with the latencies it saw.
 */
package dev.spool.benchmarks.demo;
