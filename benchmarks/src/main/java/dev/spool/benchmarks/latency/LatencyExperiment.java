package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariants;
import dev.spool.benchmarks.support.VariantNames;
import java.util.List;

/**
 * One JLBH experiment at its full, article length: a message length and rate, a number of runs of a length, the
 * variants that run it and where it comes from. Each variant runs in its own JVM, and the experiment's result file
 * compares them. {@link JlbhArguments} shortens it or changes its rate and length.
 *
 * @param group           the experiment of docs/benchmarks.md it belongs to, e.g. {@code E1}.
 * @param length          bytes per message.
 * @param rate            messages per second JLBH sends.
 * @param runs            runs in full mode.
 * @param runSeconds      length of a run in full mode.
 * @param variants        the names of the {@link LatencyVariants} it runs, in running order, the floor first.
 * @param source          the article and section it reproduces.
 * @param articleFigures  what the article measured on its own hardware, quoted for context only.
 */
record LatencyExperiment(String group, int length, int rate, int runs, double runSeconds, List<String> variants,
                         String source, String articleFigures) {
    /**
     * The variants of E1: the floor first, so that its numbers are not taken on a page cache that a queue just
     * filled with dirty pages, then the floor beside a second process writing as many bytes to a queue on the same
     * disk (the machine's own limit for every variant that writes the disk); each variant's files are deleted
     * before the next one starts.
     */
    static final List<String> E1_VARIANTS = List.of(VariantNames.FLOOR, "floor-beside-disk-writer", VariantNames.SPOOL,
            "spool-pretouch", "spool-typed", "ring", "ring-read", "ring-default", "ring-lowduty-100us", "ring-invoked",
            "ring-tmpfs", "ring-nodrain", "ring-stall", VariantNames.CHRONICLE);

    /**
     * The variants of E2: the raw TCP round trip of the same length first, and again with a threaded source's
     * hand-offs (writer, relay thread, echo, relay, reader), then replication end to end in batches
     * of 1, 2, 5, 10 and 20 messages and of single messages streamed by the reader's thread (an invoked source),
     * and without the shared secret (no MAC per frame: what authentication costs), then the publish alone (the append of a batch, the article's "without
     * replication" table) for the same batch sizes, then the plain queue end to end.
     */
    static final List<String> E2_VARIANTS = List.of("floor-tcp", "floor-tcp-threaded",
            "spool-replicated", "spool-replicated-b2", "spool-replicated-b5", "spool-replicated-b10",
            "spool-replicated-b20", "spool-replicated-invoked", "spool-replicated-insecure",
            "spool-publish", "spool-publish-b2", "spool-publish-b5", "spool-publish-b10", "spool-publish-b20",
            VariantNames.SPOOL);

    /**
     * The variants of E3: the raw TCP round trip, with a threaded source's hand-offs (the floor of the threaded
     * acknowledged stages) and as a client -> server -> client round trip (the gateway's floor), then each durability
     * stage, with two replicas the acknowledgement of either and of both (2 of 2) beside the one replica's, then the
     * acknowledged stages again with the waiting thread streaming for an invoked source, then the whole scenario
     * through a publish gateway and its client.
     */
    static final List<String> E3_VARIANTS = List.of("floor-tcp", "floor-tcp-threaded", "floor-tcp-client", "e3-written",
            "e3-acked", "e3-acked-any-of-2", "e3-acked-2-of-2", "e3-async-acked",
            "e3-sync-acked", "e3-sync10-acked", "e3-acked-or-synced", "e3-acked-or-synced-down", "e3-acked-invoked",
            "e3-async-acked-invoked", "e3-sync10-acked-invoked", "e3-gateway-acked", "e3-gateway-acked-invoked");

    /**
     * The variants of E3b, the local half of E3: the floor, Spool with three sync policies and with group commit, then
     * Chronicle Queue's equivalents (it has none of group commit).
     */
    static final List<String> E3B_VARIANTS = List.of(VariantNames.FLOOR, "sync-async", "sync-every",
            "sync-content", "group-commit", "chronicle-sync-async", "chronicle-sync-every", "chronicle-sync-content");

    /** Every experiment the code supports, in running order. */
    static final List<LatencyExperiment> ALL = List.of(
            new LatencyExperiment("E1", 32, 50_000, 8, 200, E1_VARIANTS,
                    "ring-buffer-tail-latencies.txt, \"Chronicle Queue, 50K msgs/sec of 32 bytes\" (8 runs of 200 s)",
                    "plain Chronicle Queue: p50 0.37 us, p99 0.51-3.13 us, p99.9 4.1-13.7 us, p99.99 17-511 us"),
            new LatencyExperiment("E1", 32, 250_000, 8, 100, E1_VARIANTS,
                    "ring-buffer-tail-latencies.txt, \"Chronicle Queue, 250K msgs/sec of 32 bytes\" (8 runs of 100 s)",
                    "plain Chronicle Queue: p50 0.37-0.38 us, p99.9 11.7-14.9 us, p99.97 0.79-2.1 ms, "
                            + "p99.99 1.8-3.9 ms; Enterprise ring buffer: p50 0.85 us, p99.99 28-33 us"),
            new LatencyExperiment("E1", 140, 100_000, 4, 30, E1_VARIANTS,
                    "ring-buffer-tail-latencies-enterprise.txt (4 runs of 3M messages of 140 bytes at 100K/s)",
                    "Chronicle Queue open source climbs to ~50 us at the high percentiles; Enterprise async "
                            + "mode stays under 4 us at p99.99"),
            new LatencyExperiment("E2", 40, 166_667, 3, 120, E2_VARIANTS,
                    "batching-and-low-latency.txt, 10M events/minute, batches 1, 2, 5, 10, 20 "
                            + "(30 s warm-up, 120 s runs)",
                    "batches 1/2/5/10/20 end to end: p99 20/22/38/72/125 us, p50 10/13/22/36/68 us; p99.9 to "
                            + "publish without replication 1.2/1.2/2.4/9.5/11 us"),
            new LatencyExperiment("E2", 40, 1_000_000, 3, 120, E2_VARIANTS,
                    "batching-and-low-latency.txt, 60M events/minute, batches 1, 2, 5, 10, 20",
                    "batches 1/2/5/10/20 end to end: p99 28/29/22/26/34 us, p50 13/13/13/15/20 us; p99.9 to "
                            + "publish without replication 1.3/1.3/1.5/1.7/12 us"),
            new LatencyExperiment("E2", 40, 1_666_667, 3, 120, E2_VARIANTS,
                    "batching-and-low-latency.txt, 100M events/minute, batches 1, 2, 5, 10, 20",
                    "batches 1/2/5/10/20 end to end: p99 176/30/27/27/31 us, p50 16/13/13/13/15 us; p99.9 to "
                            + "publish without replication 1.5/1.5/1.6/1.8/2.1 us"),
            new LatencyExperiment("E3", 256, 200_000, 3, 60, E3_VARIANTS,
                    "durability-replication-vs-sync.txt, figure 1: 256 B at 200K/s timed at each stage",
                    "M.2 drive, Ryzen 9 5950X: waiting for the replica's ack adds about one network round trip"),
            new LatencyExperiment("E3", 1024, 50_000, 3, 60, E3_VARIANTS,
                    "durability-replication-vs-sync.txt, figure 2: 1 KiB at 50K/s, publish to commit",
                    "SATA SSD: sync under 25 ms most of the time; async + ack p99.9 a tenth of sync + ack or better"),
            new LatencyExperiment("E3", 1024, 200_000, 3, 60, E3_VARIANTS,
                    "durability-replication-vs-sync.txt, figure 3: 1 KiB at 200K/s, publish to commit",
                    "M.2 drive: selective sync brings typical latency close to ack-only"),
            new LatencyExperiment("E3b", 1024, 50_000, 5, 20, E3B_VARIANTS,
                    "durability-replication-vs-sync.txt, \"50K/s messages of 1KB timed from publishing on client to "
                            + "receiving a committed message\", the local half: no client TCP, no replica (run length not"
                            + " given there)",
                    "with replication, SSD: sync to disk under 25 ms most of the time up to 50K/s; syncing 10 times a"
                            + " second brings typical latency close to async; async + ack one tenth or better at the"
                            + " high percentiles"));

    /** @return the name on the command line and in file names, e.g. {@code E1-32B-250K}. */
    String name() {
        return group + "-" + length + "B-" + rateLabel(rate);
    }

    /**
     * @param rate messages per second.
     * @return e.g. {@code 250K}, {@code 1.5M}, {@code 1234}.
     */
    static String rateLabel(final int rate) {
        if (rate >= 1_000_000 && rate % 100_000 == 0) {
            final String millions = Double.toString(rate / 1e6);
            return (millions.endsWith(".0") ? millions.substring(0, millions.length() - 2) : millions) + "M";
        }
        if (rate >= 1_000 && rate % 1_000 == 0) {
            return rate / 1_000 + "K";
        }
        return Integer.toString(rate);
    }

    /**
     * @param length bytes per message.
     * @param rate   messages per second.
     * @return this experiment at another length and rate, its runs as long in time.
     */
    LatencyExperiment with(final int length, final int rate) {
        return new LatencyExperiment(group, length, rate, runs, runSeconds, variants, source, articleFigures);
    }
}
