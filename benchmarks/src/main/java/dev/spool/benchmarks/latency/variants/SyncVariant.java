package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
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
final class SyncVariant extends SyncHandoffVariant {
    /** Name of {@link #async()}. */
    static final String ASYNC = "sync-async";
    /** Name of {@link #everyMessage()}. */
    static final String EVERY = "sync-every";
    /** Name of {@link #byContent()}. */
    static final String CONTENT = "sync-content";

    private final SyncPolicy policy;
    private SpoolQueue queue;
    private ExcerptAppender appender;

    private SyncVariant(final String name, final String description, final SyncPolicy policy, final boolean flagging) {
        super(name, description, flagging);
        this.policy = policy;
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
    void openQueue(final Path directory) {
        queue = Payloads.spoolQueue(directory)
                .syncPolicy(policy)
                .openOrCreate();
        appender = queue.createAppender();
    }

    /** The queue's sync policy decides whether this append syncs: it reads the flag byte itself. */
    @Override
    void write(final Bytes<?> message, final boolean syncRequested) {
        appender.append(message);
    }

    @Override
    void closeQueue() {
        appender.close();
        queue.close();
    }
}
