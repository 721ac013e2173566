package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.format.MetadataDescriptor;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.UUID;

import static dev.spool.queue.format.CycleDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * One mapped cycle file (layout: {@link CycleDescriptor}): its header, its root index, and the mapping that
 * {@link MappedCursor}s read and write through. Shared by every appender and tailer of a queue instance;
 * reference counted by {@link CycleFiles}.
 */
final class CycleFile implements ReferenceOwner {
    private final Path path;
    private final long cycle;
    private final MappedFile mappedFile;
    private final MappedBytesStore headerStore;
    private final long headerAddress;
    private final int indexSpacing;
    private final int indexBlockEntries;
    private final int features;
    /** Guarded by the owning {@link CycleFiles}. */
    int references;
    /** Disk blocks are reserved below this position; guarded by this. */
    private long reservedUpTo;

    private CycleFile(final Path path, final long cycle, final MappedFile mappedFile, final MappedBytesStore headerStore) {
        this.path = path;
        this.cycle = cycle;
        this.mappedFile = mappedFile;
        this.headerStore = headerStore;
        this.headerAddress = headerStore.addressForWrite(0);
        this.indexSpacing = MEMORY.readInt(headerAddress + INDEX_SPACING_OFFSET);
        this.indexBlockEntries = MEMORY.readInt(headerAddress + INDEX_BLOCK_ENTRIES_OFFSET);
        this.features = MEMORY.readInt(headerAddress + FEATURES_OFFSET);
    }

    /**
     * Writes a new cycle file whole in a temporary file and links it into place, so a reader never opens a file
     * with half a header. Caller holds the write lock.
     */
    static void create(final Path path, final long cycle, final RollCycle rollCycle, final int indexSpacing,
                       final int indexBlockEntries, final int features, final Set<PosixFilePermission> fileMode) {
        final Path temp = path.resolveSibling(path.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = FileModes.createNew(temp, fileMode, StandardOpenOption.WRITE)) {
                final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN)
                        .putInt(MAGIC_OFFSET, MAGIC)
                        .putInt(VERSION_OFFSET, VERSION)
                        .putLong(CYCLE_OFFSET, cycle)
                        .putInt(ROLL_CYCLE_OFFSET, rollCycle.id())
                        .putInt(INDEX_SPACING_OFFSET, indexSpacing)
                        .putInt(INDEX_BLOCK_ENTRIES_OFFSET, indexBlockEntries)
                        .putInt(ROOT_ENTRIES_OFFSET, ROOT_ENTRIES)
                        .putInt(FEATURES_OFFSET, features)
                        .putLong(WRITE_POSITION_OFFSET, DATA_OFFSET)
                        .putLong(WRITE_SEQUENCE_OFFSET, 0);
                while (header.hasRemaining()) {
                    channel.write(header);
                }
                // the root index and the first excerpt header read as zero: a sparse extension writes nothing
                final ByteBuffer zero = ByteBuffer.allocate(1);
                channel.write(zero, DATA_OFFSET + ExcerptDescriptor.ALIGNMENT - 1);
            }
            Files.createLink(path, temp);
        } catch (FileAlreadyExistsException e) {
            throw new SpoolException("cycle file " + path + " already exists: created by a writer that did not hold the write lock", e);
        } catch (IOException e) {
            throw new SpoolException("cannot create cycle file " + path + ": " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException e) {
                throw new SpoolException("cannot delete " + temp + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * Maps and validates an existing cycle file; read-only, it never writes or grows it.
     *
     * @return the file, or null if it no longer exists: retention in another process deleted it since it was listed.
     */
    static CycleFile open(final Path path, final long cycle, final RollCycle rollCycle, final long chunkLength,
                          final boolean readOnly) {
        // the hint before the length: a writer in another process grows the file before it writes and moves the
        // hint, so a length read after the hint covers it; read the other way round, a writer that grows the file
        // and writes past its old length between the two reads would look like a truncation
        final long hint;
        try {
            hint = readHint(path);
        } catch (SpoolException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                // deleted by retention in another process since it was listed
                return null;
            }
            throw e;
        }
        final long length;
        try {
            length = Files.size(path);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new SpoolException("cannot read " + path + ": " + e.getMessage(), e);
        }
        if (length < DATA_OFFSET) {
            throw new CorruptQueueException(path, length, "cycle file truncated: length=" + length
                    + ", the header and root index alone need " + DATA_OFFSET);
        }
        // both read before mapping: mapping the first chunk grows the file, which would hide a truncation
        if (hint < DATA_OFFSET || hint > length) {
            // a writer grows the file before it writes, so excerpts end inside the file
            throw new CorruptQueueException(path, WRITE_POSITION_OFFSET, "write position=" + hint + " outside the data of a file of length="
                    + length + ": the file was truncated or its header damaged");
        }
        final MappedFile mappedFile;
        try {
            mappedFile = MappedFile.of(path.toFile(), chunkLength, CycleDescriptor.overlapLength(chunkLength), readOnly);
        } catch (FileNotFoundException e) {
            if (readOnly && !Files.exists(path)) {
                // deleted since its size was read, by retention in another process: the next cycle is next
                return null;
            }
            throw new SpoolException("cannot map " + path + ": " + e.getMessage(), e);
        }
        final boolean recreated;
        try {
            recreated = mappedFile.raf().length() == 0;
        } catch (IOException e) {
            mappedFile.releaseLast();
            throw new SpoolException("cannot read the length of " + path + ": " + e.getMessage(), e);
        }
        if (recreated) {
            // deleted between the size above and the open, which opens read-write and so created an empty file in
            // its place: remove that, or every reader would take it for a truncated cycle
            mappedFile.releaseLast();
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                throw new SpoolException("cannot delete " + path + ", an empty file left by opening it just after it was"
                        + " deleted: " + e.getMessage(), e);
            }
            return null;
        }
        CycleFile file = null;
        try {
            final ReferenceOwner temporary = ReferenceOwner.temporary("cycle-header");
            final MappedBytesStore header = mappedFile.acquireByteStore(temporary, 0);
            file = new CycleFile(path, cycle, mappedFile, header);
            header.reserveTransfer(temporary, file);
            file.validate(cycle, rollCycle);
            return file;
        } catch (IOException e) {
            mappedFile.releaseLast();
            throw new SpoolException("cannot map " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (file != null) {
                file.close();
            } else {
                mappedFile.releaseLast();
            }
            throw e;
        }
    }

    /** @return the write-position hint of the file at {@code path}, read without mapping it. */
    static long readHint(final Path path) {
        return readLong(path, WRITE_POSITION_OFFSET);
    }

    /** @return the write-sequence hint (the excerpts written so far) of the file at {@code path}, read without mapping it. */
    static long readSequenceHint(final Path path) {
        return readLong(path, WRITE_SEQUENCE_OFFSET);
    }

    private static long readLong(final Path path, final long offset) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            final ByteBuffer hint = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            while (hint.hasRemaining() && channel.read(hint, offset + hint.position()) >= 0) {
                // read all eight bytes
            }
            return hint.getLong(0);
        } catch (IOException e) {
            throw new SpoolException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    private void validate(final long expectedCycle, final RollCycle rollCycle) {
        final int magic = MEMORY.readInt(headerAddress + MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new CorruptQueueException(path, MAGIC_OFFSET, String.format("not a Spool cycle file: magic=0x%08x", magic));
        }
        final int version = MEMORY.readInt(headerAddress + VERSION_OFFSET);
        if (version != VERSION) {
            throw new CorruptQueueException(path, VERSION_OFFSET, "unsupported cycle file version=" + version + ", this build reads " + VERSION);
        }
        final long cycle = MEMORY.readLong(headerAddress + CYCLE_OFFSET);
        if (cycle != expectedCycle) {
            throw new CorruptQueueException(path, CYCLE_OFFSET, "cycle=" + cycle + " but the file name says " + expectedCycle);
        }
        final int rollCycleId = MEMORY.readInt(headerAddress + ROLL_CYCLE_OFFSET);
        if (rollCycleId != rollCycle.id()) {
            throw new CorruptQueueException(path, ROLL_CYCLE_OFFSET, "roll cycle id=" + rollCycleId + " but the queue's is "
                    + rollCycle.id() + " (" + rollCycle + ")");
        }
        if (!MetadataFile.isPowerOfTwo(indexSpacing)) {
            throw new CorruptQueueException(path, INDEX_SPACING_OFFSET, "index spacing=" + indexSpacing + " is not a power of two");
        }
        if (!MetadataFile.isPowerOfTwo(indexBlockEntries)) {
            throw new CorruptQueueException(path, INDEX_BLOCK_ENTRIES_OFFSET, "index block entries=" + indexBlockEntries
                    + " is not a power of two");
        }
        final int rootEntries = MEMORY.readInt(headerAddress + ROOT_ENTRIES_OFFSET);
        if (rootEntries != ROOT_ENTRIES) {
            throw new CorruptQueueException(path, ROOT_ENTRIES_OFFSET, "root entries=" + rootEntries + ", expected " + ROOT_ENTRIES);
        }
        if ((features & ~MetadataDescriptor.KNOWN_FEATURES) != 0) {
            throw new CorruptQueueException(path, FEATURES_OFFSET, String.format("features=0x%x include 0x%x, which this"
                    + " build does not know", features, features & ~MetadataDescriptor.KNOWN_FEATURES));
        }
    }

    Path path() {
        return path;
    }

    /** @return the queue's features when this file was created: how its index blocks are laid out. */
    int features() {
        return features;
    }

    long cycle() {
        return cycle;
    }

    MappedFile mappedFile() {
        return mappedFile;
    }

    int indexSpacing() {
        return indexSpacing;
    }

    int indexBlockEntries() {
        return indexBlockEntries;
    }

    /**
     * Reserves disk blocks for the chunk that holds {@code position} and its overlap, once per chunk, before a
     * writer maps it (see {@link Preallocation}).
     */
    synchronized void reserveChunk(final long chunkStart, final long chunkEnd) {
        if (chunkEnd <= reservedUpTo) {
            return;
        }
        Preallocation.reserve(path, mappedFile.raf(), Math.max(chunkStart, reservedUpTo), chunkEnd);
        reservedUpTo = chunkEnd;
    }

    /** @return the most excerpts this file's index can address. */
    long indexCapacity() {
        return (long) ROOT_ENTRIES * indexBlockEntries * indexSpacing;
    }

    /** Writer's hint, read and written under the write lock only. */
    long writePosition() {
        return MEMORY.readLong(headerAddress + WRITE_POSITION_OFFSET);
    }

    /** Writer's hint, read and written under the write lock only. */
    long writeSequence() {
        return MEMORY.readLong(headerAddress + WRITE_SEQUENCE_OFFSET);
    }

    /** @return the write-position hint read without the write lock, by the pretoucher: stale as soon as it is read. */
    long readVolatileWritePosition() {
        return MEMORY.readVolatileLong(headerAddress + WRITE_POSITION_OFFSET);
    }

    void writeHints(final long position, final long sequence) {
        // release: a tailer that reads a position hint past a header reads that header published (see StoreTailer)
        MEMORY.writeOrderedLong(headerAddress + WRITE_POSITION_OFFSET, position);
        MEMORY.writeLong(headerAddress + WRITE_SEQUENCE_OFFSET, sequence);
    }

    /** @return the position of index block {@code block}, or 0 if none has been written. */
    long rootEntry(final int block) {
        return MEMORY.readVolatileLong(headerAddress + rootEntryPosition(block));
    }

    void rootEntry(final int block, final long blockPosition) {
        // release: the zeroed block is visible before a reader can find it
        MEMORY.writeOrderedLong(headerAddress + rootEntryPosition(block), blockPosition);
    }

    void close() {
        headerStore.release(this);
        mappedFile.releaseLast();
    }

    @Override
    public String referenceName() {
        return "CycleFile(" + path.getFileName() + ")";
    }
}
