package dev.spool.queue.engine;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.QueueRole;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.LongSupplier;

/**
 * A queue's role in replication and its changes, each under the write lock: a replica is promoted to the primary of
 * a new term, adopts its primary's later term, and a primary is fenced by a later term.
 */
final class Roles {
    private static final Logger LOG = LoggerFactory.getLogger(Roles.class);

    private final Store store;
    private final MetadataFile metadata;

    Roles(final Store store) {
        this.store = store;
        this.metadata = store.metadata();
    }

    QueueRole role() {
        return QueueRole.of(metadata.role());
    }

    /**
     * Makes this replica the primary of a new term, one more than its current one.
     *
     * @param lastIndex reads the last index, for the log.
     * @return the new term.
     * @throws SpoolException unless the queue is a replica below {@link MetadataDescriptor#MAX_TERM}.
     */
    long promote(final LongSupplier lastIndex) {
        final WriteLock lock = store.writeLock();
        lock.lock();
        try {
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA) {
                throw new SpoolException("queue " + store.directory() + " is a " + role() + " queue of term "
                        + metadata.term() + ": only a replica can be promoted");
            }
            if (metadata.term() >= MetadataDescriptor.MAX_TERM) {
                throw new SpoolException("queue " + store.directory() + " has term " + metadata.term()
                        + ", the highest a queue may have (" + MetadataDescriptor.MAX_TERM + "): it cannot be promoted"
                        + " to a later one");
            }
            final long term = metadata.term() + 1;
            metadata.promote(term);
            LOG.info("queue {} promoted to primary of term {} at last index {}", store.directory(), term,
                    IndexFormat.format(lastIndex.getAsLong(), store.rollCycle()));
            return term;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Fences this primary: new appenders are refused, and appenders created before throw at their next write.
     *
     * @param byTerm the later term; must exceed the queue's term, and be at most {@link MetadataDescriptor#MAX_TERM}.
     */
    void fence(final long byTerm) {
        final WriteLock lock = store.writeLock();
        lock.lock();
        try {
            if (byTerm <= metadata.term() || byTerm > MetadataDescriptor.MAX_TERM) {
                throw new SpoolException("queue " + store.directory() + " has term " + metadata.term()
                        + ": term " + byTerm + " cannot fence it");
            }
            metadata.fence(byTerm);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A replica takes the term of the primary it copies when that term is later than its own.
     *
     * @param term the primary's term.
     * @throws SpoolException unless the queue is a replica and {@code term} is at least its own and at most
     *                        {@link MetadataDescriptor#MAX_TERM}.
     */
    void adoptTerm(final long term) {
        final WriteLock lock = store.writeLock();
        lock.lock();
        try {
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA || term < metadata.term()
                    || term > MetadataDescriptor.MAX_TERM) {
                throw new SpoolException("queue " + store.directory() + " is a " + role() + " queue of term "
                        + metadata.term() + ": it cannot take term " + term);
            }
            metadata.term(term);
        } finally {
            lock.unlock();
        }
    }

}
