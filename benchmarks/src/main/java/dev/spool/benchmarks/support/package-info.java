/**
 * What the launcher and the suites share, so that no suite depends on the launcher or, for a helper, on another
 * suite: the JVM flags forked JVMs get ({@link dev.spool.benchmarks.support.JvmFlags}), the facts of the machine and
 * the result files every run writes ({@link dev.spool.benchmarks.support.MachineFacts},
 * {@link dev.spool.benchmarks.support.ResultFiles}, {@link dev.spool.benchmarks.support.TeeOutputStream}), the
 * launcher's help text ({@link dev.spool.benchmarks.support.Usage}), a fresh directory per benchmark
 * ({@link dev.spool.benchmarks.support.BenchmarkDirectory}), the payloads, queue settings, ring paths and replica wait
 * that the JMH benchmarks and the latency variants use alike ({@link dev.spool.benchmarks.support.Payloads},
 * {@link dev.spool.benchmarks.support.RingPaths}, {@link dev.spool.benchmarks.support.Replicas}), and the names of the
 * contenders that the JLBH tables and the JMH plot compare ({@link dev.spool.benchmarks.support.VariantNames}).
 * <p>
 * It depends on no other package of the benchmarks. Nothing here is API: the types are public only so that those
 * packages can use them.
 */
package dev.spool.benchmarks.support;
