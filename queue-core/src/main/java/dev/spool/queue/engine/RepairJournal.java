package dev.spool.queue.engine;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.RepairJournalDescriptor;
import dev.spool.queue.internal.FileModes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

import static dev.spool.queue.format.RepairJournalDescriptor.*;

/**
 * The redo journal of a repair (layout: {@link RepairJournalDescriptor}): the bytes to write, each at its position
 * in its cycle file. A repair writes the journal whole, syncs it and renames it into place, then writes the bytes,
 * syncs the cycle files, and deletes the journal; a crash anywhere leaves either no journal (the files as they were,
 * or repaired and synced) or a complete one, which {@link #recover} applies again. Writing the same bytes twice is
 * harmless, so the journal needs no record of how far it got.
 * <p>
 * The writes go through the file, not through a mapping: the page cache is the one the queue's mappings share, in
 * this process and in others, so a reader sees the new bytes at once, and a repair needs no mapping of its own.
 */
final class RepairJournal {
    private static final Logger LOG = LoggerFactory.getLogger(RepairJournal.class);

    /** One write: {@code data} at {@code position} of the cycle file {@code fileName} in the queue's directory. */
    record Entry(String fileName, long position, byte[] data) {
    }

    private RepairJournal() {
    }

    /**
     * Writes the journal of {@code entries} into {@code directory}, synced and in place; only then may they be applied.
     *
     * @param fileMode the queue's file mode: the journal holds the queue's bytes, so no one may read it who may not
     *                 read the cycle files.
     */
    static void write(final Path directory, final List<Entry> entries, final Set<PosixFilePermission> fileMode) {
        int length = ENTRIES_OFFSET + TRAILER_LENGTH;
        for (final Entry entry : entries) {
            length += entryLength(entry.fileName().getBytes(StandardCharsets.UTF_8).length, entry.data().length);
        }
        final ByteBuffer journal = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        journal.putInt(MAGIC_OFFSET, MAGIC).putInt(VERSION_OFFSET, VERSION).putInt(ENTRY_COUNT_OFFSET, entries.size());
        int at = ENTRIES_OFFSET;
        for (final Entry entry : entries) {
            final byte[] name = entry.fileName().getBytes(StandardCharsets.UTF_8);
            journal.putInt(at + ENTRY_NAME_LENGTH_OFFSET, name.length)
                    .putInt(at + ENTRY_DATA_LENGTH_OFFSET, entry.data().length)
                    .putLong(at + ENTRY_POSITION_OFFSET, entry.position())
                    .put(at + ENTRY_NAME_OFFSET, name)
                    .put(at + ENTRY_NAME_OFFSET + name.length, entry.data());
            at += entryLength(name.length, entry.data().length);
        }
        journal.putInt(at, crcOf(journal, at));
        final Path temp = directory.resolve(TEMP_FILE_NAME);
        try {
            // a temporary journal a crash left is incomplete, never renamed into place: a new one replaces it
            Files.deleteIfExists(temp);
            try (FileChannel channel = FileModes.createNew(temp, fileMode, StandardOpenOption.WRITE)) {
                while (journal.hasRemaining()) {
                    channel.write(journal);
                }
                channel.force(true);
            }
            Files.move(temp, directory.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            syncDirectory(directory);
        } catch (IOException e) {
            throw new SpoolException("cannot write the repair journal " + directory.resolve(FILE_NAME) + ": "
                    + e.getMessage() + "; nothing was repaired", e);
        }
    }

    /** Writes every entry into its cycle file, syncs the files, and deletes the journal. */
    static void apply(final Path directory, final List<Entry> entries) {
        for (final Entry entry : entries) {
            final Path file = directory.resolve(entry.fileName());
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                final ByteBuffer data = ByteBuffer.wrap(entry.data());
                while (data.hasRemaining()) {
                    channel.write(data, entry.position() + data.position());
                }
                channel.force(false);
            } catch (NoSuchFileException e) {
                // retention deleted the cycle since: nothing of it is left to repair
                LOG.warn("repair: cycle file {} no longer exists (deleted by retention?); its repair is skipped", file);
                continue;
            } catch (IOException e) {
                throw new SpoolException("cannot write the repair of " + file + " at position=" + entry.position()
                        + ": " + e.getMessage() + "; the journal " + directory.resolve(FILE_NAME)
                        + " stays, and the next writer to open the queue finishes the repair", e);
            }
        }
        delete(directory.resolve(FILE_NAME));
    }

    /**
     * Finishes a repair a crash cut short: applies a complete journal in {@code directory} again, discards an
     * incomplete one (never applied), and removes a journal's temporary file. Called by every writer's open and by
     * every repair before it starts.
     *
     * @return the number of writes applied again: 0 if there was no complete journal.
     */
    static int recover(final Path directory) {
        delete(directory.resolve(TEMP_FILE_NAME));
        final Path path = directory.resolve(FILE_NAME);
        final byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new SpoolException("cannot read the repair journal " + path + ": " + e.getMessage(), e);
        }
        final String problem = problemOf(bytes);
        if (problem != null) {
            LOG.warn("repair journal {} is incomplete ({}): it was never applied, and is discarded", path, problem);
            delete(path);
            return 0;
        }
        final List<Entry> entries = entriesOf(bytes);
        LOG.warn("repair journal {} found: a repair of {} excerpt regions was cut short; it is applied again",
                path, entries.size());
        apply(directory, entries);
        return entries.size();
    }

    /** @return why {@code bytes} are not a complete journal, or null if they are one. */
    private static String problemOf(final byte[] bytes) {
        final ByteBuffer journal = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < ENTRIES_OFFSET + TRAILER_LENGTH || bytes.length % ALIGNMENT != 0) {
            return "length=" + bytes.length;
        }
        if (journal.getInt(MAGIC_OFFSET) != MAGIC) {
            return String.format("magic=0x%08x", journal.getInt(MAGIC_OFFSET));
        }
        if (journal.getInt(VERSION_OFFSET) != VERSION) {
            return "version=" + journal.getInt(VERSION_OFFSET);
        }
        final int trailer = bytes.length - TRAILER_LENGTH;
        final int stored = journal.getInt(trailer);
        final int computed = crcOf(journal, trailer);
        if (stored != computed) {
            return String.format("CRC32C stored 0x%08x, computed 0x%08x", stored, computed);
        }
        final int count = journal.getInt(ENTRY_COUNT_OFFSET);
        int at = ENTRIES_OFFSET;
        for (int i = 0; i < count; i++) {
            if (at + ENTRY_NAME_OFFSET > trailer) {
                return "entry " + i + " past the end";
            }
            final int nameLength = journal.getInt(at + ENTRY_NAME_LENGTH_OFFSET);
            final int dataLength = journal.getInt(at + ENTRY_DATA_LENGTH_OFFSET);
            final long position = journal.getLong(at + ENTRY_POSITION_OFFSET);
            if (nameLength < 1 || nameLength > MAX_NAME_LENGTH || dataLength < 0 || position < 0
                    || (long) at + entryLength(nameLength, dataLength) > trailer) {
                return "entry " + i + ": name length=" + nameLength + ", data length=" + dataLength + ", position=" + position;
            }
            final String name = new String(bytes, at + ENTRY_NAME_OFFSET, nameLength, StandardCharsets.UTF_8);
            // only a cycle file of this directory: a journal names no other file
            if (!name.endsWith(RollCycle.FILE_SUFFIX) || name.contains("/") || name.contains("\\") || name.startsWith(".")) {
                return "entry " + i + " names '" + name + "', not a cycle file";
            }
            at += entryLength(nameLength, dataLength);
        }
        return at == trailer ? null : "entries end at " + at + ", the trailer is at " + trailer;
    }

    private static List<Entry> entriesOf(final byte[] bytes) {
        final ByteBuffer journal = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final int count = journal.getInt(ENTRY_COUNT_OFFSET);
        final List<Entry> entries = new ArrayList<>(count);
        int at = ENTRIES_OFFSET;
        for (int i = 0; i < count; i++) {
            final int nameLength = journal.getInt(at + ENTRY_NAME_LENGTH_OFFSET);
            final int dataLength = journal.getInt(at + ENTRY_DATA_LENGTH_OFFSET);
            final String name = new String(bytes, at + ENTRY_NAME_OFFSET, nameLength, StandardCharsets.UTF_8);
            final byte[] data = new byte[dataLength];
            System.arraycopy(bytes, at + ENTRY_NAME_OFFSET + nameLength, data, 0, dataLength);
            entries.add(new Entry(name, journal.getLong(at + ENTRY_POSITION_OFFSET), data));
            at += entryLength(nameLength, dataLength);
        }
        return entries;
    }

    private static int crcOf(final ByteBuffer journal, final int length) {
        final CRC32C crc = new CRC32C();
        crc.update(journal.duplicate().position(0).limit(length));
        return (int) crc.getValue();
    }

    private static void delete(final Path path) {
        try {
            if (Files.deleteIfExists(path)) {
                syncDirectory(path.getParent());
            }
        } catch (IOException e) {
            throw new SpoolException("cannot delete " + path + ": " + e.getMessage(), e);
        }
    }

    /** Makes a rename or delete in {@code directory} durable: the journal's presence is what a recovery goes by. */
    private static void syncDirectory(final Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
