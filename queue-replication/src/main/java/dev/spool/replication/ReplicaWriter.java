package dev.spool.replication;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.QueueRole;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

import static dev.spool.replication.FrameDescriptor.ACK_LENGTH;
import static dev.spool.replication.FrameDescriptor.ERROR_FENCED;
import static dev.spool.replication.FrameDescriptor.ERROR_WRITE_FAILED;
import static dev.spool.replication.FrameDescriptor.TYPE_ACK;

/**
 * The sink's replica and its writing: opens the replica (or creates it at the first handshake), writes each DATA
 * frame's excerpts at their indices once the whole frame is checked, and acknowledges the highest index written, or
 * synced if so configured. The sink's thread only, but {@link #lastIndex()}; allocates nothing per frame.
 */
final class ReplicaWriter {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationSink.class);
    private final Path directory;
    private final SpoolQueueBuilder queueBuilder;
    private final boolean ackSynced;
    private final DataFlyweight data = new DataFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private SpoolQueue queue;
    private QueueInternals internals;
    private IndexedAppender appender;
    private long written = -1;
    private long acked = -1;
    private volatile long lastIndex = -1;

    /**
     * Opens the replica if it exists.
     *
     * @param queueBuilder the replica's builder, with its local settings.
     * @param ackSynced    acknowledge what is synced rather than what is written.
     * @throws IllegalStateException if the queue in the directory is not a replica.
     */
    ReplicaWriter(final Path directory, final SpoolQueueBuilder queueBuilder, final boolean ackSynced) {
        this.directory = directory;
        this.queueBuilder = queueBuilder;
        this.ackSynced = ackSynced;
        if (SpoolQueue.exists(directory)) {
            queue = queueBuilder.openOrCreate();
            internals = QueueInternals.of(queue);
            if (internals.role() != QueueRole.REPLICA) {
                final String role = internals.role() + " queue of term " + internals.term();
                queue.close();
                throw new IllegalStateException("queue " + directory + " is a " + role + ": a sink writes only to a replica");
            }
            lastIndex = queue.lastIndex();
        }
    }

    /** @return the replica, or null until the first handshake creates it. */
    SpoolQueue queue() {
        return queue;
    }

    /** @return the replica's builder, which the first handshake gives the source's identity. */
    SpoolQueueBuilder queueBuilder() {
        return queueBuilder;
    }

    /** @return the replica's term, 0 before it exists. */
    long term() {
        return queue == null ? 0 : internals.term();
    }

    /** @return the last index written, -1 if none; any thread. */
    long lastIndex() {
        return lastIndex;
    }

    /** @return the last index written, as the handshake announces it. */
    long written() {
        return written;
    }

    /**
     * After a WELCOME: the next stream resumes after {@code last}.
     *
     * @param last the replica's last index, -1 if none.
     */
    void resumeAfter(final long last) {
        written = last;
        lastIndex = last;
    }

    /**
     * After a START: opens or creates the replica, takes a later source's term, and makes the appender.
     *
     * @param sourceTerm the source's term.
     * @throws Refusal if the source's term is older than the replica's, or the replica cannot be opened.
     */
    void open(final long sourceTerm) throws Refusal {
        try {
            if (queue == null) {
                queue = queueBuilder.openOrCreate();
                internals = QueueInternals.of(queue);
            }
            if (sourceTerm < internals.term()) {
                throw new Refusal(ERROR_FENCED, "the source's term " + sourceTerm + " is older than the replica's "
                        + internals.term() + ": a later primary exists, the source is fenced");
            }
            if (sourceTerm > internals.term()) {
                internals.adoptTerm(sourceTerm);
            }
            if (appender == null) {
                appender = internals.createIndexedAppender();
            }
        } catch (RuntimeException e) {
            LOG.error("replication sink of {}: cannot open the replica", directory, e);
            throw new Refusal(ERROR_WRITE_FAILED, "the sink cannot open its replica " + directory + ": " + e.getMessage());
        }
        acked = -1;
    }

    /**
     * Checks the DATA frame the connection holds, then writes its excerpts: a malformed frame leaves the replica
     * untouched.
     *
     * @throws FrameException if the frame is malformed.
     * @throws Refusal        if an excerpt cannot be written; the ones before it are.
     */
    void write(final Connection connection) throws FrameException, Refusal {
        final DataFlyweight frame = data.wrap(connection.received(), connection.frameOffset());
        frame.check(connection.peer(), connection.frameLength(), written);
        final int count = frame.count();
        int entry = frame.firstEntry();
        for (int i = 0; i < count; i++) {
            final long index = frame.entryIndex(entry);
            try {
                appender.appendAt(index, connection.receivedStore(), frame.entryPayload(entry), frame.entryLength(entry));
            } catch (RuntimeException e) {
                final String printed = IndexFormat.format(index, queue.rollCycle());
                LOG.error("replication sink of {}: cannot write index {} from {}", directory, printed, connection.peer(), e);
                throw new Refusal(ERROR_WRITE_FAILED, "the sink cannot write index " + printed + ": " + e.getMessage());
            }
            written = index;
            entry = frame.nextEntry(entry);
        }
        lastIndex = written;
    }

    /** Queues an ACK of what is written (or synced) if it is more than the last one sent. */
    void ack(final Connection connection) {
        long index = written;
        if (ackSynced) {
            final long synced = appender.sync();
            index = Math.min(synced, written);
        }
        if (index > acked) {
            acked = index;
            final int offset = connection.beginFrame(TYPE_ACK);
            ack.wrap(connection.send(), offset).index(index);
            connection.endFrame(offset, ACK_LENGTH);
        }
    }

    /**
     * Makes the replica the primary of the next term.
     *
     * @return the new term.
     * @throws IllegalStateException if the replica was never created.
     */
    long promote() {
        if (queue == null) {
            throw new IllegalStateException("sink of " + directory + " has no replica to promote: no source ever"
                    + " completed a handshake with it");
        }
        return internals.promote();
    }

    /** Closes the replica, if it was opened. */
    void close() {
        if (queue != null) {
            queue.close();
        }
    }
}
