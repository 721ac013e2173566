/**
 * The JMH suite: nanoseconds and bytes allocated per operation (experiment E4), and its {@code jmh} command.
 * {@link dev.spool.benchmarks.jmh.FloorBenchmark} is the floor, a bare copy into a mapped file;
 * {@link dev.spool.benchmarks.jmh.SpoolBenchmark} and {@link dev.spool.benchmarks.jmh.ChronicleBenchmark} run the
 * same appends, reads and index moves on Spool and on Chronicle Queue open source, so one run gives both ratios,
 * Spool / floor and Spool / Chronicle; {@link dev.spool.benchmarks.jmh.RingBenchmark} times the ring buffer's
 * claim/commit and its drainer, {@link dev.spool.benchmarks.jmh.ReplicationBenchmark} an append and the replica's
 * acknowledgement. Every benchmark writes its queue in a fresh directory and deletes it afterwards.
 * {@link dev.spool.benchmarks.jmh.JmhLauncher} runs JMH with Spool's defaults and files the results; {@code JmhPlot}
 * draws them. JMH's annotation processor generates the harness in {@code jmh_generated} below this package.
 */
package dev.spool.benchmarks.jmh;
