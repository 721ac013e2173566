package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;

import java.nio.file.Path;

/**
 * E3b on Chronicle Queue open source, where it has an equivalent: the builder's {@code syncMode} decides whether
 * its appender's {@code sync()} (an msync of the pages written since its last sync) is {@code MS_SYNC} or
 * {@code MS_ASYNC}, and the sender calls it after every message ({@code chronicle-sync-async},
 * {@code chronicle-sync-every}) or after each flagged one ({@code chronicle-sync-content}, the same messages as
 * {@link SyncVariant#byContent()}). Then, as in {@link SyncVariant}, the start time goes to the reader through an
 * in-memory ring. Chronicle Queue open source has no group commit; {@code group-commit} has no peer here.
 */
final class ChronicleSyncVariant extends SyncHandoffVariant {
    /** Name of {@link #async()}. */
    static final String ASYNC = "chronicle-" + SyncVariant.ASYNC;
    /** Name of {@link #everyMessage()}. */
    static final String EVERY = "chronicle-" + SyncVariant.EVERY;
    /** Name of {@link #byContent()}. */
    static final String CONTENT = "chronicle-" + SyncVariant.CONTENT;

    private final SyncMode mode;
    private ChronicleQueue queue;
    private ExcerptAppender appender;

    private ChronicleSyncVariant(final String name, final String description, final SyncMode mode, final boolean flagging) {
        super(name, description, flagging);
        this.mode = mode;
    }

    /** @return {@code chronicle-sync-async}: {@code sync()} in ASYNC mode after every message. */
    static ChronicleSyncVariant async() {
        return new ChronicleSyncVariant(ASYNC, "Chronicle Queue, syncMode(ASYNC): writeBytes + "
                + "appender sync() (MS_ASYNC) each message, start time through an in-memory ring", SyncMode.ASYNC, false);
    }

    /** @return {@code chronicle-sync-every}: {@code sync()} in SYNC mode after every message. */
    static ChronicleSyncVariant everyMessage() {
        return new ChronicleSyncVariant(EVERY, "Chronicle Queue, syncMode(SYNC): writeBytes + "
                + "appender sync() (MS_SYNC) each message, start time through an in-memory ring", SyncMode.SYNC, false);
    }

    /** @return {@code chronicle-sync-content}: {@code sync()} in SYNC mode after each flagged message. */
    static ChronicleSyncVariant byContent() {
        return new ChronicleSyncVariant(CONTENT, "Chronicle Queue, syncMode(SYNC): writeBytes, "
                + "appender sync() after the 1 in " + LargeOrders.EVERY + " messages flagged; start time through "
                + "an in-memory ring", SyncMode.SYNC, true);
    }

    @Override
    void openQueue(final Path directory) {
        queue = Payloads.chronicleQueue(directory)
                .syncMode(mode)
                .build();
        appender = queue.createAppender();
    }

    @Override
    void write(final Bytes<?> message, final boolean syncRequested) {
        appender.writeBytes(message);
        if (syncRequested) {
            appender.sync();
        }
    }

    @Override
    void closeQueue() {
        appender.close();
        queue.close();
    }
}
