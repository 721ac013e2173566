package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.SchemaFiles;
import dev.spool.queue.internal.SingleMappings;
import dev.spool.queue.internal.CycleCalendar;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.time.DateTimeException;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static dev.spool.queue.format.MetadataDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The mapped metadata file of one queue (layout: {@link MetadataDescriptor}). Created whole in a temporary file
 * and linked into place, so another process either finds no file or a complete one.
 * <p>
 * Every method that writes the file first calls {@link #checkWritable(String)}: mapped read-only, the file refuses
 * the write with a {@link SpoolException} instead of letting the store kill the JVM, whichever writer asks.
 */
final class MetadataFile implements ReferenceOwner, SchemaFiles.Generation {
    private static final byte[] REPLICA_PREFIX_UTF8 = REPLICA_NAME_PREFIX.getBytes(StandardCharsets.UTF_8);
    private final Path path;
    private final MappedFile mappedFile;
    private final MappedBytesStore store;
    private final long address;
    private final boolean readOnly;

    private MetadataFile(final Path path, final MappedFile mappedFile, final MappedBytesStore store,
                         final boolean readOnly) {
        this.path = path;
        this.mappedFile = mappedFile;
        this.store = store;
        this.address = store.addressForWrite(0);
        this.readOnly = readOnly;
    }

    /**
     * Settings a new queue is created with; a null {@code queueId} gives it a new random identity; {@code features}
     * other than 0 make it a {@link MetadataDescriptor#VERSION_WITH_FEATURES} queue. The calendar's roll time and
     * zone, if it has them, are persisted with {@link MetadataDescriptor#FEATURE_ZONED_ROLL}.
     */
    record Settings(CycleCalendar calendar, long epochMillis, int indexSpacing, int indexBlockEntries,
                    int maxMessageLength, long chunkLength, UUID queueId, int role, int features) {
    }

    /**
     * Creates the metadata file from {@code settings} unless it exists, then maps and validates it.
     */
    static MetadataFile createIfAbsent(final Path directory, final Settings settings,
                                       final Set<PosixFilePermission> fileMode, final long createdMillis) {
        final Path path = directory.resolve(FILE_NAME);
        if (!Files.exists(path)) {
            final Path temp = directory.resolve(FILE_NAME + "." + UUID.randomUUID() + ".tmp");
            try {
                try (FileChannel channel = FileModes.createNew(temp, fileMode, StandardOpenOption.WRITE)) {
                    final ByteBuffer header = initialContent(settings, createdMillis);
                    while (header.hasRemaining()) {
                        channel.write(header);
                    }
                    channel.force(true);
                }
                try {
                    Files.createLink(path, temp);
                } catch (FileAlreadyExistsException e) {
                    // another process created it first: use theirs
                }
            } catch (IOException e) {
                throw new SpoolException("cannot create " + path + ": " + e.getMessage(), e);
            } finally {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException e) {
                    throw new SpoolException("cannot delete " + temp + ": " + e.getMessage(), e);
                }
            }
        }
        return open(path, false);
    }

    /** Maps and validates the metadata file; read-only, it never writes it. */
    static MetadataFile open(final Path path, final boolean readOnly) {
        final long length;
        try {
            length = Files.size(path);
        } catch (IOException e) {
            throw new SpoolException("cannot read " + path + ": " + e.getMessage(), e);
        }
        if (length < FILE_LENGTH) {
            throw new CorruptQueueException(path, length, "metadata file truncated: length=" + length + ", expected " + FILE_LENGTH);
        }
        final MappedFile mappedFile;
        try {
            mappedFile = MappedFile.ofSingle(path.toFile(), FILE_LENGTH, readOnly);
        } catch (IOException e) {
            throw new SpoolException("cannot map " + path + ": " + e.getMessage(), e);
        }
        MetadataFile metadata = null;
        try {
            final ReferenceOwner temporary = ReferenceOwner.temporary("metadata");
            final MappedBytesStore store = mappedFile.acquireByteStore(temporary, 0);
            metadata = new MetadataFile(path, mappedFile, store, readOnly);
            store.reserveTransfer(temporary, metadata);
            metadata.validate();
            return metadata;
        } catch (IOException e) {
            mappedFile.releaseLast();
            throw new SpoolException("cannot map " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (metadata != null) {
                metadata.close();
            } else {
                mappedFile.releaseLast();
            }
            throw e;
        }
    }

    private static ByteBuffer initialContent(final Settings settings, final long createdMillis) {
        final ByteBuffer buffer = ByteBuffer.allocate(FILE_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        final UUID id = settings.queueId() != null ? settings.queueId() : UUID.randomUUID();
        buffer.putInt(MAGIC_OFFSET, MAGIC)
                .putInt(VERSION_OFFSET, settings.features() == 0 ? VERSION : VERSION_WITH_FEATURES)
                .putInt(FEATURES_OFFSET, settings.features())
                .putInt(ROLL_CYCLE_OFFSET, settings.calendar().rollCycle().id())
                .putInt(INDEX_SPACING_OFFSET, settings.indexSpacing())
                .putLong(EPOCH_OFFSET, settings.epochMillis())
                .putLong(QUEUE_ID_OFFSET, id.getMostSignificantBits())
                .putLong(QUEUE_ID_OFFSET + Long.BYTES, id.getLeastSignificantBits())
                .putLong(CREATED_OFFSET, createdMillis)
                .putInt(INDEX_BLOCK_ENTRIES_OFFSET, settings.indexBlockEntries())
                .putInt(MAX_MESSAGE_LENGTH_OFFSET, settings.maxMessageLength())
                .putLong(CHUNK_LENGTH_OFFSET, settings.chunkLength())
                .putLong(HIGHEST_CYCLE_OFFSET, -1)
                .putLong(LOWEST_CYCLE_OFFSET, -1)
                .putLong(LAST_SYNCED_INDEX_OFFSET, -1)
                .putLong(LAST_ACKED_INDEX_OFFSET, -1)
                .putInt(ROLE_OFFSET, settings.role());
        for (int entry = 0; entry < NAMED_TAILER_COUNT; entry++) {
            buffer.putLong((int) namedTailerPosition(entry) + NAMED_TAILER_INDEX_OFFSET, -1);
        }
        final CycleCalendar calendar = settings.calendar();
        if (calendar.zone() != null) {
            final byte[] zone = calendar.zone().getId().getBytes(StandardCharsets.UTF_8);
            buffer.putInt(ROLL_TIME_OFFSET, calendar.rollTime().toSecondOfDay() / 60)
                    .putInt(ROLL_ZONE_LENGTH_OFFSET, zone.length)
                    .put(ROLL_ZONE_OFFSET, zone);
        }
        return buffer;
    }

    private void validate() {
        expect(MAGIC_OFFSET, readInt(MAGIC_OFFSET) == MAGIC, "not a Spool metadata file: magic=0x%08x", readInt(MAGIC_OFFSET));
        final int version = readInt(VERSION_OFFSET);
        expect(VERSION_OFFSET, version == VERSION || version == VERSION_WITH_FEATURES,
                "unsupported metadata version=%d, this build reads %d and %d", version, VERSION, VERSION_WITH_FEATURES);
        final int features = version == VERSION ? 0 : readInt(FEATURES_OFFSET);
        expect(FEATURES_OFFSET, (features & ~KNOWN_FEATURES) == 0,
                "features=0x%x include 0x%x, which this build does not know: the queue was created by a newer Spool",
                features, features & ~KNOWN_FEATURES);
        expect(ROLL_CYCLE_OFFSET, RollCycle.ofId(readInt(ROLL_CYCLE_OFFSET)) != null, "unknown roll cycle id=%d",
                readInt(ROLL_CYCLE_OFFSET));
        if ((features & FEATURE_ZONED_ROLL) != 0) {
            calendar();
        }
        expect(INDEX_SPACING_OFFSET, isPowerOfTwo(readInt(INDEX_SPACING_OFFSET)), "index spacing=%d is not a power of two",
                readInt(INDEX_SPACING_OFFSET));
        expect(INDEX_BLOCK_ENTRIES_OFFSET, isPowerOfTwo(readInt(INDEX_BLOCK_ENTRIES_OFFSET)),
                "index block entries=%d is not a power of two", readInt(INDEX_BLOCK_ENTRIES_OFFSET));
        expect(MAX_MESSAGE_LENGTH_OFFSET, readInt(MAX_MESSAGE_LENGTH_OFFSET) > 0, "max message length=%d",
                readInt(MAX_MESSAGE_LENGTH_OFFSET));
        expect(CHUNK_LENGTH_OFFSET, isPowerOfTwo(readLong(CHUNK_LENGTH_OFFSET)), "chunk length=%d is not a power of two",
                readLong(CHUNK_LENGTH_OFFSET));
    }

    private void expect(final long position, final boolean ok, final String format, final Object... values) {
        if (!ok) {
            throw new CorruptQueueException(path, position, String.format(format, values));
        }
    }

    static boolean isPowerOfTwo(final long value) {
        return value > 0 && (value & (value - 1)) == 0;
    }

    Path path() {
        return path;
    }

    /**
     * @param what what would write, for the message.
     * @throws SpoolException naming the queue if it was opened read-only: the file is mapped read-only, and a write
     *                        to it would kill the JVM.
     */
    @Override
    public void checkWritable(final String what) {
        if (readOnly) {
            throw new SpoolException("queue " + path.getParent() + " is open read-only: " + what
                    + " would write to it; open it without readOnly() to write");
        }
    }

    long address(final long offset) {
        return address + offset;
    }

    int readInt(final long offset) {
        return MEMORY.readInt(address + offset);
    }

    long readLong(final long offset) {
        return MEMORY.readLong(address + offset);
    }

    long readVolatileLong(final long offset) {
        return MEMORY.readVolatileLong(address + offset);
    }

    void writeOrderedLong(final long offset, final long value) {
        checkWritable("writing the metadata");
        MEMORY.writeOrderedLong(address + offset, value);
    }

    RollCycle rollCycle() {
        return RollCycle.ofId(readInt(ROLL_CYCLE_OFFSET));
    }

    long epochMillis() {
        return readLong(EPOCH_OFFSET);
    }

    /**
     * @return when cycles start and how their files are named: the zoned roll persisted with
     * {@link MetadataDescriptor#FEATURE_ZONED_ROLL}, else the roll cycle from the epoch.
     * @throws CorruptQueueException naming the field if the zoned roll's fields are damaged.
     */
    CycleCalendar calendar() {
        final RollCycle rollCycle = rollCycle();
        if ((features() & FEATURE_ZONED_ROLL) == 0) {
            return CycleCalendar.of(rollCycle, epochMillis());
        }
        expect(ROLL_CYCLE_OFFSET, rollCycle == RollCycle.DAILY, "roll cycle %s with a zoned roll, which needs DAILY",
                rollCycle);
        final int minute = readInt(ROLL_TIME_OFFSET);
        expect(ROLL_TIME_OFFSET, minute >= 0 && minute < 24 * 60, "roll time=%d minutes is not a time of day", minute);
        final int length = readInt(ROLL_ZONE_LENGTH_OFFSET);
        expect(ROLL_ZONE_LENGTH_OFFSET, length > 0 && length <= ROLL_ZONE_MAX_LENGTH, "roll zone id length=%d, expected"
                + " 1 to %d", length, ROLL_ZONE_MAX_LENGTH);
        final byte[] zone = new byte[length];
        for (int i = 0; i < length; i++) {
            zone[i] = MEMORY.readByte(address + ROLL_ZONE_OFFSET + i);
        }
        final String zoneId = new String(zone, StandardCharsets.UTF_8);
        try {
            return CycleCalendar.zoned(LocalTime.ofSecondOfDay(minute * 60L), ZoneId.of(zoneId));
        } catch (DateTimeException e) {
            throw new CorruptQueueException(path, ROLL_ZONE_OFFSET, "roll zone id \"" + zoneId + "\" is not a time zone: "
                    + e.getMessage());
        }
    }

    int indexSpacing() {
        return readInt(INDEX_SPACING_OFFSET);
    }

    /** @return the feature bits fixed at creation; 0 in a version 1 queue. */
    int features() {
        return readInt(VERSION_OFFSET) == VERSION ? 0 : readInt(FEATURES_OFFSET);
    }

    int indexBlockEntries() {
        return readInt(INDEX_BLOCK_ENTRIES_OFFSET);
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
        return readVolatileLong(HIGHEST_CYCLE_OFFSET);
    }

    long lowestCycle() {
        return readVolatileLong(LOWEST_CYCLE_OFFSET);
    }

    /**
     * Caller holds the write lock.
     *
     * @return true if {@code cycle} is the new highest cycle: a writer started it.
     */
    boolean cycleCreated(final long cycle) {
        checkWritable("starting a cycle");
        final boolean started = cycle > highestCycle();
        if (started) {
            // release: the new file and the old cycle's end marker are visible before the new highest cycle
            writeOrderedLong(HIGHEST_CYCLE_OFFSET, cycle);
        }
        final long lowest = lowestCycle();
        if (lowest < 0 || cycle < lowest) {
            writeOrderedLong(LOWEST_CYCLE_OFFSET, cycle);
        }
        return started;
    }

    /** Retention deleted every cycle before {@code cycle}. Caller holds the write lock. */
    void raiseLowestCycle(final long cycle) {
        checkWritable("retention");
        if (cycle > lowestCycle()) {
            writeOrderedLong(LOWEST_CYCLE_OFFSET, cycle);
        }
    }

    /**
     * @return the smallest last-read index of the named tailers, -1 if one of them has read nothing yet, or
     * {@link Long#MAX_VALUE} if there are none; the replicas' entries are not named tailers and do not count.
     */
    long oldestNamedTailerIndex() {
        long oldest = Long.MAX_VALUE;
        for (int entry = 0; entry < NAMED_TAILER_COUNT; entry++) {
            final long position = namedTailerPosition(entry);
            // acquire: an entry counts as used only once its name and index are complete
            final int length = MEMORY.readVolatileInt(address(position + NAMED_TAILER_NAME_LENGTH_OFFSET));
            if (length != 0 && !isReplicaEntry(position, length)) {
                oldest = Math.min(oldest, Math.max(-1, readVolatileLong(position + NAMED_TAILER_INDEX_OFFSET)));
            }
        }
        return oldest;
    }

    long lastSyncedIndex() {
        return readVolatileLong(LAST_SYNCED_INDEX_OFFSET);
    }

    /** Raises the last synced index to {@code index} unless another writer already recorded a later one. */
    void advanceLastSyncedIndex(final long index) {
        checkWritable("recording a sync");
        final long address = address(LAST_SYNCED_INDEX_OFFSET);
        long current;
        while ((current = MEMORY.readVolatileLong(address)) < index) {
            if (MEMORY.compareAndSwapLong(address, current, index)) {
                return;
            }
        }
    }

    long lastAckedIndex() {
        return readVolatileLong(LAST_ACKED_INDEX_OFFSET);
    }

    /** Raises the last acked index to {@code index} unless a later one is recorded already. */
    void advanceLastAckedIndex(final long index) {
        checkWritable("recording an acknowledgement");
        final long address = address(LAST_ACKED_INDEX_OFFSET);
        long current;
        while ((current = MEMORY.readVolatileLong(address)) < index) {
            if (MEMORY.compareAndSwapLong(address, current, index)) {
                return;
            }
        }
    }

    /** @return the highest index acknowledged by an ack quorum, or -1; the field holds the index plus one. */
    long quorumAckedIndex() {
        return readVolatileLong(QUORUM_ACKED_INDEX_OFFSET) - 1;
    }

    /** Raises the quorum acked index to {@code index} unless a later one is recorded already. */
    void advanceQuorumAckedIndex(final long index) {
        checkWritable("recording a quorum acknowledgement");
        final long address = address(QUORUM_ACKED_INDEX_OFFSET);
        long current;
        while ((current = MEMORY.readVolatileLong(address)) < index + 1) {
            if (MEMORY.compareAndSwapLong(address, current, index + 1)) {
                return;
            }
        }
    }

    @Override
    public long schemaGeneration() {
        return readVolatileLong(SCHEMA_GENERATION_OFFSET);
    }

    @Override
    public void incrementSchemaGeneration() {
        checkWritable("counting a typed schema file");
        final long address = address(SCHEMA_GENERATION_OFFSET);
        long current;
        do {
            current = MEMORY.readVolatileLong(address);
        } while (!MEMORY.compareAndSwapLong(address, current, current + 1));
    }

    long term() {
        return readVolatileLong(TERM_OFFSET);
    }

    int role() {
        return MEMORY.readVolatileInt(address(ROLE_OFFSET));
    }

    /** @return the term that fenced the queue, or 0; caller holds the write lock, whose CAS made it visible. */
    long writeFence() {
        return MEMORY.readLong(address(WRITE_FENCE_OFFSET));
    }

    long fencedByTerm() {
        return readVolatileLong(FENCED_BY_TERM_OFFSET);
    }

    /** Caller holds the write lock. */
    void promote(final long term) {
        checkWritable("a promotion");
        writeOrderedLong(TERM_OFFSET, term);
        // release: whoever sees the primary role sees its new term
        MEMORY.writeOrderedInt(address(ROLE_OFFSET), ROLE_PRIMARY);
    }

    /** Caller holds the write lock. */
    void fence(final long byTerm) {
        checkWritable("fencing");
        writeOrderedLong(FENCED_BY_TERM_OFFSET, byTerm);
        // the next holder of the write lock reads it, in any process: the lock's CAS orders it
        writeOrderedLong(WRITE_FENCE_OFFSET, byTerm);
        // release: whoever sees the fenced role sees the term that fenced it
        MEMORY.writeOrderedInt(address(ROLE_OFFSET), ROLE_FENCED);
    }

    /**
     * Caller holds the write lock. The write fence stays up: writers made before it (local appenders of the deposed
     * primary) fail at their next write, and so does any writer made before the replica takes the term of a primary
     * at least as late as {@code laterTerm}. The term stays the one of the queue's own excerpts: only a primary's
     * source, once it checked the replica's history, raises it (the sink adopts its term).
     */
    void demote(final long laterTerm) {
        checkWritable("a demotion");
        writeOrderedLong(FENCED_BY_TERM_OFFSET, laterTerm);
        // the next holder of the write lock reads it, in any process: the lock's CAS orders it
        writeOrderedLong(WRITE_FENCE_OFFSET, laterTerm);
        // release: whoever sees the replica role sees the fence that stops the deposed primary's appenders
        MEMORY.writeOrderedInt(address(ROLE_OFFSET), ROLE_REPLICA);
    }

    /** Caller holds the write lock. */
    void term(final long term) {
        checkWritable("adopting a term");
        writeOrderedLong(TERM_OFFSET, term);
    }

    long processSlotSession(final int slot) {
        return readVolatileLong(processSlotPosition(slot) + PROCESS_SLOT_SESSION_OFFSET);
    }

    long processSlotPid(final int slot) {
        return readLong(processSlotPosition(slot) + PROCESS_SLOT_PID_OFFSET);
    }

    /** Caller holds the slot's byte-range lock. */
    void claimProcessSlot(final int slot, final long session, final long pid) {
        checkWritable("claiming a process slot");
        MEMORY.writeLong(address(processSlotPosition(slot) + PROCESS_SLOT_PID_OFFSET), pid);
        writeOrderedLong(processSlotPosition(slot) + PROCESS_SLOT_SESSION_OFFSET, session);
    }

    /**
     * Finds the entry of a named tailer, creating it if absent. Caller holds the write lock.
     *
     * @return the entry number.
     */
    int namedTailerEntry(final String name) {
        checkWritable("a named tailer");
        final byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        if (utf8.length == 0 || utf8.length > NAMED_TAILER_MAX_NAME_LENGTH) {
            throw new SpoolException("tailer name '" + name + "' must be 1 to " + NAMED_TAILER_MAX_NAME_LENGTH
                    + " UTF-8 bytes, is " + utf8.length);
        }
        int free = -1;
        for (int entry = 0; entry < NAMED_TAILER_COUNT; entry++) {
            final long position = namedTailerPosition(entry);
            final int length = readInt(position + NAMED_TAILER_NAME_LENGTH_OFFSET);
            if (length == 0) {
                if (free < 0) {
                    free = entry;
                }
            } else if (length == utf8.length && nameEquals(position, utf8)) {
                return entry;
            }
        }
        if (free < 0) {
            throw new SpoolException("no room for named tailer '" + name + "' in " + path + ": all "
                    + NAMED_TAILER_COUNT + " entries are used");
        }
        final long position = namedTailerPosition(free);
        MEMORY.copyMemory(utf8, 0, address(position + NAMED_TAILER_NAME_OFFSET), utf8.length);
        MEMORY.writeLong(address(position + NAMED_TAILER_INDEX_OFFSET), -1L);
        // release: the name and its index are complete before the entry counts as used
        MEMORY.writeOrderedInt(address(position + NAMED_TAILER_NAME_LENGTH_OFFSET), utf8.length);
        return free;
    }

    /**
     * Frees the entry of a named tailer. Caller holds the write lock.
     *
     * @return true if there was an entry of that name.
     */
    boolean removeNamedTailer(final String name) {
        checkWritable("removing a named tailer");
        final byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        for (int entry = 0; entry < NAMED_TAILER_COUNT; entry++) {
            final long position = namedTailerPosition(entry);
            if (readInt(position + NAMED_TAILER_NAME_LENGTH_OFFSET) == utf8.length && nameEquals(position, utf8)) {
                // release: retention stops counting the entry at once; a creator rewrites its name and index
                MEMORY.writeOrderedInt(address(position + NAMED_TAILER_NAME_LENGTH_OFFSET), 0);
                return true;
            }
        }
        return false;
    }

    private boolean nameEquals(final long position, final byte[] utf8) {
        final long nameAddress = address(position + NAMED_TAILER_NAME_OFFSET);
        for (int i = 0; i < utf8.length; i++) {
            if (MEMORY.readByte(nameAddress + i) != utf8[i]) {
                return false;
            }
        }
        return true;
    }

    /** @return the last index each named tailer read (-1 if none), by name, in entry order. */
    Map<String, Long> namedTailerIndices() {
        final Map<String, Long> indices = new LinkedHashMap<>();
        for (int entry = 0; entry < NAMED_TAILER_COUNT; entry++) {
            final long position = namedTailerPosition(entry);
            final String name = namedTailerName(position);
            if (name != null) {
                indices.put(name, Math.max(-1, readVolatileLong(position + NAMED_TAILER_INDEX_OFFSET)));
            }
        }
        return indices;
    }

    /**
     * @return the acknowledged index of each replica a replication source recorded (-1 if none), by the entry's
     * name, {@link MetadataDescriptor#REPLICA_NAME_PREFIX} included, in entry order.
     */
    Map<String, Long> replicaIndices() {
        final Map<String, Long> indices = new LinkedHashMap<>();
        for (int entry = 0; entry < NAMED_TAILER_COUNT; entry++) {
            final long position = namedTailerPosition(entry);
            final int length = MEMORY.readVolatileInt(address(position + NAMED_TAILER_NAME_LENGTH_OFFSET));
            if (isReplicaEntry(position, length)) {
                final String name = namedTailerName(position);
                if (name != null) {
                    indices.put(name, Math.max(-1, readVolatileLong(position + NAMED_TAILER_INDEX_OFFSET)));
                }
            }
        }
        return indices;
    }

    /** @return true if the used entry at {@code position}, of name length {@code length}, is a replica's. */
    private boolean isReplicaEntry(final long position, final int length) {
        return length > REPLICA_PREFIX_UTF8.length && length <= NAMED_TAILER_MAX_NAME_LENGTH
                && nameEquals(position, REPLICA_PREFIX_UTF8);
    }

    /** @return the name of the entry at {@code position}, or null if it is free. */
    private String namedTailerName(final long position) {
        final int length = MEMORY.readVolatileInt(address(position + NAMED_TAILER_NAME_LENGTH_OFFSET));
        if (length <= 0 || length > NAMED_TAILER_MAX_NAME_LENGTH) {
            return null;
        }
        final byte[] utf8 = new byte[length];
        for (int i = 0; i < length; i++) {
            utf8[i] = MEMORY.readByte(address(position + NAMED_TAILER_NAME_OFFSET + i));
        }
        return new String(utf8, StandardCharsets.UTF_8);
    }

    /** @return names of every named tailer, in entry order. */
    List<String> namedTailers() {
        final List<String> names = new ArrayList<>();
        for (int entry = 0; entry < NAMED_TAILER_COUNT; entry++) {
            final long position = namedTailerPosition(entry);
            final int length = readInt(position + NAMED_TAILER_NAME_LENGTH_OFFSET);
            if (length > 0 && length <= NAMED_TAILER_MAX_NAME_LENGTH) {
                final byte[] utf8 = new byte[length];
                for (int i = 0; i < length; i++) {
                    utf8[i] = MEMORY.readByte(address(position + NAMED_TAILER_NAME_OFFSET + i));
                }
                names.add(new String(utf8, StandardCharsets.UTF_8));
            }
        }
        return names;
    }

    void close() {
        store.release(this);
        SingleMappings.releaseLast(mappedFile, store);
    }
}
