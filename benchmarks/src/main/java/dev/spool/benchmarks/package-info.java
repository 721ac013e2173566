/**
 * Spool's benchmark suites and their launcher, {@link dev.spool.benchmarks.Main}, which runs JMH with the JVM flags
 * Chronicle needs for the Java at hand and files each run's results with the facts of the machine.
 */
package dev.spool.benchmarks;
