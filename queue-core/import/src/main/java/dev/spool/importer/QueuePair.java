package dev.spool.importer;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.QueueInternals;

import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.agrona.concurrent.EpochClock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The two queues of a run, opened in order and closed in reverse: the Chronicle Queue read-only, the Spool queue
 * opened, or created with the roll cycle mapped from Chronicle's, and the {@link ImportSession} between them.
 */
final class QueuePair implements AutoCloseable {
    /** Chronicle Queue's metadata file: a directory without it holds no Chronicle Queue. */
    static final String CHRONICLE_METADATA = "metadata.cq4t";

    private final SingleChronicleQueue chronicle;
    private final SpoolQueue spool;
    private final ImportSession session;

    QueuePair(final Path chronicleDirectory, final Path spoolDirectory, final RollCycle rollCycle,
              final boolean indexTimes, final Consumer<SpoolQueueBuilder> settings, final EpochClock wallClock,
              final ImportCounters counters, final Class<?> events) {
        if (!Files.isDirectory(chronicleDirectory) || !Files.exists(chronicleDirectory.resolve(CHRONICLE_METADATA))) {
            throw new SpoolException("no Chronicle Queue at " + chronicleDirectory + ": "
                    + (Files.isDirectory(chronicleDirectory) ? "the directory has no " + CHRONICLE_METADATA
                    : Files.exists(chronicleDirectory) ? "it is a file, not a directory" : "the directory does not exist"));
        }
        this.chronicle = SingleChronicleQueueBuilder.binary(chronicleDirectory).readOnly(true).build();
        SpoolQueue opened = null;
        try {
            final StampClock stamps = new StampClock(wallClock.time());
            final long chronicleLength = chronicle.rollCycle().lengthInMillis();
            final SpoolQueueBuilder builder = SpoolQueue.builder(spoolDirectory);
            if (rollCycle != null) {
                builder.rollCycle(rollCycle);
            }
            if (SpoolQueue.exists(spoolDirectory)) {
                settings.accept(builder);
                opened = builder.epochClock(stamps).open();
            } else {
                if (rollCycle == null) {
                    builder.rollCycle(CycleMapping.nearest(chronicleLength));
                }
                builder.epochMillis(chronicle.epoch()).indexTimes(indexTimes);
                settings.accept(builder);
                opened = builder.epochClock(stamps).create();
            }
            this.spool = opened;
            final CycleMapping mapping = new CycleMapping(chronicle.epoch(), chronicleLength,
                    opened.unwrap(QueueInternals.class).calendar());
            this.session = new ImportSession(chronicle, opened, mapping, stamps, wallClock, counters, events);
        } catch (RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            chronicle.close();
            throw e;
        }
    }

    ImportSession session() {
        return session;
    }

    SpoolQueue spool() {
        return spool;
    }

    @Override
    public void close() {
        try {
            session.close();
        } finally {
            try {
                spool.close();
            } finally {
                chronicle.close();
            }
        }
    }
}
