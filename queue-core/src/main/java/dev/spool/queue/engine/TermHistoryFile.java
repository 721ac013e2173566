package dev.spool.queue.engine;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.TermHistory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.zip.CRC32C;

import static dev.spool.queue.format.TermHistoryDescriptor.CHECKSUM_OFFSET;
import static dev.spool.queue.format.TermHistoryDescriptor.COUNT_OFFSET;
import static dev.spool.queue.format.TermHistoryDescriptor.ENTRIES_OFFSET;
import static dev.spool.queue.format.TermHistoryDescriptor.ENTRY_START_INDEX_OFFSET;
import static dev.spool.queue.format.TermHistoryDescriptor.ENTRY_TERM_OFFSET;
import static dev.spool.queue.format.TermHistoryDescriptor.FILE_NAME;
import static dev.spool.queue.format.TermHistoryDescriptor.MAGIC;
import static dev.spool.queue.format.TermHistoryDescriptor.MAGIC_OFFSET;
import static dev.spool.queue.format.TermHistoryDescriptor.MAX_ENTRIES;
import static dev.spool.queue.format.TermHistoryDescriptor.TEMPORARY_FILE_NAME;
import static dev.spool.queue.format.TermHistoryDescriptor.VERSION;
import static dev.spool.queue.format.TermHistoryDescriptor.VERSION_OFFSET;
import static dev.spool.queue.format.TermHistoryDescriptor.entryPosition;
import static dev.spool.queue.format.TermHistoryDescriptor.fileLength;

/**
 * Reads and replaces a queue's term history file ({@code TermHistoryDescriptor}). A new version is written whole to a
 * temporary file, forced, renamed over the old one and the directory forced: a crash at any point leaves the old
 * history or the new one, never a torn one. Called under the write lock, at promotions and handshakes.
 */
final class TermHistoryFile {
    private TermHistoryFile() {
    }

    /**
     * @param directory   the queue directory.
     * @param currentTerm the queue's term: the history of a queue without the file is this term from index 0.
     * @return the persisted history.
     * @throws SpoolException naming the file, the position and the values if the file is damaged or unreadable.
     */
    static TermHistory read(final Path directory, final long currentTerm) {
        final Path file = directory.resolve(FILE_NAME);
        final byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return TermHistory.of(currentTerm);
        } catch (IOException e) {
            throw new SpoolException("cannot read the term history " + file + ": " + e.getMessage(), e);
        }
        final ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < ENTRIES_OFFSET) {
            throw damaged(file, "length=" + bytes.length + " is shorter than the header's " + ENTRIES_OFFSET + " bytes");
        }
        if (buffer.getInt(MAGIC_OFFSET) != MAGIC || buffer.getInt(VERSION_OFFSET) != VERSION) {
            throw damaged(file, String.format("bad header magic=0x%08x version=%d at position=%d, expected 0x%08x %d",
                    buffer.getInt(MAGIC_OFFSET), buffer.getInt(VERSION_OFFSET), MAGIC_OFFSET, MAGIC, VERSION));
        }
        final int count = buffer.getInt(COUNT_OFFSET);
        if (count < 1 || count > MAX_ENTRIES || bytes.length != fileLength(count)) {
            throw damaged(file, "entry count=" + count + " at position=" + COUNT_OFFSET + " does not fit [1, "
                    + MAX_ENTRIES + "] and the file's length=" + bytes.length);
        }
        final int stored = buffer.getInt(CHECKSUM_OFFSET);
        final int computed = checksum(buffer, count);
        if (stored != computed) {
            throw damaged(file, String.format("CRC-32C stored 0x%08x at position=%d, computed 0x%08x", stored,
                    CHECKSUM_OFFSET, computed));
        }
        final long[] terms = new long[count];
        final long[] starts = new long[count];
        for (int e = 0; e < count; e++) {
            terms[e] = buffer.getLong(entryPosition(e) + ENTRY_TERM_OFFSET);
            starts[e] = buffer.getLong(entryPosition(e) + ENTRY_START_INDEX_OFFSET);
        }
        final String problem = TermHistory.problem(terms, starts);
        if (problem != null) {
            throw damaged(file, problem);
        }
        return TermHistory.of(terms, starts);
    }

    /**
     * Replaces the queue's term history with {@code history}, durably: once this returns, it is on disk.
     *
     * @param directory the queue directory.
     * @param history   the new history.
     * @param fileMode  the permissions of a new file.
     * @throws SpoolException naming the file if it cannot be written; the old history stays.
     */
    static void write(final Path directory, final TermHistory history, final Set<PosixFilePermission> fileMode) {
        final int count = history.size();
        final ByteBuffer buffer = ByteBuffer.allocate(fileLength(count)).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(MAGIC_OFFSET, MAGIC).putInt(VERSION_OFFSET, VERSION).putInt(COUNT_OFFSET, count);
        for (int e = 0; e < count; e++) {
            buffer.putLong(entryPosition(e) + ENTRY_TERM_OFFSET, history.term(e))
                    .putLong(entryPosition(e) + ENTRY_START_INDEX_OFFSET, history.startIndex(e));
        }
        buffer.putInt(CHECKSUM_OFFSET, checksum(buffer, count));
        final Path temporary = directory.resolve(TEMPORARY_FILE_NAME);
        final Path file = directory.resolve(FILE_NAME);
        try {
            // a temporary file a crash left was never renamed into place: the new one replaces it
            Files.deleteIfExists(temporary);
            try (FileChannel channel = FileModes.createNew(temporary, fileMode, StandardOpenOption.WRITE)) {
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            // the rename is what a restart goes by: it must be on disk before anything relies on the new history
            try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
                channel.force(true);
            }
        } catch (IOException e) {
            throw new SpoolException("cannot write the term history " + file + ": " + e.getMessage()
                    + "; the previous history stays", e);
        }
    }

    /** @return the CRC-32C of the header before the checksum field and of {@code count} entries. */
    private static int checksum(final ByteBuffer buffer, final int count) {
        final CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate().position(0).limit(CHECKSUM_OFFSET));
        crc.update(buffer.duplicate().position(ENTRIES_OFFSET).limit(fileLength(count)));
        return (int) crc.getValue();
    }

    private static SpoolException damaged(final Path file, final String what) {
        return new SpoolException("damaged term history " + file + ": " + what + "; it is written only by renaming a"
                + " complete file into place, so something else changed it");
    }
}
