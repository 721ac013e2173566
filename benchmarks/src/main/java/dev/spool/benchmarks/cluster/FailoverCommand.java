package dev.spool.benchmarks.cluster;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.JvmFlags;
import dev.spool.benchmarks.support.MachineFacts;
import dev.spool.benchmarks.support.Replicas;
import dev.spool.benchmarks.support.ResultFiles;
import dev.spool.benchmarks.support.TeeOutputStream;
import dev.spool.failover.ClusterNode;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code failover} experiment. First the publish latency of the same replication with and without ZooKeeper:
 * a cluster of three nodes, and a plain primary (queue, replication source, publish gateway) with two sinks, each
 * process a child JVM on loopback, one message at a time at a steady rate to a commit at ACKED_BY_QUORUM, the two
 * layouts taking turns. Then, on that
 * cluster, with a client publishing a steady stream at ACKED_BY_QUORUM, the primary is killed with kill -9 again
 * and again, and the killed node is started again each time so that the cluster stays at three: each failover is
 * timed from the kill to the first commit the new primary acknowledged, and after each one every message ever
 * acknowledged to the client is looked for on the new primary, at the index its commit named, with the bytes sent.
 * The run's text goes to a result file, {@code <time>-failover.txt}, whose summary {@code report} puts on
 * docs/benchmarks.md.
 */
public final class FailoverCommand {
    /** The command's help text, ending in a line separator. */
    public static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar benchmarks.jar failover [--kills N] [--session-timeout MS] [--latency-messages N]",
            "       [--short] [--dir <path>] [--results <dir>]",
            "  --kills N               kills of the primary (default 20)",
            "  --session-timeout MS    the nodes' ZooKeeper session timeout (default "
                    + ClusterNode.DEFAULT_SESSION_TIMEOUT.toMillis() + ")",
            "  --latency-messages N    messages timed through each layout, after a fifth as many of warm-up",
            "                          (default 10000, at " + FailoverCommand.LATENCY_RATE + " msg/s)",
            "  --short                 3 kills and 1000 messages: shows that it works, measures nothing",
            "  --dir <path>            where the queues, the ZooKeeper files and the nodes' logs go",
            "  --results <dir>         where the result file goes (default: benchmarks/results)",
            "");
    /** Messages a second of the latency phase: one at a time, well within what the machine sustains. */
    static final int LATENCY_RATE = 1000;
    /** The latency phase's blocks: the two layouts take turns this many times. */
    static final int LATENCY_BLOCKS = 10;

    private FailoverCommand() {
    }

    /**
     * @param options     the options after {@code failover}.
     * @param commandLine the whole command line, for the result file.
     * @param out         where the run reports.
     * @param err         where errors go.
     * @return 0 when every failover happened and no acknowledged message was lost; 1 otherwise; 2 for bad options.
     */
    public static int run(final String[] options, final String[] commandLine, final PrintStream out,
                          final PrintStream err) {
        int kills = 20;
        int session = (int) ClusterNode.DEFAULT_SESSION_TIMEOUT.toMillis();
        int latencyMessages = 10_000;
        boolean quick = false;
        Path results = ResultFiles.defaultDirectory();
        for (int i = 0; i < options.length; i++) {
            switch (options[i]) {
                case "--help", "-h" -> {
                    out.print(USAGE);
                    return 0;
                }
                case "--short" -> {
                    quick = true;
                    kills = 3;
                    latencyMessages = 1000;
                }
                case "--kills", "--session-timeout", "--latency-messages", "--dir", "--results" -> {
                    if (i + 1 >= options.length) {
                        err.println(options[i] + " needs a value");
                        return 2;
                    }
                    final String value = options[++i];
                    switch (options[i - 1]) {
                        case "--kills" -> kills = Integer.parseInt(value);
                        case "--session-timeout" -> session = Integer.parseInt(value);
                        case "--latency-messages" -> latencyMessages = Integer.parseInt(value);
                        case "--dir" -> System.setProperty(BenchmarkDirectory.BASE_PROPERTY, value);
                        default -> results = Paths.get(value);
                    }
                }
                default -> {
                    err.println("unknown option '" + options[i] + "' for failover");
                    err.print(USAGE);
                    return 2;
                }
            }
        }
        if (kills < 1 || session < 100 || latencyMessages < 1) {
            err.println("--kills=" + kills + " and --latency-messages=" + latencyMessages + " must be at least 1,"
                    + " --session-timeout=" + session + " at least 100");
            return 2;
        }
        ClusterCommand.quietZooKeeper();
        final BenchmarkDirectory work;
        final ResultFiles files;
        try {
            work = BenchmarkDirectory.create("spool-failover-");
            files = ResultFiles.create(results, "failover" + (quick ? "-short" : ""));
        } catch (UncheckedIOException e) {
            err.println("failover: " + e.getMessage());
            return 1;
        }
        final MachineFacts facts = MachineFacts.collect(commandLine, BenchmarkDirectory.base(),
                JvmFlags.load().forkFlags(Runtime.version().feature()));
        files.writeFacts(facts.toJson());
        boolean passed = false;
        try (PrintStream text = files.openText();
             PrintStream tee = new PrintStream(new TeeOutputStream(out, text), true, StandardCharsets.UTF_8)) {
            tee.print(facts.toText());
            tee.println();
            try {
                passed = experiment(work.path(), kills, session, latencyMessages, tee);
            } catch (IOException | RuntimeException e) {
                tee.println("FAILED: " + e.getMessage());
            }
        }
        out.println("results: " + files.text());
        if (passed) {
            work.delete();
        } else {
            err.println("failover: the run failed; the queues, the ZooKeeper files and each node's log are kept in "
                    + work.path());
        }
        return passed ? 0 : 1;
    }

    private static boolean experiment(final Path work, final int kills, final int session, final int latencyMessages,
                                      final PrintStream out) throws IOException {
        final int warmUp = Math.max(1, latencyMessages / 5);
        out.printf(Locale.ROOT, "Failover experiment: 3 nodes in child JVMs on loopback, ack quorum 1 of 2 followers,"
                + " %d-byte messages,%n  ZooKeeper session timeout %d ms, %d kills of the primary%n%n",
                Publisher.MESSAGE_LENGTH, session, kills);
        try (ClusterLayout cluster = ClusterLayout.start(Files.createDirectories(work.resolve("cluster")), 3, session,
                Replicas.SECRET)) {
            cluster.awaitPrimary(60_000);
            cluster.awaitFollowers(60_000);
            latency(cluster, Files.createDirectories(work.resolve("plain")), warmUp, latencyMessages, out);
            return kills(cluster, kills, session, out);
        }
    }

    /**
     * The publish latency of the cluster's primary beside a plain primary's, in alternate blocks, while both run: a
     * change in the machine's load falls on both alike.
     */
    private static void latency(final ClusterLayout cluster, final Path plainWork, final int warmUp,
                                final int messages, final PrintStream out) throws IOException {
        out.printf(Locale.ROOT, "publish to a commit at ACKED_BY_QUORUM, one message at a time at %,d msg/s, %,d timed"
                + " after %,d of warm-up, in %d alternate blocks, us:%n", LATENCY_RATE, messages, warmUp,
                LATENCY_BLOCKS);
        final String primary = cluster.awaitPrimary(0);
        try (PlainLayout layout = PlainLayout.start(plainWork, ClusterLayout.secretFile(plainWork, Replicas.SECRET));
             PublishLatency plain = new PublishLatency(layout.gateway(), Replicas.SECRET);
             PublishLatency node = new PublishLatency(cluster.members().get(cluster.position(primary)).gateway(),
                     Replicas.SECRET)) {
            plain.block(warmUp, LATENCY_RATE, false);
            node.block(warmUp, LATENCY_RATE, false);
            for (int block = 0; block < LATENCY_BLOCKS; block++) {
                final int count = messages / LATENCY_BLOCKS + (block < messages % LATENCY_BLOCKS ? 1 : 0);
                plain.block(count, LATENCY_RATE, true);
                node.block(count, LATENCY_RATE, true);
            }
            out.println(plain.line("plain"));
            out.println(node.line("cluster"));
            out.printf(Locale.ROOT, "  cluster / plain: p50 %.2f  p90 %.2f  p99 %.2f%n%n",
                    ratio(node.latency(), plain.latency(), 50), ratio(node.latency(), plain.latency(), 90),
                    ratio(node.latency(), plain.latency(), 99));
        }
    }

    private static boolean kills(final ClusterLayout cluster, final int kills, final int session,
                                 final PrintStream out) throws IOException {
        final long[] failovers = new long[kills];
        final long[] promotions = new long[kills];
        long lost = 0;
        out.printf(Locale.ROOT, "kills: a client publishes at ACKED_BY_QUORUM at up to %,d msg/s; each kill waits for"
                + " %,d acknowledged messages first;%n  after each failover every message acknowledged so far is looked"
                + " for on the new primary%n", ClusterCommand.RATE, ClusterCommand.RATE / 2);
        try (Publisher publisher = new Publisher(cluster.gateways(), cluster.secret(), ClusterCommand.RATE,
                Duration.ofMillis(2L * session))) {
            for (int kill = 0; kill < kills; kill++) {
                if (!publisher.awaitMore(ClusterCommand.RATE / 2, TimeUnit.SECONDS.toNanos(60))) {
                    throw new IllegalStateException("no " + ClusterCommand.RATE / 2 + " acknowledgements within 60 s"
                            + " before kill " + (kill + 1) + ": " + cluster.states());
                }
                final String primary = cluster.awaitPrimary(0);
                final long term = cluster.node(primary).term();
                final long killedAt = publisher.killing(cluster.position(primary));
                cluster.node(primary).kill();
                final long failover = publisher.awaitFailover(TimeUnit.MILLISECONDS.toNanos(10L * session + 30_000));
                if (failover < 0) {
                    throw new IllegalStateException("kill " + (kill + 1) + ": no other node acknowledged a commit"
                            + " within " + (10 * session + 30_000) + " ms of the kill of " + primary + ": "
                            + cluster.states());
                }
                failovers[kill] = failover;
                final String next = cluster.awaitPrimary(10_000);
                promotions[kill] = cluster.node(next).primarySinceNs() - killedAt;
                final long missing = publisher.lost(cluster.directory(next));
                lost += missing;
                out.printf(Locale.ROOT, "kill %2d: %s (primary of term %d) killed; %s primary of term %d after %,d ms;"
                                + " failover %,d ms (%.2f x session); %,d acknowledged, %d lost%n", kill + 1, primary,
                        term, next, cluster.node(next).term(),
                        TimeUnit.NANOSECONDS.toMillis(promotions[kill]),
                        TimeUnit.NANOSECONDS.toMillis(failover), failover / 1e6 / session, publisher.acknowledged(),
                        missing);
                // past the old primary's unacknowledged tail (one message at most): the check below cannot mistake
                // that tail for a caught-up queue
                publisher.awaitMore(ClusterCommand.RATE / 10, TimeUnit.SECONDS.toNanos(60));
                final int setAside = cluster.timesSetAside(primary);
                final long acknowledgedIndex = publisher.lastAcknowledgedIndex();
                cluster.startNode(primary);
                cluster.node(primary).await("FOLLOWER", 3L * session + 60_000, TimeUnit.MILLISECONDS);
                out.println("  " + primary + " started again on its directory: " + rejoined(cluster, primary,
                        acknowledgedIndex, setAside, session));
            }
            publisher.stop();
            final long[] sorted = failovers.clone();
            Arrays.sort(sorted);
            final double p50 = sorted[(sorted.length - 1) / 2] / 1e6;
            final double max = sorted[sorted.length - 1] / 1e6;
            out.println();
            out.printf(Locale.ROOT, "failover time, kill -9 of the primary to the first commit acknowledged at"
                    + " ACKED_BY_QUORUM by the new one, over %d kills:%n", kills);
            out.printf(Locale.ROOT, "  p50 %.0f ms, max %.0f ms; / session timeout of %d ms: p50 %.2f, max %.2f;"
                    + " ZooKeeper tick %d ms%n", p50, max, session, p50 / session, max / session,
                    cluster.tickMillis());
            final long[] sortedPromotions = promotions.clone();
            Arrays.sort(sortedPromotions);
            out.printf(Locale.ROOT, "  of which the kill to the new primary's report of its promotion: p50 %.0f ms, max"
                    + " %.0f ms%n", sortedPromotions[(kills - 1) / 2] / 1e6, sortedPromotions[kills - 1] / 1e6);
            out.printf(Locale.ROOT, "acknowledged messages: %,d, lost: %d; given up on by the client, never"
                    + " acknowledged: %d%n", publisher.acknowledged(), lost, publisher.unacknowledged());
        }
        return lost == 0;
    }

    /**
     * Waits until the primary has checked a restarted node's history, so that the next kill finds a cluster whose
     * followers the primary knows: the node either holds every message acknowledged before it came back, or had its
     * directory set aside for excerpts the primary lacks (then it starts from empty).
     *
     * @return what became of it, for the run's text.
     * @throws IllegalStateException if neither happened within 60 s and two session timeouts.
     */
    private static String rejoined(final ClusterLayout cluster, final String id, final long acknowledgedIndex,
                                   final int setAside, final int session) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(60_000L + 2L * session);
        while (true) {
            if (cluster.timesSetAside(id) > setAside) {
                return "its directory was set aside, as it held excerpts the primary lacked, and it starts from empty";
            }
            if (cluster.lastIndex(id) >= acknowledgedIndex) {
                return "it holds every message acknowledged before it came back";
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("node " + id + " neither caught up with index 0x"
                        + Long.toHexString(acknowledgedIndex) + " nor was set aside within " + (60_000 + 2 * session)
                        + " ms of its restart: " + cluster.states());
            }
            LockSupport.parkNanos(50_000_000);
        }
    }

    private static double ratio(final Histogram numerator, final Histogram denominator, final double percentile) {
        return numerator.getValueAtPercentile(percentile) / (double) denominator.getValueAtPercentile(percentile);
    }
}
