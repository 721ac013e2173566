/**
 * The JLBH harness: end-to-end latency at a steady rate, coordinated omission accounted for (experiments E0 to
 * E3b), and its {@code jlbh} command. {@link dev.spool.benchmarks.latency.JlbhLauncher} plans the experiments
 * ({@code LatencyExperiment}, {@code JlbhArguments}) and starts one worker JVM,
 * {@link dev.spool.benchmarks.latency.JlbhMain}, per variant, which runs it under JLBH ({@code JlbhRun}) and files
 * what it measured ({@code VariantResult}); the launcher then prints and files the tables ({@code LatencyTables}),
 * HdrHistogram distributions and a plot ({@code LatencyPlot}). The harness knows the variants only through the
 * {@link dev.spool.benchmarks.latency.variants.LatencyVariant} interface and the
 * {@link dev.spool.benchmarks.latency.variants.LatencyVariants} registry, by name.
 */
package dev.spool.benchmarks.latency;
