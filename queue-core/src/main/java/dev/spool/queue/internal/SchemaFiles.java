package dev.spool.queue.internal;

import dev.spool.queue.SpoolException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_FILE_NAME_MAX_LENGTH;
import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_FILE_SUFFIX;
import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_HEADER;
import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_MAX_LENGTH;

/**
 * Not API: the typed schema files of one queue directory ({@code <interface canonical name>.spool-schema}, format in
 * docs/file-format.md), which method writers store and a replication sink receives, with the metadata's schema
 * generation that counts the files written, so that a replication source learns of a new or changed file by one
 * read of mapped memory instead of listing the directory on its duty cycle. A file is written aside with the
 * queue's file mode and renamed over the old one, and only if its content differs: a reader in any process sees
 * the old file or the new one, never half of one. Thread-safe; allocates (schema files are written rarely).
 */
public final class SchemaFiles {
    /** The counter of schema files written, in the queue's metadata ({@code MetadataDescriptor}). */
    public interface Generation {
        /** @return the count of schema files written into the queue directory; only its changes mean anything. */
        long schemaGeneration();

        /** Counts one more schema file written, atomically, for every process that maps the metadata. */
        void incrementSchemaGeneration();

        /**
         * @param what what would write, for the message.
         * @throws SpoolException if the queue was opened read-only: nothing may be written to its directory.
         */
        void checkWritable(String what);
    }

    private final Path directory;
    private final Set<PosixFilePermission> fileMode;
    private final Generation generation;

    /**
     * @param directory  the queue directory.
     * @param fileMode   the mode of the files the queue creates.
     * @param generation the metadata's schema generation.
     */
    public SchemaFiles(final Path directory, final Set<PosixFilePermission> fileMode, final Generation generation) {
        this.directory = directory;
        this.fileMode = fileMode;
        this.generation = generation;
    }

    /** @return the queue directory. */
    public Path directory() {
        return directory;
    }

    /** @return the metadata's schema generation: one volatile read of mapped memory, no allocation. */
    public long generation() {
        return generation.schemaGeneration();
    }

    /**
     * Writes a schema file unless the directory holds one of that name and content already, then counts it in the
     * schema generation.
     *
     * @param name    the file's name, which {@link #nameProblem(String)} accepts.
     * @param content its content, which {@link #contentProblem(byte[])} accepts.
     * @return true if the file was written, false if it held that content already.
     * @throws SpoolException naming the file and what is wrong if the name or content is not a schema file's, or
     *                        the file cannot be written; naming the queue if it was opened read-only. The directory
     *                        is then unchanged.
     */
    public boolean store(final String name, final byte[] content) {
        generation.checkWritable("storing the typed schema " + name);
        String problem = nameProblem(name);
        if (problem == null) {
            problem = contentProblem(content);
        }
        if (problem != null) {
            throw new SpoolException("cannot store the typed schema " + name + " in " + directory + ": " + problem);
        }
        final Path file = directory.resolve(name);
        try {
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Arrays.equals(Files.readAllBytes(file), content)) {
                return false;
            }
            // hidden and short whatever the name's length; the tools' listing leaves dot files alone
            final Path temporary = directory.resolve(".schema-" + UUID.randomUUID() + ".tmp");
            try {
                try (FileChannel channel = FileModes.createNew(temporary, fileMode, StandardOpenOption.WRITE)) {
                    final ByteBuffer buffer = ByteBuffer.wrap(content);
                    while (buffer.hasRemaining()) {
                        channel.write(buffer);
                    }
                }
                // write aside then rename: a reader of the file (dump, a source, another writer) never sees half of it
                try {
                    Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException e) {
            throw new SpoolException("cannot store the typed schema " + file + ": " + e, e);
        }
        generation.incrementSchemaGeneration();
        return true;
    }

    /**
     * @return every regular file of the directory whose name {@link #nameProblem(String)} accepts, by name in
     * order; each content read whole, or its first {@link dev.spool.queue.format.TypedExcerptDescriptor#SCHEMA_MAX_LENGTH}
     * + 1 bytes if it is longer (so {@link #contentProblem(byte[])} refuses it). A file deleted meanwhile is left out.
     * @throws SpoolException naming the directory or file that cannot be read.
     */
    public SortedMap<String, byte[]> read() {
        final SortedMap<String, byte[]> files = new TreeMap<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(directory, "*" + SCHEMA_FILE_SUFFIX)) {
            for (final Path file : listing) {
                final String name = file.getFileName().toString();
                if (nameProblem(name) == null && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                    try (InputStream in = Files.newInputStream(file)) {
                        files.put(name, in.readNBytes(SCHEMA_MAX_LENGTH + 1));
                    } catch (NoSuchFileException e) {
                        // replaced or deleted since the listing: the next generation lists it again
                    }
                }
            }
        } catch (IOException e) {
            throw new SpoolException("cannot read the typed schema files of " + directory + ": " + e, e);
        }
        return files;
    }

    /**
     * @param name a file name.
     * @return what makes it no schema file name, or null if it is one: a plain name (no path separator, no
     * {@code ..}, not hidden, no control character) ending with {@value
     * dev.spool.queue.format.TypedExcerptDescriptor#SCHEMA_FILE_SUFFIX}, of at most {@value
     * dev.spool.queue.format.TypedExcerptDescriptor#SCHEMA_FILE_NAME_MAX_LENGTH} UTF-8 bytes.
     */
    public static String nameProblem(final String name) {
        final int length = name.getBytes(StandardCharsets.UTF_8).length;
        if (length > SCHEMA_FILE_NAME_MAX_LENGTH) {
            return "name of " + length + " bytes is longer than " + SCHEMA_FILE_NAME_MAX_LENGTH;
        }
        if (name.indexOf('/') >= 0 || name.indexOf('\\') >= 0) {
            return "name \"" + name + "\" contains a path separator";
        }
        if (name.contains("..")) {
            return "name \"" + name + "\" contains \"..\"";
        }
        if (name.startsWith(".")) {
            return "name \"" + name + "\" starts with '.' (a hidden file)";
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                return "name \"" + name.replaceAll("\\p{Cntrl}", "?") + "\" contains a control character at "
                        + i;
            }
        }
        if (!name.endsWith(SCHEMA_FILE_SUFFIX) || name.length() == SCHEMA_FILE_SUFFIX.length()) {
            return "name \"" + name + "\" is not <interface name>" + SCHEMA_FILE_SUFFIX;
        }
        return null;
    }

    /**
     * @param content a file's content.
     * @return what makes it no schema, or null if it may be one: at most {@value
     * dev.spool.queue.format.TypedExcerptDescriptor#SCHEMA_MAX_LENGTH} bytes of valid UTF-8 whose first line is
     * {@value dev.spool.queue.format.TypedExcerptDescriptor#SCHEMA_HEADER}.
     */
    public static String contentProblem(final byte[] content) {
        if (content.length > SCHEMA_MAX_LENGTH) {
            return "content is longer than " + SCHEMA_MAX_LENGTH + " bytes";
        }
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        final ByteBuffer in = ByteBuffer.wrap(content);
        final CoderResult result = decoder.decode(in, CharBuffer.allocate(content.length), true);
        if (result.isError()) {
            return "content is not valid UTF-8 at byte offset " + in.position();
        }
        final byte[] header = (SCHEMA_HEADER + "\n").getBytes(StandardCharsets.UTF_8);
        if (content.length < header.length || !Arrays.equals(content, 0, header.length, header, 0, header.length)) {
            return "content does not start with the line \"" + SCHEMA_HEADER + "\"";
        }
        return null;
    }
}
