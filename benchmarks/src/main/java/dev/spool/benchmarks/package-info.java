/**
 * Spool's benchmark suites and their launcher, {@link dev.spool.benchmarks.Main}. The JMH suite measures nanoseconds
 * and bytes allocated per operation (experiment E4): {@link dev.spool.benchmarks.FloorBenchmark} is the floor, a bare
 * copy into a mapped file; {@link dev.spool.benchmarks.SpoolBenchmark} and
 * {@link dev.spool.benchmarks.ChronicleBenchmark} run the same appends, reads and index moves on Spool and on
 * Chronicle Queue open source, so one run gives both ratios, Spool / floor and Spool / Chronicle. Every benchmark
 * writes its queue in a fresh directory ({@code BenchmarkDirectory}) and deletes it afterwards.
 * <p>
 * The JLBH suite measures end-to-end latency at a steady rate (experiments E0 and E1): {@code JlbhLauncher} plans
 * the experiments ({@code LatencyExperiment}) and starts one worker JVM, {@link dev.spool.benchmarks.JlbhMain}, per
 * variant ({@code LatencyVariant}: the in-memory floor, Spool, Chronicle Queue), then prints and files the
 * tables ({@code LatencyTables}), HdrHistogram distributions and a plot ({@code LatencyPlot}).
 */
package dev.spool.benchmarks;
