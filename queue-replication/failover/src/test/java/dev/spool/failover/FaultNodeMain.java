package dev.spool.failover;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM of the fault loop: runs one {@link ClusterNode} until it is killed, and prints a line
 * {@code STATE <state> term=<term>} each time its state or term changes, for the parent to follow.
 * <p>
 * Arguments: the ZooKeeper connect string, the queue id, the node id, the directory, the members
 * ({@code id@host:port/host:port}, comma-separated, as {@link Member#toString()} writes them), the ack quorum, the
 * session timeout in milliseconds, and the address its sink listens on ({@code host:port}).
 */
final class FaultNodeMain {
    static final byte[] SECRET = "the fault loop's secret, shared".getBytes(StandardCharsets.UTF_8);

    private FaultNodeMain() {
    }

    public static void main(final String[] args) {
        final ClusterNode.Builder builder = ClusterNode.builder(args[0], UUID.fromString(args[1]), args[2],
                        Path.of(args[3]))
                .ackQuorum(Integer.parseInt(args[5]))
                .sessionTimeout(Duration.ofMillis(Long.parseLong(args[6])))
                .connectTimeout(Duration.ofSeconds(20))
                .sharedSecret(SECRET)
                .queueSettings(FaultNodeMain::settings)
                .replicationListen(address(args[7]));
        for (final String member : args[4].split(",")) {
            builder.member(member(member));
        }
        final ClusterNode node = builder.start();
        System.out.println("STARTED " + node.nodeId());
        NodeState printed = null;
        long printedTerm = Long.MIN_VALUE;
        while (true) {
            // the state first: the node sets a new term before the state that goes with it
            final NodeState state = node.state();
            final long term = node.term();
            if (state != printed || term != printedTerm) {
                System.out.println("STATE " + state + " term=" + term);
                printed = state;
                printedTerm = term;
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** Every node's queue settings: small chunks, as the other multi-process tests use. */
    static void settings(final dev.spool.queue.SpoolQueueBuilder queue) {
        queue.chunkLength(1 << 20);
    }

    static Member member(final String text) {
        final int at = text.indexOf('@');
        final int slash = text.indexOf('/', at);
        return Member.of(text.substring(0, at), address(text.substring(at + 1, slash)),
                address(text.substring(slash + 1)));
    }

    static InetSocketAddress address(final String text) {
        final int colon = text.lastIndexOf(':');
        return new InetSocketAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    }
}
