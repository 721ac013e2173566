package dev.spool.queue.internal;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongFunction;

/**
 * Not API: what the replication and ring-buffer modules need from a queue beyond its public methods, implemented by
 * the queue's engine. A module reaches it as {@code queue.unwrap(QueueInternals.class)}, which is cheap: every method
 * acts on the queue, in this process and, through the metadata file, in others.
 */
public interface QueueInternals {
    /**
     * Refuses, before anything starts, a writer of another module on a queue opened read-only, whose files are
     * mapped read-only: a replication source records acknowledgements, an async queue's drainer appends. The queue
     * itself refuses each write anyway; this says so when the writer is built rather than when it first writes.
     *
     * @param what the writer, for the message: {@code "a replication source, which records acknowledgements,"}.
     * @throws SpoolException naming the queue if it was opened read-only.
     */
    void checkWritable(String what);

    /**
     * Makes the queue's {@code createAppender} refuse from now on, naming {@code why}: an async queue is the queue's
     * only writer while it is open, and its drainer gives each record the index the ring promised; an appender of the
     * queue itself would take one of those indices and stop the drainer. {@link #createIndexedAppender()} still works.
     *
     * @param why the writer and the call to use instead, for the message.
     */
    void refuseAppenders(String why);

    /** Lets the queue's {@code createAppender} work again once the writer that {@link #refuseAppenders refused} closed. */
    void allowAppenders();

    /** @return when the queue's cycles start: the ring buffer's index rule rolls where the queue does. */
    CycleCalendar calendar();

    /**
     * @return the queue's wall clock, in milliseconds since 1970, which picks the cycle of each append: the ring
     * stamps its claims with it, so that a record drained from the ring lands in the cycle a direct append at the
     * claim's time would, and the ring and replication stamp and compare wall-clock times with it.
     */
    EpochClock epochClock();

    /** @return the queue's monotonic clock: what the ring and replication measure timeouts and intervals with. */
    NanoClock nanoClock();

    /**
     * @return the error handler the queue was built with, told of every failure of a background duty: the duties of
     * the sibling modules report theirs to it too.
     */
    ErrorHandler errorHandler();

    /** @return the thread factory the queue was built with, which makes the threads of the background duties. */
    ThreadFactory threadFactory();

    /** @return who may append to the queue, as persisted now. */
    QueueRole role();

    /** @return the number of promotions in the queue's history: 0 until a replica of it is first promoted. */
    long term();

    /**
     * @return the highest index a replica acknowledged, as recorded by the queue's replication source (in any
     * process), or -1 if none.
     */
    long lastAckedIndex();

    /**
     * Records that a replica acknowledged every excerpt up to {@code index}, unless a later index is recorded
     * already, and rings the ack doorbells of this instance. Readable by other processes through
     * {@link #lastAckedIndex()}.
     *
     * @param index the highest acknowledged index.
     */
    void recordAcked(long index);

    /**
     * @return the highest index acknowledged by the ack quorum of the queue's replication source (k of its N
     * replicas), as recorded in any process, or -1 if none.
     */
    long quorumAckedIndex();

    /**
     * Records that an ack quorum of replicas acknowledged every excerpt up to {@code index}, unless a later index is
     * recorded already. Call before {@link #recordAcked(long)}, which rings the ack doorbells.
     *
     * @param index the highest index acknowledged by the quorum.
     */
    void recordQuorumAcked(long index);

    /**
     * @return the typed schema files of the queue's directory and the metadata's count of them written: a
     * replication source sends them to its replicas, a sink stores what it receives.
     */
    SchemaFiles schemaFiles();

    /**
     * @param wake run on the appending thread after an append through an appender of this queue instance (an
     *             {@link IndexedAppender} too), while the doorbell is armed: short and non-blocking, such as
     *             {@code selector::wakeup}.
     * @return a doorbell that wakes a thread sleeping until the queue grows; appends made through other instances
     * (another process) ring nothing, so bound the sleep. See {@link Doorbell}.
     */
    Doorbell appendDoorbell(Runnable wake);

    /**
     * @param name a named tailer's name, 1 to 48 UTF-8 bytes; its entry in the metadata is created if absent.
     * @return the position persisted under the name, shared with the queue's tailers of that name; close it when
     * done, and {@code SpoolQueue.removeTailer(String)} refuses the name until then.
     * @throws dev.spool.queue.SpoolException if the name does not fit or the metadata has no room for it.
     */
    NamedPosition namedPosition(String name);

    /**
     * @return the names of the replicas' entries ({@link dev.spool.queue.format.MetadataDescriptor#REPLICA_NAME_PREFIX})
     * that this instance's retention found past the queue's replica lag limit at its last run: their cycles are no
     * longer kept. Empty if retention never ran here.
     */
    Set<String> replicasPastLagLimit();

    /**
     * @param wake run on the thread that calls {@link #recordAcked(long)} on this queue instance, while the doorbell
     *             is armed: short and non-blocking, such as unparking the waiting thread.
     * @return a doorbell that wakes a thread sleeping until a replica acknowledges more. See {@link Doorbell}.
     */
    Doorbell ackDoorbell(Runnable wake);

    /**
     * Makes this replica the primary of a new term, one more than its current one: its {@link #termHistory()} gains the
     * term from the index after its last, durably, then local appends continue from its last index, and a former primary of an earlier term is fenced when it meets this queue's term (see
     * {@link #fence(long)}). Stop the replication sink writing to it first.
     *
     * @return the new term.
     * @throws dev.spool.queue.SpoolException unless the queue is a {@link QueueRole#REPLICA}.
     */
    long promote();

    /**
     * Makes this replica the primary of {@code term}, a term a coordinator chose: its {@link #termHistory()} gains the
     * term from the index after its last, durably, then local appends continue from its last index, and a former primary of an earlier term is fenced when it meets this queue's term. Stop the replication
     * sink writing to it first.
     *
     * @param term the new term; must exceed {@link #term()}.
     * @return {@code term}.
     * @throws dev.spool.queue.SpoolException naming the queue and both terms unless the queue is a
     *                                        {@link QueueRole#REPLICA} of an earlier term.
     */
    long promote(long term);

    /**
     * Makes a primary that a later term deposed, or a fenced one, a {@link QueueRole#REPLICA}, in every process: it
     * keeps every excerpt and its term (the term of those excerpts), so a replication sink may resume it from the new
     * primary if it holds a prefix of that primary's history; new appenders are refused, and appenders created before
     * throw at their next write (as after {@link #fence(long)}). Writers made once the replica took, through
     * {@link #adoptTerm(TermHistory)}, the term of a primary at least as late as {@code laterTerm} write. A replica is left
     * as it is.
     *
     * @param laterTerm the term of a later primary; must exceed the term of a primary or fenced queue, and be at least
     *                  the term that fenced a fenced one.
     * @return true if the queue changed.
     * @throws dev.spool.queue.SpoolException naming the queue and both terms if it is a primary or fenced and
     *                                        {@code laterTerm} does not exceed its term.
     */
    boolean demote(long laterTerm);

    /**
     * Fences this primary: a primary of the later term {@code byTerm} exists, so new appenders are refused from now
     * on, in every process, and appenders created before the fence throw at their next write (a check under the
     * write lock, on the lock's own cache line).
     *
     * @param byTerm the later term; must exceed {@link #term()}.
     */
    void fence(long byTerm);

    /**
     * @return which term wrote which indices of the queue, as persisted now: {@link #promote} adds an entry, and
     * {@link #adoptTerm} replaces it with the primary's. A queue that never had either is its term from index 0.
     * Reads a small file: a handshake call.
     * @throws dev.spool.queue.SpoolException naming the file if it is damaged.
     */
    TermHistory termHistory();

    /**
     * A replica takes the term history of the primary it copies, once that primary's source checked that the two
     * histories agree on every index the replica holds, and with it the primary's term when that is later than its
     * own. The history is on disk when this returns: before the replica writes any excerpt of a term it lacked.
     *
     * @param history the primary's term history.
     * @throws dev.spool.queue.SpoolException unless the queue is a replica and the history's last term is at least its
     *                                        own.
     */
    void adoptTerm(TermHistory history);

    /** @return the features the queue was created with: the metadata's bit set ({@code MetadataDescriptor}). */
    int features();

    /**
     * @return true if the queue was created with checksums: each data excerpt's body is its CRC32C, then its payload.
     */
    boolean checksums();

    /**
     * @return true if the queue was created with publisher ids: each data excerpt's body is the CRC32C field (0
     * without checksums), the publisher id and sequence, then the payload.
     */
    boolean publisherIds();

    /**
     * @return a new appender that stores each payload's publisher id and sequence (see {@link PublisherAppender}),
     * with the queue's sync policy. Closing the queue closes it.
     * @throws dev.spool.queue.SpoolException where {@code createAppender} refuses: a replica, a fenced or closed
     *                                        queue, or one whose appenders an async queue refuses.
     */
    PublisherAppender createPublisherAppender();

    /**
     * Reads the publisher id and sequence of the last {@code excerpts} data excerpts of the queue (all of them if it
     * holds fewer) and tells {@code reader} of each that a publisher appended (id not 0), in index order; reads
     * nothing in a queue without publisher ids. Opens a tailer, finds the first of them (by its index if the last
     * cycle holds them all, else by walking back) and reads them forward: a start-up call, which allocates.
     *
     * @param excerpts how many of the last excerpts to read; 0 or less reads none.
     * @param reader   told of each publish.
     * @return the number of data excerpts read.
     */
    long readLastPublishers(long excerpts, PublisherReader reader);

    /**
     * @return true if readers of this queue instance check each excerpt's CRC32C: the queue has checksums and the
     * instance was not opened to skip them.
     */
    boolean verifyChecksums();

    /**
     * @return a new tailer, before the first excerpt, whose reads deliver each data excerpt's body as stored (in a
     * queue with checksums: the CRC32C field, then the payload; with publisher ids: the CRC32C field, the publisher
     * id and sequence, then the payload), checked as any tailer checks it; what
     * {@link IndexedAppender#appendBodyAt} writes. Closing the queue closes it.
     */
    ExcerptTailer createBodyTailer();

    /**
     * @return a new appender at given indices, with the queue's sync policy, on a replica or a primary; see
     * {@link IndexedAppender}. Closing the queue closes it.
     * @throws dev.spool.queue.SpoolException if the queue is fenced or closed.
     */
    IndexedAppender createIndexedAppender();

    /**
     * Scans the cycle files of the queue from the cycle of {@code fromIndex} on for excerpts its checksums prove
     * damaged (a CRC32C that fails) and data headers no writer produces; a walk stops at a bad header, so a second
     * scan after its repair may find more. Reads every excerpt: a start-up or tool call.
     *
     * @param fromIndex an index of the first cycle to scan; 0 scans every cycle.
     * @return the damaged ranges, ascending; empty if none.
     * @throws dev.spool.queue.RepairRefusedException if the queue has no checksums, which could prove nothing.
     */
    List<DamagedRange> damagedRanges(long fromIndex);

    /**
     * Rewrites in place the damaged excerpts of {@code fromIndex} to {@code toIndex} with another copy's bodies, each
     * only if proven right: it passes its own CRC32C and has exactly the stored length (or, for a bad header, the
     * bytes after the header are exactly that body). Nothing is written unless every one is; the writes go through a
     * journal in the queue's directory, so a crash leaves each excerpt as it was or repaired, and the next writer to
     * open the queue finishes a repair cut short. Allocates; not for a hot path.
     *
     * @param fromIndex the first index.
     * @param toIndex   the last index, inclusive.
     * @param bodies    the other copy's body of an index, as a body tailer delivers it, or null if it has none.
     * @return the number of regions rewritten (bodies and headers); 0 if nothing in the range was damaged.
     * @throws dev.spool.queue.RepairRefusedException naming the range and why, having written nothing.
     * @throws dev.spool.queue.SpoolException         if the queue was opened read-only or is closed.
     */
    int repairExcerpts(long fromIndex, long toIndex, LongFunction<byte[]> bodies);
}
