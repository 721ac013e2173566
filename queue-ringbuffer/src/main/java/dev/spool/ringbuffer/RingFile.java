package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.SingleMappings;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;
import org.agrona.concurrent.EpochClock;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.UUID;

import static dev.spool.ringbuffer.RingBufferDescriptor.*;

/**
 * A ring file, created if missing, checked, mapped whole, with its lock file held: the resources a
 * {@link RingBuffer} lives on, released together by {@link #close()}.
 */
final class RingFile implements ReferenceOwner {
    private final Path path;
    private final MappedFile mappedFile;
    private final MappedBytesStore store;
    private final RingLocks locks;
    /** The identity (device and inode) of the file mapped, read before mapping it; null where the system has none. */
    private final Object fileKey;

    private RingFile(final Path path, final MappedFile mappedFile, final MappedBytesStore store, final RingLocks locks,
                     final Object fileKey) {
        this.path = path;
        this.mappedFile = mappedFile;
        this.store = store;
        this.locks = locks;
        this.fileKey = fileKey;
    }

    /**
     * Opens the ring at {@code path}, creating it with {@code capacity} bytes of data if it does not exist.
     *
     * @param epochClock gives a new ring's creation time.
     * @throws SpoolException if the capacity is not a power of two from 4 KiB to 1 GiB.
     * @throws CorruptQueueException    if the file is not a ring of this layout version.
     * @throws SpoolException           if the file cannot be created or mapped, or has another capacity.
     */
    static RingFile open(final Path path, final int capacity, final Set<PosixFilePermission> fileMode,
                         final EpochClock epochClock) {
        checkCapacity(path, capacity);
        final Path file = path.toAbsolutePath().normalize();
        if (!Files.exists(file)) {
            create(file, capacity, fileMode, epochClock.time());
        }
        final long length;
        final Object fileKey;
        try {
            final BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            length = attributes.size();
            fileKey = attributes.fileKey();
        } catch (IOException e) {
            throw new SpoolException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (length < HEADER_LENGTH) {
            throw new CorruptQueueException(file, 0, "ring file truncated: length=" + length + ", header needs " + HEADER_LENGTH);
        }
        final MappedFile mappedFile;
        try {
            mappedFile = MappedFile.ofSingle(file.toFile(), length, false);
        } catch (IOException e) {
            throw new SpoolException("cannot map " + file + ": " + e.getMessage(), e);
        }
        RingLocks locks = null;
        MappedBytesStore store = null;
        final ReferenceOwner temporary = ReferenceOwner.temporary("ring");
        try {
            store = mappedFile.acquireByteStore(temporary, 0);
            new RingHeader(store.addressForWrite(0)).validate(file, length, capacity);
            locks = RingLocks.acquire(file, fileMode);
            final RingFile ringFile = new RingFile(file, mappedFile, store, locks, fileKey);
            store.reserveTransfer(temporary, ringFile);
            return ringFile;
        } catch (IOException e) {
            release(mappedFile, store, temporary, locks);
            throw new SpoolException("cannot map " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            release(mappedFile, store, temporary, locks);
            throw e;
        }
    }

    private static void release(final MappedFile mappedFile, final MappedBytesStore store, final ReferenceOwner owner,
                                final RingLocks locks) {
        if (store != null) {
            store.release(owner);
            SingleMappings.releaseLast(mappedFile, store);
        } else {
            mappedFile.releaseLast();
        }
        if (locks != null) {
            locks.release();
        }
    }

    /**
     * Checks that the path still names the file this instance mapped, once this process holds a slot of the lock
     * file: {@link #delete(Path)} may have removed the ring between the mapping and the slot, and a ring no path
     * names is one no other process would ever drain.
     *
     * @throws SpoolException if the ring was deleted, or deleted and created again, while this process opened it.
     */
    void checkLinked() {
        if (fileKey == null) {
            return;
        }
        Object current;
        try {
            current = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            current = null;
        }
        if (!fileKey.equals(current)) {
            throw new SpoolException("ring " + path + " was deleted while this process opened it: open it again");
        }
    }

    /**
     * Removes a ring file and its lock file, holding every slot of the lock file meanwhile, so that no process can
     * start using the ring; see {@code AsyncQueue.deleteRing}.
     *
     * @param path the ring file.
     * @return true if a file was removed; false if neither existed.
     * @throws SpoolException        if a process, this one included, has the ring open, or the ring holds records
     *                               not yet drained.
     * @throws CorruptQueueException if the file is not a ring: nothing is removed.
     */
    static boolean delete(final Path path) {
        final Path file = path.toAbsolutePath().normalize();
        final Path lockFile = RingLocks.lockFile(file);
        if (!Files.exists(file) && !Files.exists(lockFile)) {
            return false;
        }
        try {
            if (Files.exists(file)) {
                // before the lock file is opened, maybe created: a path that is not a ring is left as it was
                unconsumedLength(file);
            }
        } catch (IOException e) {
            throw new SpoolException("cannot read ring " + file + ": " + e.getMessage(), e);
        }
        final RingLocks locks = RingLocks.acquire(file, SpoolQueueBuilder.DEFAULT_FILE_MODE);
        try {
            if (locks.isOpenElsewhereInProcess()) {
                throw new SpoolException("cannot delete ring " + file + ": an async queue or ring buffer of this process"
                        + " has it open; close that first");
            }
            if (!locks.tryHoldAll()) {
                final int slot = locks.firstLiveSlot();
                throw new SpoolException("cannot delete ring " + file + ": another process uses it" + (slot < 0 ? ""
                        : ", holding " + (slot == RingLocks.DRAINER_SLOT ? "the drainer lock" : "producer slot " + slot)
                        + " of " + lockFile) + "; close its async queue first");
            }
            if (Files.exists(file)) {
                final long undrained = unconsumedLength(file);
                if (undrained != 0) {
                    throw new SpoolException("cannot delete ring " + file + ": it holds " + undrained + " bytes of records"
                            + " not yet drained into the queue; open an async queue on it and close it, which drains"
                            + " them, then delete");
                }
            }
            // the lock file first: a process that mapped this ring opens the lock file after it, so it finds every
            // slot taken, or a new lock file, and then its checkLinked() finds the ring it mapped gone
            Files.deleteIfExists(lockFile);
            Files.deleteIfExists(file);
            return true;
        } catch (IOException e) {
            throw new SpoolException("cannot delete ring " + file + " or " + lockFile + ": " + e.getMessage(), e);
        } finally {
            try {
                locks.freeAll();
            } finally {
                locks.release();
            }
        }
    }

    private static long unconsumedLength(final Path file) throws IOException {
        final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            int read = 0;
            while (header.hasRemaining() && read >= 0) {
                read = channel.read(header);
            }
        }
        if (header.hasRemaining()) {
            throw new CorruptQueueException(file, 0, "ring file truncated: length=" + header.position() + ", header needs "
                    + HEADER_LENGTH + "; not deleted");
        }
        return RingHeader.unconsumedLength(header, file);
    }

    /** @throws SpoolException if {@code capacity} is not a power of two from 4 KiB to 1 GiB. */
    static void checkCapacity(final Path path, final int capacity) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new SpoolException("capacity=" + capacity + " of ring " + path + " must be a power of two from "
                    + MIN_CAPACITY + " to " + MAX_CAPACITY);
        }
    }

    /** Writes the whole file, so that tmpfs holds its pages now and a full tmpfs is an exception, not a SIGBUS. */
    private static void create(final Path file, final int capacity, final Set<PosixFilePermission> fileMode,
                               final long createdMillis) {
        final Path temp = file.resolveSibling(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel channel = FileModes.createNew(temp, fileMode, StandardOpenOption.WRITE)) {
                final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
                RingHeader.initialise(header, capacity, createdMillis);
                DrainState.initialise(header);
                writeFully(channel, header);
                final ByteBuffer zeros = ByteBuffer.allocate(Math.min(capacity, 1 << 20));
                for (long written = 0; written < capacity; written += zeros.capacity()) {
                    writeFully(channel, zeros.clear());
                }
                final ByteBuffer journal = ByteBuffer.allocate(Math.min(capacity, 1 << 20)).order(ByteOrder.LITTLE_ENDIAN);
                IndexJournal.initialise(journal);
                for (long written = 0; written < capacity; written += journal.capacity()) {
                    writeFully(channel, journal.clear());
                }
            }
            try {
                Files.createLink(file, temp);
            } catch (FileAlreadyExistsException e) {
                // another process created it first: use theirs
            }
        } catch (IOException e) {
            throw new SpoolException("cannot create ring " + file + ": " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException e) {
                throw new SpoolException("cannot delete " + temp + ": " + e.getMessage(), e);
            }
        }
    }

    private static void writeFully(final FileChannel channel, final ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    Path path() {
        return path;
    }

    MappedBytesStore store() {
        return store;
    }

    RingLocks locks() {
        return locks;
    }

    /** Unmaps the file and releases the lock file; the caller has freed its slots. */
    void close() {
        store.release(this);
        SingleMappings.releaseLast(mappedFile, store);
        locks.release();
    }

    @Override
    public String toString() {
        return "RingFile{" + path + "}";
    }
}
