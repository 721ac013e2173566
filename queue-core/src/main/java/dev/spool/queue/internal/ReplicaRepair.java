package dev.spool.queue.internal;

import java.nio.file.Path;

/**
 * Not API: the repair of a queue from a replica over the network, which queue-replication provides (it holds the
 * protocol) and {@code spool repair --replica} finds with {@link java.util.ServiceLoader} on the class path of
 * queue-replication's cli jar; queue-core's own cli jar has none, and repairs from a local copy only.
 */
public interface ReplicaRepair {
    /**
     * Repairs the queue at {@code directory} from the replica whose sink listens at {@code replica}.
     *
     * @param directory the queue's directory; the provider opens it for writing and closes it.
     * @param replica   the sink's address, {@code host:port}.
     * @param secret    the replicas' shared secret, or null to connect without one (an insecure sink).
     * @param fromIndex the first index to repair, or -1 to repair every damaged range a scan finds.
     * @param toIndex   the last index to repair, inclusive; ignored with {@code fromIndex} -1.
     * @return the number of regions rewritten.
     * @throws dev.spool.queue.RepairRefusedException naming the range and why, having written nothing of it.
     * @throws dev.spool.queue.SpoolException         if the replica cannot be reached or did not prove the secret.
     */
    long repair(Path directory, String replica, byte[] secret, long fromIndex, long toIndex);
}
