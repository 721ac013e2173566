/**
 * The {@code report} command: the tables of docs/benchmarks.md, generated from the result files in
 * benchmarks/results so that the page cannot drift from them.
 * <p>
 * The page is hand-written prose with marker comments around each table
 * ({@code <!-- table:NAME file=RESULT-FILE -->} ... {@code <!-- /table -->});
 * {@link dev.spool.benchmarks.report.ReportCommand} rewrites what lies between them from the result file the marker
 * names ({@link dev.spool.benchmarks.report.BenchmarkPage}), or with {@code --check} only says which table differs.
 * A JLBH result file gives a latency table with the ratios to the floor and to Chronicle Queue ({@code JlbhTable}),
 * a JMH one a throughput and allocation table ({@code JmhTable}), a start-up one the start-up table
 * ({@code StartupTable}); each names its file, the command that wrote it and the machine.
 * <p>
 * It depends on {@code support} and on {@code jmh} (for which benchmark measures which operation). Nothing here is
 * API: the two public types are public only for the launcher and the tests.
 */
package dev.spool.benchmarks.report;
