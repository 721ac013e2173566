package dev.spool.queue.tools;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.format.TermHistoryDescriptor;
import dev.spool.queue.format.TypedExcerptDescriptor;
import dev.spool.queue.internal.CycleCalendar;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

import static dev.spool.queue.format.MetadataDescriptor.*;

/**
 * What the tools see of a queue directory: a copy of its metadata file (layout: {@link MetadataDescriptor}) and
 * the list of its cycle files, read without opening the queue, so that a damaged queue can still be inspected.
 * Nothing here validates: fields are returned as stored, and {@link QueueVerifier} judges them.
 */
final class QueueFiles {
    /** A cycle file and the cycle its name says. */
    record CycleFileName(long cycle, Path path) {
    }

    /** An entry of the named-tailer table in use. */
    record NamedTailer(int entry, long position, int nameLength, String name, long lastReadIndex) {
    }

    private final Path directory;
    private final Path metadataPath;
    private final long metadataLength;
    private final ByteBuffer metadata;

    private QueueFiles(final Path directory, final Path metadataPath, final long metadataLength, final ByteBuffer metadata) {
        this.directory = directory;
        this.metadataPath = metadataPath;
        this.metadataLength = metadataLength;
        this.metadata = metadata;
    }

    /** @return true if {@code directory} is a directory that holds a metadata file: a queue, damaged or not. */
    static boolean isQueue(final Path directory) {
        return Files.isDirectory(directory) && Files.isRegularFile(directory.resolve(FILE_NAME));
    }

    /**
     * Reads the metadata file of the queue in {@code directory}; a short file reads as zeros past its end.
     *
     * @param directory a directory for which {@link #isQueue(Path)} is true.
     * @return the queue's files.
     */
    static QueueFiles read(final Path directory) {
        final Path path = directory.resolve(FILE_NAME);
        try (ReadOnlyFile file = ReadOnlyFile.open(path)) {
            final int length = (int) Math.min(file.length(), FILE_LENGTH);
            final ByteBuffer copy = ByteBuffer.allocate(FILE_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            file.read(0, copy.array(), 0, length);
            return new QueueFiles(directory, path, file.length(), copy);
        }
    }

    Path directory() {
        return directory;
    }

    Path metadataPath() {
        return metadataPath;
    }

    /** @return the metadata file's actual length. */
    long metadataLength() {
        return metadataLength;
    }

    int readInt(final int offset) {
        return metadata.getInt(offset);
    }

    long readLong(final int offset) {
        return metadata.getLong(offset);
    }

    /** @return the roll cycle the metadata names, or null if its id is unknown. */
    RollCycle rollCycle() {
        return RollCycle.ofId(readInt(ROLL_CYCLE_OFFSET));
    }

    long epochMillis() {
        return readLong(EPOCH_OFFSET);
    }

    /**
     * @param rollCycle the queue's roll cycle.
     * @return when its cycles start: the zoned roll the metadata records, or cycles of {@code rollCycle} from the
     * epoch if it records none, or a damaged one (whose cycle files then fail to parse, and are reported).
     */
    CycleCalendar calendar(final RollCycle rollCycle) {
        final int features = readInt(VERSION_OFFSET) == VERSION ? 0 : readInt(FEATURES_OFFSET);
        final int minute = readInt(ROLL_TIME_OFFSET);
        final int length = readInt(ROLL_ZONE_LENGTH_OFFSET);
        if ((features & FEATURE_ZONED_ROLL) != 0 && minute >= 0 && minute < 24 * 60 && length > 0
                && length <= ROLL_ZONE_MAX_LENGTH) {
            try {
                return CycleCalendar.zoned(LocalTime.ofSecondOfDay(minute * 60L), ZoneId.of(
                        new String(metadata.array(), ROLL_ZONE_OFFSET, length, StandardCharsets.UTF_8)));
            } catch (DateTimeException e) {
                return CycleCalendar.of(rollCycle, epochMillis());
            }
        }
        return CycleCalendar.of(rollCycle, epochMillis());
    }

    int indexSpacing() {
        return readInt(INDEX_SPACING_OFFSET);
    }

    int indexBlockEntries() {
        return readInt(INDEX_BLOCK_ENTRIES_OFFSET);
    }

    /** @return the features word: 0 unless the metadata is of version 2. */
    int features() {
        return readInt(VERSION_OFFSET) == VERSION_WITH_FEATURES ? readInt(FEATURES_OFFSET) : 0;
    }

    /** @return true if the queue was created with CRC32C checksums: a version 2 queue with that feature bit. */
    boolean checksums() {
        return (features() & FEATURE_CRC32C) != 0;
    }

    /**
     * @return the bytes of a data excerpt's body before its payload: the CRC32C field, the publisher id and sequence,
     * as the features have them.
     */
    int bodyPrefixLength() {
        return ExcerptDescriptor.bodyPrefixLength(features());
    }

    /**
     * @return the longest body a data header may give, for a walk: the maximum message length and the body's
     * prefix; the header's own limit if the metadata's value is unusable.
     */
    int maxDataLength() {
        return maxMessageLength() > 0 ? maxMessageLength() + bodyPrefixLength() : ExcerptDescriptor.MAX_LENGTH;
    }

    int maxMessageLength() {
        return readInt(MAX_MESSAGE_LENGTH_OFFSET);
    }

    long chunkLength() {
        return readLong(CHUNK_LENGTH_OFFSET);
    }

    UUID queueId() {
        return new UUID(readLong(QUEUE_ID_OFFSET), readLong(QUEUE_ID_OFFSET + Long.BYTES));
    }

    long highestCycle() {
        return readLong(HIGHEST_CYCLE_OFFSET);
    }

    /** @return the highest cycle as the metadata file holds it now: a live writer may have raised it since the copy. */
    long currentHighestCycle() {
        try (ReadOnlyFile file = ReadOnlyFile.open(metadataPath)) {
            return file.contains(HIGHEST_CYCLE_OFFSET, Long.BYTES) ? file.readLong(HIGHEST_CYCLE_OFFSET) : highestCycle();
        }
    }

    long lowestCycle() {
        return readLong(LOWEST_CYCLE_OFFSET);
    }

    /** @return true if {@code value} is a positive power of two, as the layout's sizes must be. */
    static boolean isPowerOfTwo(final long value) {
        return value > 0 && (value & (value - 1)) == 0;
    }

    long writeLock() {
        return readLong(WRITE_LOCK_OFFSET);
    }

    long processSlotPid(final int slot) {
        return readLong((int) processSlotPosition(slot) + PROCESS_SLOT_PID_OFFSET);
    }

    /**
     * @return the named-tailer entries whose name length is not 0, in entry order; a length outside 1 to
     * {@value MetadataDescriptor#NAMED_TAILER_MAX_NAME_LENGTH} is kept (the verifier reports it) with no name.
     */
    List<NamedTailer> namedTailers() {
        final List<NamedTailer> tailers = new ArrayList<>();
        for (int entry = 0; entry < NAMED_TAILER_COUNT; entry++) {
            final int position = (int) namedTailerPosition(entry);
            final int nameLength = readInt(position + NAMED_TAILER_NAME_LENGTH_OFFSET);
            if (nameLength == 0) {
                continue;
            }
            String name = null;
            if (nameLength > 0 && nameLength <= NAMED_TAILER_MAX_NAME_LENGTH) {
                name = new String(metadata.array(), position + NAMED_TAILER_NAME_OFFSET, nameLength, StandardCharsets.UTF_8);
            }
            tailers.add(new NamedTailer(entry, position, nameLength, name, readLong(position + NAMED_TAILER_INDEX_OFFSET)));
        }
        return tailers;
    }

    /**
     * @param rollCycle the queue's roll cycle.
     * @param ignored   receives every other file of the directory except the metadata, lock, term history and schema
     *                  files.
     * @return the files named as cycle files of {@code rollCycle}, by ascending cycle.
     */
    List<CycleFileName> cycleFiles(final RollCycle rollCycle, final List<Path> ignored) {
        final List<CycleFileName> cycles = new ArrayList<>();
        final CycleCalendar calendar = calendar(rollCycle);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (final Path file : files) {
                final String name = file.getFileName().toString();
                final long cycle = calendar.parseCycle(name);
                if (cycle >= 0 && Files.isRegularFile(file)) {
                    cycles.add(new CycleFileName(cycle, file));
                } else if (!name.equals(FILE_NAME) && !name.equals(LOCK_FILE_NAME)
                        && !name.equals(TermHistoryDescriptor.FILE_NAME)
                        && !name.endsWith(TypedExcerptDescriptor.SCHEMA_FILE_SUFFIX)) {
                    ignored.add(file);
                }
            }
        } catch (IOException e) {
            throw new SpoolException("cannot list " + directory + ": " + e, e);
        }
        cycles.sort(Comparator.comparingLong(CycleFileName::cycle));
        ignored.sort(Comparator.naturalOrder());
        return cycles;
    }
}
