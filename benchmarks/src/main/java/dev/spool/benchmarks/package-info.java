/**
 * Spool's benchmark launcher, {@link dev.spool.benchmarks.Main}: the main class of {@code benchmarks.jar}, which
 * dispatches the {@code demo}, {@code jmh}, {@code jlbh} and {@code all} commands to the suites below it.
 * <p>
 * The suites live in {@code jmh} (throughput and allocation, experiment E4), {@code latency} (the JLBH harness and
 * its reports) with its {@code latency.variants}, and {@code demo}; what they share is in {@code support}. This
 * package depends on all of them and none of them depends on it. Nothing here is API beyond the main class.
 */
package dev.spool.benchmarks;
