package dev.spool.benchmarks.cluster;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Replicas;
import dev.spool.failover.ClusterNode;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The {@code cluster} command: the main job as a cluster. An embedded ZooKeeper server, three nodes in child JVMs on
 * loopback (one primary, two followers, a commit at ACKED_BY_QUORUM acknowledged by one of the two), a client
 * publishing a steady stream at ACKED_BY_QUORUM to the primary's gateway; then the primary is killed with kill -9.
 * It prints how long the failover took, from the kill to the first commit the new primary acknowledged, and checks
 * that every message acknowledged to the client is in the new primary's queue at the index its commit named, with
 * the bytes that were sent.
 */
public final class ClusterCommand {
    /** The command's help text, ending in a line separator. */
    public static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar benchmarks.jar cluster [--session-timeout MS] [--messages N] [--dir <path>]",
            "  --session-timeout MS  the nodes' ZooKeeper session timeout (default "
                    + ClusterNode.DEFAULT_SESSION_TIMEOUT.toMillis() + ")",
            "  --messages N          messages acknowledged before the kill, and again after it (default 1000)",
            "  --dir <path>          where the queues, the ZooKeeper files and the nodes' logs go",
            "");
    /** Messages a second of the client's stream. */
    static final int RATE = 1000;

    private ClusterCommand() {
    }

    /**
     * @param options the options after {@code cluster}.
     * @param out     where the report goes.
     * @param err     where errors go.
     * @return 0 when the failover happened and no acknowledged message was lost; 1 otherwise; 2 for bad options.
     */
    public static int run(final String[] options, final PrintStream out, final PrintStream err) {
        int session = (int) ClusterNode.DEFAULT_SESSION_TIMEOUT.toMillis();
        int messages = 1000;
        for (int i = 0; i < options.length; i++) {
            if (options[i].equals("--help") || options[i].equals("-h")) {
                out.print(USAGE);
                return 0;
            }
            if (i + 1 >= options.length) {
                err.println(options[i] + " needs a value");
                return 2;
            }
            switch (options[i]) {
                case "--session-timeout" -> session = Integer.parseInt(options[++i]);
                case "--messages" -> messages = Integer.parseInt(options[++i]);
                case "--dir" -> System.setProperty(BenchmarkDirectory.BASE_PROPERTY, options[++i]);
                default -> {
                    err.println("unknown option '" + options[i] + "' for cluster");
                    err.print(USAGE);
                    return 2;
                }
            }
        }
        if (session < 100 || messages < 1) {
            err.println("--session-timeout=" + session + " must be at least 100 and --messages=" + messages
                    + " at least 1");
            return 2;
        }
        quietZooKeeper();
        final BenchmarkDirectory work;
        try {
            work = BenchmarkDirectory.create("spool-cluster-");
        } catch (UncheckedIOException e) {
            err.println("cluster: " + e.getMessage());
            return 1;
        }
        boolean passed = false;
        try {
            passed = demo(work, session, messages, out, err);
        } catch (IOException | RuntimeException e) {
            err.println("cluster failed: " + e.getMessage());
        }
        if (passed) {
            work.delete();
        } else {
            err.println("the queues, the ZooKeeper files and each node's log (<id>.log) are kept in " + work.path());
        }
        return passed ? 0 : 1;
    }

    private static boolean demo(final BenchmarkDirectory work, final int session, final int messages,
                                final PrintStream out, final PrintStream err) throws IOException {
        final long started = System.nanoTime();
        try (ClusterLayout cluster = ClusterLayout.start(work.path(), 3, session, Replicas.SECRET)) {
            out.printf(Locale.ROOT, "cluster: an embedded ZooKeeper server at %s (tick %d ms), 3 nodes in child JVMs on"
                    + " loopback, session timeout %d ms,%n  a commit at ACKED_BY_QUORUM acknowledged by the primary and"
                    + " 1 of its 2 followers; queues in %s%n", cluster.connectString(), cluster.tickMillis(), session,
                    work.path());
            final String first = cluster.awaitPrimary(60_000);
            cluster.awaitFollowers(60_000);
            out.printf(Locale.ROOT, "  elected: %s, %.1f s after the start%n", cluster.states(),
                    (System.nanoTime() - started) / 1e9);
            try (Publisher publisher = new Publisher(cluster.gateways(), cluster.secret(), RATE,
                    Duration.ofMillis(2L * session))) {
                if (!publisher.awaitMore(messages, TimeUnit.SECONDS.toNanos(60))) {
                    err.println("cluster: the primary " + first + " did not acknowledge " + messages
                            + " messages within 60 s: " + cluster.states());
                    return false;
                }
                out.printf(Locale.ROOT, "  a client publishes one message at a time at up to %,d msg/s at ACKED_BY_QUORUM"
                        + " to %s's gateway: %,d acknowledged%n", RATE, first, publisher.acknowledged());
                final long killedAt = publisher.killing(cluster.position(first));
                cluster.node(first).kill();
                out.printf(Locale.ROOT, "  kill -9 of %s, the primary of term %d%n", first, cluster.node(first).term());
                final long failover = publisher.awaitFailover(TimeUnit.MILLISECONDS.toNanos(10L * session + 30_000));
                if (failover < 0) {
                    err.println("cluster: no other node acknowledged a commit within " + (10 * session + 30_000)
                            + " ms of the kill: " + cluster.states());
                    return false;
                }
                final String second = cluster.awaitPrimary(10_000);
                final long promoted = cluster.node(second).primarySinceNs() - killedAt;
                out.printf(Locale.ROOT, "  %s became the primary of term %d %,d ms after the kill; its first commit"
                                + " acknowledged at ACKED_BY_QUORUM%n  came %,d ms after the kill: the failover time,"
                                + " %.2f x the session timeout%n", second, cluster.node(second).term(),
                        TimeUnit.NANOSECONDS.toMillis(promoted), TimeUnit.NANOSECONDS.toMillis(failover),
                        failover / (double) TimeUnit.MILLISECONDS.toNanos(session));
                if (!publisher.awaitMore(messages, TimeUnit.SECONDS.toNanos(60))) {
                    err.println("cluster: the new primary " + second + " did not acknowledge " + messages
                            + " more messages within 60 s: " + cluster.states());
                    return false;
                }
                publisher.stop();
                final long lost = publisher.lost(cluster.directory(second));
                out.printf(Locale.ROOT, "  %,d messages acknowledged in all (%d given up on by the client when its"
                                + " primary died, never acknowledged);%n  every acknowledged message is on %s at the"
                                + " index its commit named, with the same bytes: %b (%d lost)%n",
                        publisher.acknowledged(), publisher.unacknowledged(), second, lost == 0, lost);
                out.printf(Locale.ROOT, "  %.1f s in all%n", (System.nanoTime() - started) / 1e9);
                return lost == 0;
            }
        }
    }

    /**
     * ZooKeeper's server and client log each connection a kill breaks; the nodes' logs keep them, and this JVM's
     * output keeps to the report.
     */
    static void quietZooKeeper() {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper", "error");
    }
}
