package example.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.CommitStage;
import dev.spool.replication.CommitWaiter;
import dev.spool.replication.ReplicationSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The primary: creates its queue, replicates it to the sink named on the command line, and appends orders, each
 * committed at {@link CommitStage#ACKED}: it returns only once the replica holds it. It prints
 * {@code acked <index in hex> <order>} for each, then {@code ready}, and waits to be killed; it exits on its own if
 * its parent goes (standard input closes). Exit status 1 if an order is not acknowledged within 10 s.
 */
public final class Primary {
    private Primary() {
    }

    /**
     * Runs the primary.
     *
     * @param args the queue's directory, the sink's port on the loopback address, the shared secret's file and the
     *             number of orders.
     * @throws Exception if the queue cannot be written or the replication not started.
     */
    public static void main(final String[] args) throws Exception {
        final Path directory = Path.of(args[0]);
        final InetSocketAddress sink = new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]));
        // the secret comes from a file only its owner reads, never from the command line, which any user can see
        final byte[] secret = Files.readAllBytes(Path.of(args[2]));
        final int orders = Integer.parseInt(args[3]);

        try (SpoolQueue queue = SpoolQueue.builder(directory).create();
             ExcerptAppender appender = queue.createAppender();
             ReplicationSource source = ReplicationSource.builder(queue, sink).sharedSecret(secret).start();
             CommitWaiter commits = source.commitWaiter(appender)) {
            Arrays.fill(secret, (byte) 0);  // the builder keeps its own copy
            for (int order = 0; order < orders; order++) {
                final String text = "order " + order;
                final long index = appender.append(text.getBytes(StandardCharsets.UTF_8));
                // ACKED: the replica has it in its queue, so it survives the loss of this machine. Without a replica
                // the await times out; ACKED_OR_SYNCED would fall back to syncing the local disk instead.
                if (!commits.await(index, CommitStage.ACKED, 10, TimeUnit.SECONDS)) {
                    System.err.println("primary: " + text + " at index 0x" + Long.toHexString(index)
                            + " not acknowledged within 10 s: " + source.failure());
                    System.exit(1);
                }
                System.out.println("acked " + Long.toHexString(index) + " " + text);
            }
            System.out.println("ready");
            System.out.flush();
            // Wait for the SIGKILL: nothing here closes the queue or the source cleanly, as in a crash. Standard input
            // reaches its end only if the parent has gone, and then there is no one left to kill this process.
            while (System.in.read() >= 0) {
                // the parent sends nothing; this only waits
            }
        }
    }
}
