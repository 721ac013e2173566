package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.CycleCalendar;
import dev.spool.queue.internal.QueueConfig;
import dev.spool.queue.internal.QueueConfig.Layout;
import dev.spool.queue.internal.QueueConfig.Setting;
import dev.spool.queue.internal.QueueRole;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Opens a queue's directory, or creates it with new settings: refuses a directory that is not a queue, settings
 * that differ from the persisted ones, and metadata that would hide cycles from readers.
 */
final class StoreOpener {
    private StoreOpener() {
    }

    /** @return the opened store; its metadata is closed again if anything is refused. */
    static Store open(final QueueConfig config) {
        final Path directory = config.directory();
        final Path metadataPath = directory.resolve(MetadataDescriptor.FILE_NAME);
        final MetadataFile metadata;
        if (Files.exists(metadataPath)) {
            if (!config.mayOpen()) {
                throw new SpoolException("cannot create queue " + directory + ": a queue exists there already ("
                        + metadataPath + "); open it instead");
            }
            metadata = MetadataFile.open(metadataPath, config.readOnly());
        } else {
            if (config.readOnly()) {
                throw new SpoolException("no Spool queue at " + directory + ": " + MetadataDescriptor.FILE_NAME
                        + " is missing, and a read-only open creates nothing");
            }
            if (!config.mayCreate()) {
                throw new SpoolException("no Spool queue at " + directory + ": " + (Files.isDirectory(directory)
                        ? "the directory has no " + MetadataDescriptor.FILE_NAME
                        : Files.exists(directory) ? "it is a file, not a directory" : "the directory does not exist"));
            }
            if (Files.exists(directory) && !Files.isDirectory(directory)) {
                throw new SpoolException("not a Spool queue: " + directory + " is a file, not a directory");
            }
            final List<Path> strangers = contents(directory);
            if (!strangers.isEmpty()) {
                throw new SpoolException("not a Spool queue: " + directory + " has no " + MetadataDescriptor.FILE_NAME
                        + " but holds " + strangers.size() + " other files, e.g. " + strangers.get(0).getFileName());
            }
            FileModes.createDirectories(directory, config.directoryMode());
            metadata = MetadataFile.createIfAbsent(directory, newQueueSettings(config.layout()), config.fileMode(),
                    config.epochClock().time());
        }
        try {
            checkAgainst(config.layout(), metadata);
            if (!config.readOnly()) {
                // a repair cut short by a crash is finished before anything reads or writes the cycle files
                RepairJournal.recover(directory);
            }
            checkCycleFiles(directory, metadata);
            if (config.syncPolicy().needsMsync()) {
                Msync.checkAvailable(config.syncPolicy().toString());
            }
            return new Store(directory, metadata, config);
        } catch (RuntimeException e) {
            metadata.close();
            throw e;
        }
    }

    /** @return a new queue's metadata settings: the builder checked them and resolved their defaults. */
    private static MetadataFile.Settings newQueueSettings(final Layout layout) {
        final int features = (layout.checksums() ? MetadataDescriptor.FEATURE_CRC32C : 0)
                | (layout.indexTimes() ? MetadataDescriptor.FEATURE_INDEX_TIMES : 0)
                | (layout.publisherIds() ? MetadataDescriptor.FEATURE_PUBLISHER_IDS : 0)
                | (layout.calendar().zone() != null ? MetadataDescriptor.FEATURE_ZONED_ROLL : 0);
        return new MetadataFile.Settings(layout.calendar(), layout.epochMillis(), layout.indexSpacing(),
                layout.indexBlockEntries(), layout.maxMessageLength(), layout.chunkLength(),
                layout.replicaOf().orElse(null), layout.replicaOf().isPresent() ? MetadataDescriptor.ROLE_REPLICA
                : MetadataDescriptor.ROLE_PRIMARY, features);
    }

    /** Refuses a persisted setting given to the builder that differs from the one the queue was created with. */
    private static void checkAgainst(final Layout layout, final MetadataFile metadata) {
        if (layout.isGiven(Setting.ROLL_TIME) && !layout.calendar().equals(metadata.calendar())) {
            throw new SpoolException("queue " + metadata.path().getParent() + " was created with rolls "
                    + metadata.calendar() + "; it cannot be reopened with rollTime=" + layout.calendar().rollTime()
                    + " " + layout.calendar().zone());
        }
        mismatch(layout, Setting.ROLL_CYCLE, "rollCycle", layout.calendar().rollCycle(), metadata.rollCycle(), metadata);
        mismatch(layout, Setting.EPOCH_MILLIS, "epochMillis", layout.epochMillis(), metadata.epochMillis(), metadata);
        mismatch(layout, Setting.INDEX_SPACING, "indexSpacing", layout.indexSpacing(), metadata.indexSpacing(), metadata);
        mismatch(layout, Setting.INDEX_BLOCK_ENTRIES, "indexBlockEntries", layout.indexBlockEntries(),
                metadata.indexBlockEntries(), metadata);
        mismatch(layout, Setting.MAX_MESSAGE_LENGTH, "maxMessageLength", layout.maxMessageLength(),
                metadata.maxMessageLength(), metadata);
        mismatch(layout, Setting.CHUNK_LENGTH, "chunkLength", layout.chunkLength(), metadata.chunkLength(), metadata);
        mismatch(layout, Setting.CHECKSUMS, "checksums", layout.checksums(),
                (metadata.features() & MetadataDescriptor.FEATURE_CRC32C) != 0, metadata);
        mismatch(layout, Setting.PUBLISHER_IDS, "publisherIds", layout.publisherIds(),
                (metadata.features() & MetadataDescriptor.FEATURE_PUBLISHER_IDS) != 0, metadata);
        mismatch(layout, Setting.INDEX_TIMES, "indexTimes", layout.indexTimes(),
                CycleDescriptor.hasIndexTimes(metadata.features()), metadata);
        if (layout.replicaOf().isPresent()) {
            final UUID replicaOf = layout.replicaOf().get();
            if (!replicaOf.equals(metadata.queueId())) {
                throw new SpoolException("queue " + metadata.path().getParent() + " has queue id " + metadata.queueId()
                        + "; it cannot be opened as a replica of queue id " + replicaOf);
            }
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA) {
                throw new SpoolException("queue " + metadata.path().getParent() + " is a "
                        + QueueRole.of(metadata.role()).name().toLowerCase(Locale.ROOT)
                        + " queue of term " + metadata.term() + "; it cannot be opened as a replica");
            }
        }
    }

    private static void mismatch(final Layout layout, final Setting given, final String setting, final Object requested,
                                 final Object persisted, final MetadataFile metadata) {
        if (layout.isGiven(given) && !requested.equals(persisted)) {
            throw new SpoolException("queue " + metadata.path().getParent() + " was created with " + setting + "=" + persisted
                    + "; it cannot be reopened with " + setting + "=" + requested);
        }
    }

    /**
     * The metadata's roll cycle, epoch and highest cycle decide which files readers find: damage there would hide
     * cycles from them without a word. Every cycle file must be named for the roll cycle and epoch, and none past
     * the highest cycle may hold excerpts (a writer records a cycle as the highest before it appends there; a
     * pretoucher's file ahead of the roll holds none).
     */
    private static void checkCycleFiles(final Path directory, final MetadataFile metadata) {
        final RollCycle rollCycle = metadata.rollCycle();
        final CycleCalendar calendar = metadata.calendar();
        final long highest = metadata.highestCycle();
        if (highest < -1 || highest > rollCycle.toCycle(Long.MAX_VALUE)) {
            throw new CorruptQueueException(metadata.path(), MetadataDescriptor.HIGHEST_CYCLE_OFFSET, "highest cycle="
                    + highest + " is outside what roll cycle " + rollCycle + " can index");
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + RollCycle.FILE_SUFFIX)) {
            for (final Path file : files) {
                final long cycle = calendar.parseCycle(file.getFileName().toString());
                if (cycle < 0) {
                    throw new CorruptQueueException(metadata.path(), MetadataDescriptor.ROLL_CYCLE_OFFSET, "cycle file "
                            + file + " is not named for rolls " + calendar
                            + ": the roll cycle or epoch recorded here is damaged, or the file is not this queue's");
                }
                final long hint;
                // a writer of another process may have just started that cycle: it records it before appending there
                if (cycle > highest && (hint = CycleFile.readHint(file)) != CycleDescriptor.DATA_OFFSET
                        && cycle > metadata.highestCycle()) {
                    throw new CorruptQueueException(metadata.path(), MetadataDescriptor.HIGHEST_CYCLE_OFFSET,
                            "highest cycle=" + highest + " but " + file + " of cycle " + cycle + " holds excerpts (write"
                                    + " position=" + hint + "): the highest cycle recorded here is damaged");
                }
            }
        } catch (IOException e) {
            throw new SpoolException("cannot list " + directory + ": " + e.getMessage(), e);
        }
    }

    private static List<Path> contents(final Path directory) {
        final List<Path> files = new ArrayList<>();
        if (Files.isDirectory(directory)) {
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
                for (final Path file : stream) {
                    if (!file.getFileName().toString().endsWith(".tmp")) {
                        files.add(file);
                    }
                }
            } catch (IOException e) {
                throw new SpoolException("cannot list " + directory + ": " + e.getMessage(), e);
            }
        }
        return files;
    }
}
