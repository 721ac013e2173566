package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.Replicas;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SyncPolicy;
import dev.spool.replication.CommitStage;
import dev.spool.replication.CommitWaiter;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;
import net.openhft.chronicle.bytes.Bytes;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * E3: a durability stage. JLBH's thread appends to a primary queue (with the variant's sync policy) and hands the
 * index to the reader, which busy-spins until that index reached the variant's {@link CommitStage}: the replica's
 * acknowledgement over loopback TCP, or a local sync it performs itself when the stage needs one and the replica
 * is away. Timed: append to commit on "server 1"; the client's own hop to server 1 is one TCP round trip, the
 * floor, and is not included. With two replicas, the source streams to two sinks (each on its own thread) and the
 * stage is the acknowledgement of either ({@link CommitStage#ACKED}) or of both ({@link CommitStage#ACKED_BY_QUORUM},
 * 2 of 2).
 */
final class StageVariant implements LatencyVariant {
    /** Messages whose ninth byte is 1 ask the content-based policy for a sync. */
    private static final int SYNC_FLAG_OFFSET = Long.BYTES;
    private static final long SYNC_PERIOD_NS = 100_000_000L;
    /** Name of {@link #syncAcked()}, the stage whose every message waits for an msync. */
    static final String SYNC_ACKED = "e3-sync-acked";

    private final String name;
    private final String description;
    private final CommitStage stage;
    private final SyncPolicy syncPolicy;
    private final boolean contentSync;
    private final boolean replicaUp;
    private final boolean invoked;
    /** Sinks the source streams to, each its own replica. */
    private final int replicas;
    private SpoolQueue primary;
    private ExcerptAppender appender;
    private ReplicationSink[] sinks;
    private ReplicationSource source;
    private SpscLongRing indices;
    private SpscLongRing startTimes;
    private ExcerptAppender readerAppender;
    private CommitWaiter waiter;
    private Bytes<?> message;
    private long lastSyncFlagNs;
    private long pendingIndex = -1;
    private long pendingStartNs;

    private StageVariant(final String name, final String description, final CommitStage stage,
                         final SyncPolicy syncPolicy, final boolean contentSync, final boolean replicaUp) {
        this(name, description, stage, syncPolicy, contentSync, replicaUp, false, 1);
    }

    private StageVariant(final String name, final String description, final CommitStage stage,
                         final SyncPolicy syncPolicy, final boolean contentSync, final boolean replicaUp,
                         final boolean invoked, final int replicas) {
        this.invoked = invoked;
        this.replicas = replicas;
        this.name = name;
        this.description = description;
        this.stage = stage;
        this.syncPolicy = syncPolicy;
        this.contentSync = contentSync;
        this.replicaUp = replicaUp;
    }

    static StageVariant written() {
        return new StageVariant("e3-written", "append, commit when written (no replica wait, no sync)",
                CommitStage.WRITTEN, SyncPolicy.NONE, false, true);
    }

    static StageVariant acked() {
        return new StageVariant("e3-acked", "append (no msync), commit on the replica's ack", CommitStage.ACKED,
                SyncPolicy.NONE, false, true);
    }

    /** @return two replicas, commit on the first acknowledgement of either. */
    static StageVariant ackedByAnyOfTwo() {
        return new StageVariant("e3-acked-any-of-2", "append (no msync), two replicas, commit on the first of their"
                + " acks", CommitStage.ACKED, SyncPolicy.NONE, false, true, false, 2);
    }

    /** @return two replicas, commit once both acknowledged: the ack quorum 2 of 2. */
    static StageVariant ackedByTwoOfTwo() {
        return new StageVariant("e3-acked-2-of-2", "append (no msync), two replicas, commit once both acked (ack"
                + " quorum 2 of 2)", CommitStage.ACKED_BY_QUORUM, SyncPolicy.NONE, false, true, false, 2);
    }

    static StageVariant asyncAcked() {
        return new StageVariant("e3-async-acked", "append with MS_ASYNC, commit on the replica's ack", CommitStage.ACKED,
                SyncPolicy.async(), false, true);
    }

    static StageVariant syncAcked() {
        return new StageVariant(SYNC_ACKED, "append with MS_SYNC every message, commit on the replica's ack",
                CommitStage.ACKED, SyncPolicy.everyMessage(), false, true);
    }

    static StageVariant sync10Acked() {
        return new StageVariant("e3-sync10-acked", "MS_SYNC when the content asks for it (10 times a second),"
                + " commit on the replica's ack", CommitStage.ACKED,
                SyncPolicy.when((bytes, offset, length) -> length > SYNC_FLAG_OFFSET
                        && bytes.readByte(offset + SYNC_FLAG_OFFSET) == 1), true, true);
    }

    /**
     * @return this variant with the reader's thread streaming for the source ({@link ReplicationSource#doWork()})
     * while it waits, instead of the source's own thread: named {@code <name>-invoked}.
     */
    StageVariant invoked() {
        return new StageVariant(name + "-invoked", description + "; the waiting thread streams for the source (doWork)",
                stage, syncPolicy, contentSync, replicaUp, true, replicas);
    }

    static StageVariant ackedOrSynced() {
        return new StageVariant("e3-acked-or-synced", "append, commit on the replica's ack (replica up)",
                CommitStage.ACKED_OR_SYNCED, SyncPolicy.NONE, false, true);
    }

    static StageVariant ackedOrSyncedDown() {
        return new StageVariant("e3-acked-or-synced-down", "append, replica down: commit after a local MS_SYNC",
                CommitStage.ACKED_OR_SYNCED, SyncPolicy.NONE, false, false);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public void init(final Path directory, final int length) {
        primary = Payloads.spoolQueue(directory.resolve("primary")).syncPolicy(syncPolicy).openOrCreate();
        appender = primary.createAppender();
        if (replicaUp) {
            sinks = new ReplicationSink[replicas];
            final InetSocketAddress[] more = new InetSocketAddress[replicas - 1];
            for (int i = 0; i < replicas; i++) {
                sinks[i] = ReplicationSink.builder(directory.resolve(i == 0 ? "replica" : "replica" + i))
                        .sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(Payloads.CHUNK_LENGTH)).start();
                if (i > 0) {
                    more[i - 1] = sinks[i].address();
                }
            }
            final ReplicationSource.Builder builder = ReplicationSource.builder(primary, sinks[0].address(), more)
                    .sharedSecret(Replicas.SECRET);
            if (invoked) {
                builder.invoked();
            }
            source = builder.start();
            Replicas.awaitConnected(source, sinks);
        } else {
            // nothing listens on port 1: the source retries now and then, and the stage falls back to a sync
            source = ReplicationSource.builder(primary, new InetSocketAddress(InetAddress.getLoopbackAddress(), 1)).sharedSecret(Replicas.SECRET)
                    .reconnectBackoff(Duration.ofSeconds(5), Duration.ofSeconds(30)).start();
        }
        indices = new SpscLongRing(1 << 16);
        startTimes = new SpscLongRing(1 << 16);
        message = Payloads.directMessage(length);
    }

    @Override
    public void openReader() {
        readerAppender = primary.createAppender();
        waiter = source.commitWaiter(readerAppender);
    }

    @Override
    public void send(final long startTimeNs) {
        final Bytes<?> message = this.message;
        message.writeLong(0, startTimeNs);
        if (contentSync && message.writeLimit() > SYNC_FLAG_OFFSET) {
            final boolean flag = startTimeNs - lastSyncFlagNs >= SYNC_PERIOD_NS;
            message.writeByte(SYNC_FLAG_OFFSET, (byte) (flag ? 1 : 0));
            if (flag) {
                lastSyncFlagNs = startTimeNs;
            }
        }
        final long index = appender.append(message);
        startTimes.put(startTimeNs);
        indices.put(index);
    }

    @Override
    public long receive() {
        if (pendingIndex < 0) {
            final long index = indices.poll();
            if (index == SpscLongRing.EMPTY) {
                if (invoked) {
                    source.doWork();
                }
                return NOTHING;
            }
            pendingIndex = index;
            pendingStartNs = startTimes.poll();
        }
        if (waiter.isCommitted(pendingIndex, stage)
                || stage == CommitStage.ACKED_OR_SYNCED && !source.isConnected() && readerAppender.sync() >= pendingIndex) {
            pendingIndex = -1;
            return pendingStartNs;
        }
        if (invoked) {
            // the waiting thread streams: it sends the write and reads the acknowledgement itself
            source.doWork();
        }
        return NOTHING;
    }

    @Override
    public void closeReader() {
        waiter.close();
        readerAppender.close();
    }

    @Override
    public void close() {
        source.close();
        if (sinks != null) {
            for (final ReplicationSink sink : sinks) {
                sink.close();
            }
        }
        appender.close();
        primary.close();
        message.releaseLast();
    }
}
