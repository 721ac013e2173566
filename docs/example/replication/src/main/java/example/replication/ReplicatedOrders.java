package example.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.Failover;
import dev.spool.replication.ReplicationRole;
import dev.spool.replication.ReplicationSink;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The replica's process, and the failover: starts a {@link ReplicationSink}, starts the {@link Primary} as a child
 * JVM that replicates to it, and records every order the primary reports acknowledged. Then it kills the primary
 * with SIGKILL, stops the sink, promotes the replica with {@link Failover#promote(SpoolQueue)} and reads it back:
 * every acknowledged order must be there, at the index the primary gave it, and the new primary appends after them.
 * Fails, naming the first order missing or different, otherwise; prints "OK".
 */
public final class ReplicatedOrders {
    /** Orders the primary writes, each acknowledged before the next: a loopback round trip each. */
    private static final int ORDERS = 500;

    private ReplicatedOrders() {
    }

    /**
     * Runs the recipe.
     *
     * @param args the directory to create the queues in (a new one inside it for every run); a temporary directory
     *             if none is given.
     * @throws Exception if a queue cannot be written or read, or the primary cannot be started.
     */
    public static void main(final String[] args) throws Exception {
        final Path parent = args.length > 0 ? Files.createDirectories(Path.of(args[0])) : null;
        final Path work = parent == null ? Files.createTempDirectory("replication-")
                : Files.createTempDirectory(parent, "replication-");
        final Path primaryDirectory = work.resolve("primary");
        final Path replicaDirectory = work.resolve("replica");

        // One secret for both ends, 32 random bytes, in a file only its owner may read (docs/operations/security.md,
        // "Security model"): the sink refuses a source that cannot prove it, and the source a sink.
        final byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        final Path secretFile = Files.createFile(work.resolve("replication.key"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(secretFile, secret);

        // index -> order, as the primary reported them acknowledged
        final Map<Long, String> acked = new LinkedHashMap<>();
        long lastAcked = -1;
        final long primaryPid;
        // The sink listens on the loopback address (the default) on any free port, and creates the replica at the
        // first handshake, with the primary's queue id, roll cycle and indices.
        try (ReplicationSink sink = ReplicationSink.builder(replicaDirectory).port(0).sharedSecret(secret).start()) {
            final Process primary = startPrimary(primaryDirectory, sink.address().getPort(), secretFile);
            primaryPid = primary.pid();
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(primary.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null && !line.equals("ready")) {
                    // "acked <index in hex> <order>"
                    final String[] fields = line.split(" ", 3);
                    lastAcked = Long.parseUnsignedLong(fields[1], 16);
                    acked.put(lastAcked, fields[2]);
                }
                if (line == null) {
                    throw new IllegalStateException("the primary exited with status " + primary.waitFor()
                            + " after " + acked.size() + " acknowledged orders of " + ORDERS);
                }
                // A crash, not a shutdown: SIGKILL on Linux and macOS. The primary closes nothing.
                primary.destroyForcibly();
                primary.waitFor();
            }
            // The failover decision is the application's (a health check, an operator, a coordination service).
            // Here the primary is known to be gone: stop the sink, so that nothing writes to the replica any more.
        }
        System.out.println("killed the primary (pid " + primaryPid + ") after " + acked.size()
                + " acknowledged orders");

        final Map<Long, String> replicated = new HashMap<>();
        try (SpoolQueue replica = SpoolQueue.open(replicaDirectory)) {
            if (Failover.role(replica) != ReplicationRole.REPLICA) {
                throw new IllegalStateException(replicaDirectory + " is a " + Failover.role(replica) + ", not a replica");
            }
            // term + 1: appends continue after the replica's last index, and the old primary, should it come back
            // and meet this term, is fenced. With the sink in this process, sink.promote() does both steps at once.
            final long term = Failover.promote(replica);
            if (Failover.role(replica) != ReplicationRole.PRIMARY) {
                throw new IllegalStateException("after the promotion " + replicaDirectory + " is a "
                        + Failover.role(replica));
            }
            try (ExcerptTailer tailer = replica.createTailer()) {
                while (tailer.read((bytes, offset, length, index) -> {
                    // the payload is the queue's mapped memory, valid during the call only: copy it
                    final byte[] payload = new byte[length];
                    bytes.read(offset, payload, 0, length);
                    replicated.put(index, new String(payload, StandardCharsets.UTF_8));
                })) {
                    // each read delivers one excerpt
                }
            }
            for (final Map.Entry<Long, String> order : acked.entrySet()) {
                final String found = replicated.get(order.getKey());
                if (!order.getValue().equals(found)) {
                    throw new IllegalStateException("the promoted replica lacks an acknowledged order: index 0x"
                            + Long.toHexString(order.getKey()) + " holds " + (found == null ? "nothing" : found)
                            + ", the primary acknowledged " + order.getValue());
                }
            }
            // The new primary takes writes, after everything the old one had acknowledged.
            try (ExcerptAppender appender = replica.createAppender()) {
                final long next = appender.append("order after the failover".getBytes(StandardCharsets.UTF_8));
                if (next <= lastAcked) {
                    throw new IllegalStateException("the new primary appended at index 0x" + Long.toHexString(next)
                            + ", not after the last acknowledged one, 0x" + Long.toHexString(lastAcked));
                }
            }
            System.out.println("OK: the replica, promoted to primary of term " + term + ", holds all " + acked.size()
                    + " acknowledged orders (the last at index 0x" + Long.toHexString(lastAcked) + ") and takes new"
                    + " ones, in " + replicaDirectory);
        }
    }

    /**
     * Starts the primary as a child JVM, with this JVM's java command, JVM flags (Spool's among them) and class
     * path; its standard error goes to this process's, its standard output to this process.
     */
    private static Process startPrimary(final Path directory, final int sinkPort, final Path secretFile)
            throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Primary.class.getName(),
                directory.toString(), Integer.toString(sinkPort), secretFile.toString(), Integer.toString(ORDERS)));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
