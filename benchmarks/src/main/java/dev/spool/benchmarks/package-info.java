/**
 * Spool's benchmark launcher, {@link dev.spool.benchmarks.Main} (the main class of {@code benchmarks.jar}: the
 * {@code demo}, {@code jmh}, {@code jlbh} and {@code all} commands), and what the suites share: the JVM flags forked
 * JVMs get ({@link dev.spool.benchmarks.JvmFlags}), the facts of the machine and the result files every run writes
 * ({@link dev.spool.benchmarks.MachineFacts}, {@link dev.spool.benchmarks.ResultFiles}), a fresh directory per
 * benchmark ({@link dev.spool.benchmarks.BenchmarkDirectory}), and the payloads, queue settings, ring paths and
 * replica wait that the JMH benchmarks and the latency variants use alike ({@link dev.spool.benchmarks.Payloads},
 * {@link dev.spool.benchmarks.RingPaths}, {@link dev.spool.benchmarks.Replicas}).
 * <p>
 * The suites live below: {@code jmh} (throughput and allocation, experiment E4), {@code latency} (the JLBH harness
 * and its reports) with its {@code latency.variants}, and {@code demo}. Nothing here is API: the types are public
 * only so that those packages can use them.
 */
package dev.spool.benchmarks;
