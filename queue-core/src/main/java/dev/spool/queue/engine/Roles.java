package dev.spool.queue.engine;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.QueueRole;
import dev.spool.queue.internal.TermHistory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.LongSupplier;

/**
 * A queue's role in replication and its changes, each under the write lock: a replica is promoted to the primary of
 * a later term, adopts its primary's later term, and a primary is fenced, or demoted to a replica, by a later term.
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
     * Makes this replica the primary of {@code term}: its term history gains the entry of {@code term} from the index
     * after its last, on disk before the role changes, and local appenders write to it from now on. A write fence that a
     * demotion left (see {@link #demote}) stays: appenders made before it stay stopped, and those made from now on,
     * at the later term, pass it.
     *
     * @param term      the new term; must exceed the queue's term and be at most {@link MetadataDescriptor#MAX_TERM}.
     * @param lastIndex reads the last index, for the log.
     * @return {@code term}.
     * @throws SpoolException unless the queue is a replica of an earlier term, naming the queue and both terms.
     */
    long promote(final long term, final LongSupplier lastIndex) {
        final WriteLock lock = store.writeLock();
        lock.lock();
        try {
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA) {
                throw new SpoolException("queue " + store.directory() + " is a " + role() + " queue of term "
                        + metadata.term() + ": only a replica can be promoted, to term " + term + " or any other");
            }
            if (term <= metadata.term() || term > MetadataDescriptor.MAX_TERM) {
                throw new SpoolException("queue " + store.directory() + " has term " + metadata.term()
                        + ": it cannot be promoted to term " + term + ", which must be later than its own and at most "
                        + MetadataDescriptor.MAX_TERM);
            }
            final long last = lastIndex.getAsLong();
            // the history first: a crash before the role changes leaves a replica whose history names a term it
            // never wrote, which covers none of its excerpts; the other order would let the new term's excerpts pass
            // for the old term's
            TermHistoryFile.write(store.directory(),
                    TermHistoryFile.read(store.directory(), metadata.term()).append(term, last + 1), store.fileMode());
            metadata.promote(term);
            LOG.info("queue {} promoted to primary of term {} at last index {}: the term's first index is {}",
                    store.directory(), term, IndexFormat.format(last, store.rollCycle()),
                    IndexFormat.format(last + 1, store.rollCycle()));
            return term;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Makes this primary, deposed or fenced, a replica: it keeps every excerpt and its term (the term of those
     * excerpts), new appenders are refused as on any replica, and appenders created before throw at their next write:
     * the write fence of {@code laterTerm} stays up, and only writers made once the replica took the term of a primary
     * at least that late pass it. The term rises only when a primary's source has checked the replica's history and
     * the sink adopts the source's term, so that a tail no replica acknowledged never passes for a later term's
     * excerpts. A replica is left as it is.
     *
     * @param laterTerm the term of a later primary; must exceed the term of a primary or fenced queue (and be at
     *                  least the term that fenced a fenced one), and be at most {@link MetadataDescriptor#MAX_TERM}.
     * @param lastIndex reads the last index, for the log.
     * @return true if the queue changed.
     * @throws SpoolException naming the queue and both terms if {@code laterTerm} is not later than a primary's or
     *                        fenced queue's term.
     */
    boolean demote(final long laterTerm, final LongSupplier lastIndex) {
        final WriteLock lock = store.writeLock();
        lock.lock();
        try {
            final int role = metadata.role();
            final long term = metadata.term();
            if (laterTerm > MetadataDescriptor.MAX_TERM) {
                throw new SpoolException("queue " + store.directory() + " has term " + term + ": term " + laterTerm
                        + " is past the highest a queue may have (" + MetadataDescriptor.MAX_TERM + ")");
            }
            if (role == MetadataDescriptor.ROLE_REPLICA) {
                return false;
            }
            if (laterTerm <= term) {
                throw new SpoolException("queue " + store.directory() + " is a " + role() + " queue of term " + term
                        + ": term " + laterTerm + " cannot demote it, only a later one");
            }
            if (role == MetadataDescriptor.ROLE_FENCED && laterTerm < metadata.fencedByTerm()) {
                throw new SpoolException("queue " + store.directory() + " of term " + term + " was fenced by term "
                        + metadata.fencedByTerm() + ": term " + laterTerm + " cannot demote it, only that one or a"
                        + " later one");
            }
            metadata.demote(laterTerm);
            LOG.info("queue {} of term {} demoted to a replica: a primary of term {} exists; it keeps its excerpts up"
                    + " to index {}", store.directory(), term, laterTerm,
                    IndexFormat.format(lastIndex.getAsLong(), store.rollCycle()));
            return true;
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
     * A replica takes the term history of the primary it copies, whose source checked that the two agree on every
     * index the replica holds, and with it the primary's term when it is later than its own. The history is on disk
     * before this returns, so before the replica writes any excerpt of a term it did not have.
     *
     * @param history the primary's term history.
     * @throws SpoolException unless the queue is a replica and the history's last term is at least its own and at
     *                        most {@link MetadataDescriptor#MAX_TERM}.
     */
    void adoptTerm(final TermHistory history) {
        final WriteLock lock = store.writeLock();
        lock.lock();
        try {
            final long term = history.lastTerm();
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA || term < metadata.term()
                    || term > MetadataDescriptor.MAX_TERM) {
                throw new SpoolException("queue " + store.directory() + " is a " + role() + " queue of term "
                        + metadata.term() + ": it cannot take term " + term);
            }
            if (!history.equals(TermHistoryFile.read(store.directory(), metadata.term()))) {
                TermHistoryFile.write(store.directory(), history, store.fileMode());
            }
            if (term > metadata.term()) {
                metadata.term(term);
            }
        } finally {
            lock.unlock();
        }
    }

    /** @return the queue's term history, as persisted now. */
    TermHistory termHistory() {
        return TermHistoryFile.read(store.directory(), metadata.term());
    }

}
