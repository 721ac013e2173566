package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.CycleCalendar;
import dev.spool.queue.internal.QueueRole;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Opens a queue's directory, or creates it with new settings: refuses a directory that is not a queue, settings
 * that differ from the persisted ones, and metadata that would hide cycles from readers.
 */
final class StoreOpener {
    private StoreOpener() {
    }

    /** @return the opened store; its metadata is closed again if anything is refused. */
    static Store open(final QueueEngine.Config config) {
        checkRollTime(config);
        final Path directory = config.directory().toAbsolutePath().normalize();
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
            final MetadataFile.Settings settings = newQueueSettings(config);
            FileModes.createDirectories(directory, config.directoryMode());
            metadata = MetadataFile.createIfAbsent(directory, settings, config.fileMode());
        }
        try {
            checkAgainst(config, metadata);
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

    private static MetadataFile.Settings newQueueSettings(final QueueEngine.Config config) {
        final long chunk = config.chunkLength() == null ? SpoolQueueBuilder.DEFAULT_CHUNK_LENGTH : config.chunkLength();
        if (!MetadataFile.isPowerOfTwo(chunk) || chunk < SpoolQueueBuilder.MIN_CHUNK_LENGTH) {
            throw new SpoolException("chunkLength=" + chunk + " must be a power of two of at least "
                    + SpoolQueueBuilder.MIN_CHUNK_LENGTH);
        }
        final int spacing = config.indexSpacing() == null ? SpoolQueueBuilder.DEFAULT_INDEX_SPACING : config.indexSpacing();
        if (!MetadataFile.isPowerOfTwo(spacing) || spacing > MetadataDescriptor.MAX_INDEX_SPACING) {
            throw new SpoolException("indexSpacing=" + spacing + " must be a power of two from 1 to "
                    + MetadataDescriptor.MAX_INDEX_SPACING);
        }
        final int entries = config.indexBlockEntries() == null ? SpoolQueueBuilder.DEFAULT_INDEX_BLOCK_ENTRIES
                : config.indexBlockEntries();
        if (!MetadataFile.isPowerOfTwo(entries) || entries < MetadataDescriptor.MIN_INDEX_BLOCK_ENTRIES
                || entries > MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES) {
            throw new SpoolException("indexBlockEntries=" + entries + " must be a power of two from "
                    + MetadataDescriptor.MIN_INDEX_BLOCK_ENTRIES + " to " + MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES);
        }
        final boolean checksums = Boolean.TRUE.equals(config.checksums());
        final int features = (checksums ? MetadataDescriptor.FEATURE_CRC32C : 0)
                | (Boolean.TRUE.equals(config.indexTimes()) ? MetadataDescriptor.FEATURE_INDEX_TIMES : 0)
                | (config.rollZone() != null ? MetadataDescriptor.FEATURE_ZONED_ROLL : 0);
        // a checksummed excerpt's body holds its CRC32C too
        final long maxLimit = CycleDescriptor.maxPayloadLength(chunk) - (checksums ? ExcerptDescriptor.CHECKSUM_LENGTH : 0);
        if (CycleDescriptor.blockPayloadLength(entries, features) > maxLimit) {
            throw new SpoolException("indexBlockEntries=" + entries + " makes index blocks longer than a chunk of "
                    + chunk + " can hold");
        }
        final int maxLength = config.maxMessageLength() == null ? (int) maxLimit : config.maxMessageLength();
        if (maxLength < 1 || maxLength > maxLimit) {
            throw new SpoolException("maxMessageLength=" + maxLength + " must be from 1 to " + maxLimit
                    + " with chunkLength=" + chunk);
        }
        final CycleCalendar calendar = config.rollZone() != null ? CycleCalendar.zoned(config.rollTime(), config.rollZone())
                : CycleCalendar.of(config.rollCycle() == null ? RollCycle.DAILY : config.rollCycle(),
                config.epochMillis() == null ? 0 : config.epochMillis());
        return new MetadataFile.Settings(calendar, config.epochMillis() == null ? 0 : config.epochMillis(), spacing, entries, maxLength, chunk,
                config.replicaOf(), config.replicaOf() == null ? MetadataDescriptor.ROLE_PRIMARY : MetadataDescriptor.ROLE_REPLICA,
                features);
    }

    /** A roll at a time of day (the builder clears a roll cycle and an epoch, which it replaces): whole minutes, a zone id that fits. */
    private static void checkRollTime(final QueueEngine.Config config) {
        if (config.rollZone() == null) {
            return;
        }
        final String rollTime = "rollTime=" + config.rollTime() + " " + config.rollZone();
        if (config.rollTime().getSecond() != 0 || config.rollTime().getNano() != 0) {
            throw new SpoolException(rollTime + " must be a whole minute");
        }
        if (config.rollZone().getId().getBytes(StandardCharsets.UTF_8).length > MetadataDescriptor.ROLL_ZONE_MAX_LENGTH) {
            throw new SpoolException(rollTime + ": the zone id is longer than "
                    + MetadataDescriptor.ROLL_ZONE_MAX_LENGTH + " bytes");
        }
    }

    private static void checkAgainst(final QueueEngine.Config config, final MetadataFile metadata) {
        if (config.rollZone() != null) {
            final CycleCalendar persisted = metadata.calendar();
            final CycleCalendar requested = CycleCalendar.zoned(config.rollTime(), config.rollZone());
            if (!requested.equals(persisted)) {
                throw new SpoolException("queue " + metadata.path().getParent() + " was created with rolls " + persisted
                        + "; it cannot be reopened with rollTime=" + config.rollTime() + " " + config.rollZone());
            }
        }
        mismatch("rollCycle", config.rollCycle(), metadata.rollCycle(), metadata);
        mismatch("epochMillis", config.epochMillis(), metadata.epochMillis(), metadata);
        mismatch("indexSpacing", config.indexSpacing(), metadata.indexSpacing(), metadata);
        mismatch("indexBlockEntries", config.indexBlockEntries(), metadata.indexBlockEntries(), metadata);
        mismatch("maxMessageLength", config.maxMessageLength(), metadata.maxMessageLength(), metadata);
        mismatch("chunkLength", config.chunkLength(), metadata.chunkLength(), metadata);
        mismatch("checksums", config.checksums(), (metadata.features() & MetadataDescriptor.FEATURE_CRC32C) != 0, metadata);
        mismatch("indexTimes", config.indexTimes(), CycleDescriptor.hasIndexTimes(metadata.features()), metadata);
        if (config.replicaOf() != null) {
            if (!config.replicaOf().equals(metadata.queueId())) {
                throw new SpoolException("queue " + metadata.path().getParent() + " has queue id " + metadata.queueId()
                        + "; it cannot be opened as a replica of queue id " + config.replicaOf());
            }
            if (metadata.role() != MetadataDescriptor.ROLE_REPLICA) {
                throw new SpoolException("queue " + metadata.path().getParent() + " is a "
                        + QueueRole.of(metadata.role()).name().toLowerCase(Locale.ROOT)
                        + " queue of term " + metadata.term() + "; it cannot be opened as a replica");
            }
        }
    }

    private static void mismatch(final String setting, final Object requested, final Object persisted, final MetadataFile metadata) {
        if (requested != null && !requested.equals(persisted)) {
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
