package dev.spool.replication.source;

import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.NamedPosition;
import dev.spool.queue.internal.QueueInternals;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Where a source records, in its queue's metadata, the index each replica acknowledged, so that retention keeps the
 * cycles a replica still needs, up to the queue's replica lag limit, and a restarted primary still knows them. One
 * named-tailer entry per replica, named {@link MetadataDescriptor#REPLICA_NAME_PREFIX} and the sink's address as
 * configured ({@link #nameOf(InetSocketAddress)}): the one thing that identifies a replica across restarts of both
 * ends, since every replica of a queue has that queue's id. The source's pass writes, once per acknowledgement, with
 * a release store; allocates nothing then.
 */
final class ReplicaPositions implements AutoCloseable {
    private final NamedPosition[] positions;

    /** Opens, or creates with nothing acknowledged, the entry of each sink. */
    ReplicaPositions(final QueueInternals internals, final List<InetSocketAddress> sinks) {
        positions = new NamedPosition[sinks.size()];
        try {
            for (int i = 0; i < positions.length; i++) {
                positions[i] = internals.namedPosition(nameOf(sinks.get(i)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * @param sink a sink's address, as the source was given it.
     * @return the name of its entry: the prefix, the host as given (a host too long for the name is replaced by the
     * hex of its hash) and the port.
     */
    static String nameOf(final InetSocketAddress sink) {
        final String port = ":" + sink.getPort();
        final String name = MetadataDescriptor.REPLICA_NAME_PREFIX + sink.getHostString() + port;
        if (name.getBytes(StandardCharsets.UTF_8).length <= MetadataDescriptor.NAMED_TAILER_MAX_NAME_LENGTH) {
            return name;
        }
        return MetadataDescriptor.REPLICA_NAME_PREFIX + "#" + Integer.toHexString(sink.getHostString().hashCode())
                + port;
    }

    /**
     * @param replica the replica's number.
     * @param index   the highest index it holds: what it acknowledged, or its last index at the handshake.
     */
    void record(final int replica, final long index) {
        if (positions[replica].committedIndex() != index) {
            positions[replica].commit(index);
        }
    }

    /** Closes the entries; they stay in the metadata, and keep pinning, for the next source of the queue. */
    @Override
    public void close() {
        for (final NamedPosition position : positions) {
            if (position != null) {
                position.close();
            }
        }
    }
}
