package dev.spool.replication.tools;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.ReplicaRepair;
import dev.spool.replication.QueueRepair;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * {@code spool repair --replica}: opens the queue and repairs it with {@link QueueRepair} from the replica's sink.
 * Registered in {@code META-INF/services} for the CLI's {@link java.util.ServiceLoader}.
 */
public final class ReplicaRepairProvider implements ReplicaRepair {
    /** The provider the service loader makes. */
    public ReplicaRepairProvider() {
    }

    @Override
    public long repair(final Path directory, final String replica, final byte[] secret, final long fromIndex,
                       final long toIndex) {
        final QueueRepair.Builder builder = QueueRepair.fromReplica(address(replica));
        if (secret == null) {
            builder.insecure();
        } else {
            builder.sharedSecret(secret);
        }
        try (SpoolQueue queue = SpoolQueue.builder(directory).open()) {
            return fromIndex >= 0 ? builder.repair(queue, fromIndex, toIndex) : builder.repair(queue);
        }
    }

    private static InetSocketAddress address(final String replica) {
        final int colon = replica.lastIndexOf(':');
        final int port;
        try {
            port = colon > 0 ? Integer.parseInt(replica.substring(colon + 1)) : -1;
        } catch (NumberFormatException e) {
            throw new SpoolException("bad replica address '" + replica + "': expected HOST:PORT", e);
        }
        if (port < 1 || port > 65535) {
            throw new SpoolException("bad replica address '" + replica + "': expected HOST:PORT, the port 1 to 65535");
        }
        return new InetSocketAddress(replica.substring(0, colon), port);
    }
}
