/**
 * The {@code startup} command, {@link dev.spool.benchmarks.startup.StartupLauncher}: the time from the first open of
 * a queue in a fresh JVM to its first append, for Spool and Chronicle Queue side by side, each sample in a JVM of its
 * own ({@link dev.spool.benchmarks.startup.StartupProbe}).
 */
package dev.spool.benchmarks.startup;
