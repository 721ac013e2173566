package dev.spool.replication.sink;

import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RepairRefusedException;
import dev.spool.queue.SpoolException;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.Crc32cOfMemory;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.TermHistory;
import dev.spool.queue.internal.QueueRole;
import dev.spool.queue.internal.SetAside;
import dev.spool.replication.protocol.AckFlyweight;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.SchemaFlyweight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.ACK_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.DATA_FLAG_CRC32C;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_DIVERGED;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_FENCED;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_QUEUE_MISMATCH;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_WRITE_FAILED;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ACK;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The sink's replica and its writing: opens the replica (or creates it at the first handshake), writes each DATA
 * frame's excerpts at their indices once the whole frame is checked (with checksums: every entry's CRC32C too),
 * stores each SCHEMA frame's typed schema file once checked, and acknowledges the highest index written, or synced if so configured. The excerpts' bodies are written as the source
 * stored them, so the replica's files hold the same bytes. The sink's thread only, but {@link #lastIndex()};
 * allocates nothing per frame.
 */
public final class ReplicaWriter {
    private static final Logger LOG = LoggerFactory.getLogger(SinkConfig.LOGGER);
    private final Path directory;
    /** A fresh builder of the replica's local settings at each call: what one source's HELLO adds reaches no other. */
    private final Supplier<SpoolQueueBuilder> localSettings;
    private final boolean ackSynced;
    private final DataFlyweight data = new DataFlyweight();
    private final AckFlyweight ack = new AckFlyweight();
    private final SchemaFlyweight schema = new SchemaFlyweight();
    private final Crc32cOfMemory crc = new Crc32cOfMemory();
    private SpoolQueue queue;
    private QueueInternals internals;
    private IndexedAppender appender;
    private long written = -1;
    private long acked = -1;
    private volatile long lastIndex = -1;
    /**
     * The damaged ranges of the replica's last cycle its checksums prove, until the source's stream repaired them;
     * empty if none. While there are some, a stream resumes from before the first, and nothing past it is
     * acknowledged until every one is repaired.
     */
    private List<DamagedRange> damage = List.of();
    /** While repairing: the replica's own last index, up to which the stream's excerpts are absorbed, not written. */
    private long heldLast = -1;
    /** While repairing: the last index the stream carried. */
    private long absorbed = -1;
    /** While repairing: the stream's bodies of the damaged indices. */
    private final Map<Long, byte[]> repairBodies = new HashMap<>();
    /** The replica's roll cycle, for printing its indices on any thread; null until the replica exists. */
    private volatile RollCycle rollCycle;

    /**
     * Opens the replica if it exists.
     *
     * @param localSettings makes a builder of the replica with its local settings, a new one at each call.
     * @param ackSynced     acknowledge what is synced rather than what is written.
     * @throws SpoolException if the queue in the directory is not a replica. Damage its checksums prove in its last
     *                        cycle ({@link ReplicaTailCheck}) is repaired from the next source's stream.
     */
    public ReplicaWriter(final Path directory, final Supplier<SpoolQueueBuilder> localSettings, final boolean ackSynced) {
        this.directory = directory;
        this.localSettings = localSettings;
        this.ackSynced = ackSynced;
        if (SpoolQueue.exists(directory)) {
            queue = localSettings.get().openOrCreate();
            internals = queue.unwrap(QueueInternals.class);
            if (internals.role() != QueueRole.REPLICA) {
                final String role = internals.role() + " queue of term " + internals.term();
                queue.close();
                throw new SpoolException("queue " + directory + " is a " + role + ": a sink writes only to a replica");
            }
            try {
                damage = ReplicaTailCheck.damage(queue);
            } catch (RuntimeException e) {
                queue.close();
                throw e;
            }
            lastIndex = queue.lastIndex();
            rollCycle = queue.rollCycle();
            if (!damage.isEmpty()) {
                LOG.warn("replication sink of {}: the replica's checksums prove excerpts of its last cycle damaged ({}):"
                        + " it resumes from before them, repairs them with its source's bytes when one connects, and"
                        + " acknowledges nothing past them before", directory, ReplicaTailCheck.describe(damage, rollCycle));
            }
        }
    }

    /** @return the replica, or null until the first handshake creates it. */
    SpoolQueue queue() {
        return queue;
    }

    /** @return a new builder of the replica with its local settings, which a handshake gives the source's identity. */
    SpoolQueueBuilder newBuilder() {
        return localSettings.get();
    }

    /** @return the replica's term, 0 before it exists. */
    public long term() {
        return queue == null ? 0 : internals.term();
    }

    /** @return the replica's term history: term 0 from index 0 while there is no replica; a handshake call. */
    TermHistory termHistory() {
        return queue == null ? TermHistory.of(0) : internals.termHistory();
    }

    /** @return the last index written, -1 if none; any thread. */
    public long lastIndex() {
        return lastIndex;
    }

    /** @return the replica's roll cycle, null until the replica exists; any thread. */
    public RollCycle rollCycle() {
        return rollCycle;
    }

    /** @return the last index written, as the handshake announces it. */
    long written() {
        return written;
    }

    /**
     * @param sourceLastIndex the last index the source's HELLO announced.
     * @return the index a stream resumes after, as RESUME announces it: the replica's last index, or, while its last
     * cycle holds damage, the last index before the damage (-1 if none), so that the stream carries the damaged
     * excerpts again; but the replica's last index if the source holds less, which refuses the replica's history as
     * it would without damage.
     */
    long resumeIndex(final long sourceLastIndex) {
        if (queue == null) {
            return -1;
        }
        if (damage.isEmpty() || sourceLastIndex < queue.lastIndex()) {
            return queue.lastIndex();
        }
        final long first = damage.get(0).fromIndex();
        if (rollCycle.toSequence(first) > 0) {
            return first - 1;
        }
        // the first excerpt of the last cycle is damaged: resume after the last excerpt of the cycle before, if any
        long before = -1;
        for (final long cycle : queue.cycles()) {
            if (cycle < rollCycle.toCycle(first)) {
                before = cycle;
            }
        }
        if (before < 0) {
            return -1;
        }
        final long[] last = {-1};
        try (ExcerptTailer tailer = internals.createBodyTailer()) {
            if (tailer.moveToIndex(rollCycle.toIndex(before, 0))) {
                final ExcerptHandler lastRead = (bytes, offset, length, index) -> last[0] = index;
                while (tailer.index() < first && tailer.read(lastRead)) {
                    // each read moves past one excerpt of the cycle before
                }
            }
        }
        return last[0] < first ? last[0] : -1;
    }

    /**
     * After a RESUME: the next stream resumes after {@code last}. With damage to repair, the stream's excerpts up to
     * the replica's own last index are absorbed, not written, the damaged ones' bodies kept for the repair.
     *
     * @param last the index RESUME announced ({@link #resumeIndex(long)}), -1 if none.
     */
    void resumeAfter(final long last) {
        written = last;
        lastIndex = last;
        repairBodies.clear();
        heldLast = damage.isEmpty() || last >= queue.lastIndex() ? -1 : queue.lastIndex();
        absorbed = last;
    }

    /**
     * Once the source accepted the replica's history: opens or creates the replica, takes the source's term history
     * (on disk before any excerpt of a term the replica lacked is written) and a later source's term, and makes the
     * appender. A replica that holds excerpts past the index RESUME gave (kept for a repair) is refused as divergent
     * if the source's history leaves its own before its last index: the source checked only up to RESUME's.
     *
     * @param sourceHistory the source's term history; its last term is the source's term.
     * @param creation      the builder that creates the replica as the source's queue is, if it does not exist yet.
     * @throws Refusal if the source's term is older than the replica's, its history leaves the replica's before the
     *                 replica's last index, or the replica cannot be opened.
     */
    void open(final TermHistory sourceHistory, final SpoolQueueBuilder creation) throws Refusal {
        final long sourceTerm = sourceHistory.lastTerm();
        try {
            if (queue == null) {
                queue = creation.openOrCreate();
                internals = queue.unwrap(QueueInternals.class);
                rollCycle = queue.rollCycle();
            }
            if (sourceTerm < internals.term()) {
                throw new Refusal(ERROR_FENCED, "the source's term " + sourceTerm + " is older than the replica's "
                        + internals.term() + ": a later primary exists, the source is fenced");
            }
            final TermHistory own = internals.termHistory();
            final long difference = sourceHistory.firstDifference(own);
            if (difference <= queue.lastIndex()) {
                throw new Refusal(ERROR_DIVERGED, "the replica " + directory + " holds excerpts up to index "
                        + IndexFormat.format(queue.lastIndex(), rollCycle) + " and its term history " + own
                        + " leaves the source's " + sourceHistory + " at index "
                        + IndexFormat.format(difference, rollCycle) + ": nothing is merged");
            }
            if (sourceTerm > internals.term() || internals.role() == QueueRole.REPLICA) {
                internals.adoptTerm(sourceHistory);
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
        frame.check(connection.peer(), connection.frameLength(), heldLast >= 0 ? absorbed : written);
        checkChecksums(connection, frame);
        final int count = frame.count();
        int entry = frame.firstEntry();
        for (int i = 0; i < count; i++) {
            final long index = frame.entryIndex(entry);
            if (heldLast >= 0) {
                absorb(connection, frame, entry, index);
                entry = frame.nextEntry(entry);
                continue;
            }
            try {
                appender.appendBodyAt(index, connection.receivedStore(), frame.entryPayload(entry), frame.entryLength(entry));
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

    /**
     * While repairing: an excerpt the replica holds already. A damaged one's body is kept; at the replica's own last
     * index, whose checksum must be the source's (else the histories diverged), every damaged range is repaired with
     * the bodies kept, and the stream is written from then on. Allocates: once per damaged excerpt, at a reconnect.
     *
     * @throws Refusal naming the range and why, if the repair is refused or the histories diverged: nothing past the
     *                 damage is acknowledged, and the next source's stream tries again.
     */
    private void absorb(final Connection connection, final DataFlyweight frame, final int entry, final long index)
            throws Refusal {
        absorbed = index;
        final int length = frame.entryLength(entry);
        final long body = connection.receivedStore().addressForRead(frame.entryPayload(entry));
        for (final DamagedRange range : damage) {
            if (index >= range.fromIndex() && index <= range.toIndex()) {
                final byte[] bytes = new byte[length];
                connection.received().get(frame.entryPayload(entry), bytes);
                repairBodies.put(index, bytes);
            }
        }
        if (index < heldLast) {
            return;
        }
        final RollCycle cycle = queue.rollCycle();
        final long sourceChecksum = crc.of(body, length) & 0xFFFF_FFFFL;
        if (index > heldLast || sourceChecksum != Handshake.checksumAt(queue, heldLast)) {
            throw new Refusal(ERROR_DIVERGED, "the replica " + directory + " holds index "
                    + IndexFormat.format(heldLast, cycle) + ", which the source at " + connection.peer()
                    + (index > heldLast ? " lacks" : " holds with other bytes") + ": its damage ("
                    + ReplicaTailCheck.describe(damage, cycle) + ") is not repaired from it");
        }
        final long from = damage.get(0).fromIndex();
        final long to = damage.get(damage.size() - 1).toIndex();
        try {
            final int repaired = internals.repairExcerpts(from, to, repairBodies::get);
            final List<DamagedRange> left = ReplicaTailCheck.damage(queue);
            if (!left.isEmpty()) {
                throw new RepairRefusedException(from, to, "damage is left after the repair of "
                        + IndexFormat.format(from, cycle) + ".." + IndexFormat.format(to, cycle) + ": "
                        + ReplicaTailCheck.describe(left, cycle));
            }
            LOG.info("replication sink of {}: repaired {}..{} ({} regions) with the bytes of the source at {}",
                    directory, IndexFormat.format(from, cycle), IndexFormat.format(to, cycle), repaired,
                    connection.peer());
        } catch (RuntimeException e) {
            LOG.error("replication sink of {}: cannot repair its damaged excerpts from the source at {}: {}", directory,
                    connection.peer(), e.getMessage());
            throw new Refusal(ERROR_WRITE_FAILED, "the replica " + directory + " cannot repair its damaged excerpts "
                    + IndexFormat.format(from, cycle) + ".." + IndexFormat.format(to, cycle) + " from this source: "
                    + e.getMessage() + "; it acknowledges nothing past them");
        }
        damage = List.of();
        repairBodies.clear();
        heldLast = -1;
        written = index;
        lastIndex = index;
    }

    /**
     * A frame's entries hold checksums exactly when the replica has them; then each entry's CRC32C must match its
     * payload. Checked for the whole frame before any of it is written.
     *
     * @throws Refusal        if the source's queue and the replica differ in checksums.
     * @throws FrameException naming the peer, the entry, its index and both values, if a checksum does not match.
     */
    private void checkChecksums(final Connection connection, final DataFlyweight frame) throws FrameException, Refusal {
        final boolean checksummed = (frame.flags() & DATA_FLAG_CRC32C) != 0;
        if (checksummed != internals.checksums()) {
            throw new Refusal(ERROR_QUEUE_MISMATCH, "the source's queue " + (checksummed ? "has" : "has no")
                    + " CRC32C checksums but the replica " + directory + (checksummed ? " has none" : " has them")
                    + ": a replica is created with the primary's setting, SpoolQueueBuilder.checksums(" + checksummed + ")");
        }
        // a body's prefix (CRC32C, publisher id and sequence) is the replica's too: the same features
        final int prefixLength = ExcerptDescriptor.bodyPrefixLength(internals.features());
        if (prefixLength == 0) {
            return;
        }
        final long base = connection.receivedStore().addressForRead(0);
        final int count = frame.count();
        int entry = frame.firstEntry();
        for (int i = 0; i < count; i++) {
            final int length = frame.entryLength(entry);
            final long body = base + frame.entryPayload(entry);
            if (length <= prefixLength) {
                throw new FrameException("DATA frame from " + connection.peer() + ": entry " + i + " at index "
                        + frame.entryIndex(entry) + " has length " + length + ", too short for " + prefixLength
                        + " bytes of prefix and a payload");
            }
            if (!checksummed) {
                entry = frame.nextEntry(entry);
                continue;
            }
            final int expected = MEMORY.readInt(body);
            final int found = crc.of(body + CHECKSUM_LENGTH, length - CHECKSUM_LENGTH);
            if (found != expected) {
                throw new FrameException(String.format("DATA frame from %s: entry %d at index %s carries CRC32C 0x%08x"
                        + " but its payload of length=%d gives 0x%08x: damaged in transit; nothing of the frame was"
                        + " written", connection.peer(), i,
                        IndexFormat.format(frame.entryIndex(entry), queue.rollCycle()), expected, length - CHECKSUM_LENGTH,
                        found));
            }
            entry = frame.nextEntry(entry);
        }
    }

    /**
     * Checks the SCHEMA frame the connection holds, then stores its typed schema file in the replica's directory, as
     * the writer did in the primary's (aside and renamed, with the replica's file mode, if it differs), counted in the
     * replica's schema generation so that its own source, once it is promoted or if it feeds replicas of its own,
     * sends it on. A malformed frame, a name that is not a plain schema file name or content that is not a schema
     * writes nothing.
     *
     * @throws FrameException naming the peer, the frame and the field, if the frame or the file is malformed.
     * @throws Refusal        if the file cannot be written.
     */
    void writeSchema(final Connection connection) throws FrameException, Refusal {
        final SchemaFlyweight frame = schema.wrap(connection.received(), connection.frameOffset());
        frame.check(connection.peer(), connection.frameLength());
        final String name = frame.name();
        try {
            if (internals.schemaFiles().store(name, frame.content())) {
                LOG.info("replication sink of {}: stored the typed schema {} from {}", directory, name, connection.peer());
            }
        } catch (RuntimeException e) {
            LOG.error("replication sink of {}: cannot store the typed schema {} from {}", directory, name,
                    connection.peer(), e);
            throw new Refusal(ERROR_WRITE_FAILED, "the sink cannot store the typed schema " + name + ": "
                    + e.getMessage());
        }
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
     * Makes the replica the primary of {@code term}.
     *
     * @param term the new term, later than the replica's.
     * @return {@code term}.
     * @throws SpoolException if the replica was never created, or its term is not earlier.
     */
    public long promote(final long term) {
        if (queue == null) {
            throw new SpoolException("sink of " + directory + " has no replica to promote to term " + term
                    + ": no source ever completed a handshake with it");
        }
        return internals.promote(term);
    }

    /**
     * Closes the replica and sets its directory aside, every file kept, so that the next handshake creates it afresh,
     * empty, and the source streams it from its oldest excerpt: the source no longer holds what the replica needs
     * next. The sink's thread, between sessions.
     *
     * @return where the directory went.
     * @throws java.io.UncheckedIOException naming both paths, if it cannot be renamed; the replica is closed then.
     */
    Path moveAside() {
        final SpoolQueue replica = queue;
        queue = null;
        internals = null;
        appender = null;
        written = -1;
        acked = -1;
        lastIndex = -1;
        rollCycle = null;
        damage = List.of();
        heldLast = -1;
        repairBodies.clear();
        if (replica != null) {
            replica.close();
        }
        return SetAside.move(directory, "behind-retention");
    }

    /** Closes the replica, if it was opened. */
    public void close() {
        if (queue != null) {
            queue.close();
        }
    }
}
