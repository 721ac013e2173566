package dev.spool.benchmarks;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SyncPolicy;
import net.openhft.chronicle.bytes.Bytes;

import java.nio.file.Path;

/**
 * E3b, the local half: publish to commit on one Spool queue with a {@link SyncPolicy}. JLBH's thread appends the
 * message; the append returns after its {@code msync} when the policy fires for it, and then the message is
 * committed as far as the policy goes, so the start time goes to the reader through an in-memory ring
 * ({@link SpscLongRing}, as in the floor), which samples it. The time is therefore the append plus any msync plus
 * the floor's handoff; the reader does not read the queue.
 * <p>
 * Three policies: {@code sync-async} ({@code msync(MS_ASYNC)} after every message: write-back scheduled, nothing
 * waited for), {@code sync-every} ({@code msync(MS_SYNC)} after every message: on disk at commit) and
 * {@code sync-content} ({@code MS_SYNC} only after a message whose flag byte says "large order"; the sender flags
 * one message in {@value LargeOrders#EVERY}, ten a second at E3b's 50K msg/s; the others are committed unsynced, and are
 * on disk at the next flagged one). The files go to the benchmark directory, which must be a real disk: an msync
 * on tmpfs does nothing.
 */
final class SyncVariant implements LatencyVariant {
    /** Name of {@link #async()}. */
    static final String ASYNC = "sync-async";
    /** Name of {@link #everyMessage()}. */
    static final String EVERY = "sync-every";
    /** Name of {@link #byContent()}. */
    static final String CONTENT = "sync-content";

    private final String name;
    private final String description;
    private final SyncPolicy policy;
    private final boolean flagging;
    private SpoolQueue queue;
    private ExcerptAppender appender;
    private Bytes<?> message;
    private SpscLongRing committed;
    private final LargeOrders largeOrders = new LargeOrders();

    private SyncVariant(final String name, final String description, final SyncPolicy policy, final boolean flagging) {
        this.name = name;
        this.description = description;
        this.policy = policy;
        this.flagging = flagging;
    }

    /** @return {@code sync-async}: {@code msync(MS_ASYNC)} after every message. */
    static SyncVariant async() {
        return new SyncVariant(ASYNC, "Spool, SyncPolicy.async(): append + msync(MS_ASYNC) each message, "
                + "start time to the reader through an in-memory ring", SyncPolicy.async(), false);
    }

    /** @return {@code sync-every}: {@code msync(MS_SYNC)} after every message. */
    static SyncVariant everyMessage() {
        return new SyncVariant(EVERY, "Spool, SyncPolicy.everyMessage(): append + msync(MS_SYNC) each message, "
                + "start time to the reader through an in-memory ring", SyncPolicy.everyMessage(), false);
    }

    /** @return {@code sync-content}: {@code msync(MS_SYNC)} after each flagged message. */
    static SyncVariant byContent() {
        return new SyncVariant(CONTENT, "Spool, SyncPolicy.when(large order): append, msync(MS_SYNC) after the "
                + "1 in " + LargeOrders.EVERY + " messages flagged (10/s at 50K msg/s); start time through an in-memory ring",
                SyncPolicy.when(LargeOrders.IS_LARGE), true);
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
        LargeOrders.checkRoom(name, length);
        queue = Payloads.spoolQueue(directory)
                .syncPolicy(policy)
                .build();
        appender = queue.createAppender();
        message = Payloads.directMessage(length);
        message.writeByte(LargeOrders.FLAG_OFFSET, (byte) 0);
        committed = new SpscLongRing(1 << 16);
    }

    @Override
    public void openReader() {
        // the reader polls the in-memory ring: nothing to open
    }

    @Override
    public void send(final long startTimeNs) {
        final Bytes<?> message = this.message;
        message.writeLong(0, startTimeNs);
        if (flagging) {
            largeOrders.markNext(message);
        }
        appender.append(message);
        committed.put(startTimeNs);
    }

    @Override
    public long receive() {
        // EMPTY is NOTHING
        return committed.poll();
    }

    @Override
    public void closeReader() {
        // nothing to release
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
        message.releaseLast();
    }
}
