package dev.spool.queue.internal;

import dev.spool.queue.SpoolException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

/**
 * The permissions of the files and directories a queue or ring creates: the builders' modes, checked at
 * {@code build()}, and applied exactly whatever the umask (a file is created with no more than its mode, then set
 * to it). The lock file of process slots gets its own mode, {@link #lockMode(Set)}: only those who may write the
 * data may open it, because a process that can open it can hold a byte-range lock and so pass for a live writer.
 */
public final class FileModes {
    private FileModes() {
    }

    /**
     * @param option   the builder option, for the message.
     * @param fileMode a mode for data files.
     * @return {@code fileMode}, copied.
     * @throws SpoolException unless the owner may read and write, and nobody may execute.
     */
    public static Set<PosixFilePermission> checkFileMode(final String option, final Set<PosixFilePermission> fileMode) {
        if (fileMode == null) {
            throw new SpoolException(option + "=null: give a mode such as rw-r-----");
        }
        final Set<PosixFilePermission> mode = copy(fileMode);
        if (!mode.contains(PosixFilePermission.OWNER_READ) || !mode.contains(PosixFilePermission.OWNER_WRITE)) {
            throw new SpoolException(option + "=" + PosixFilePermissions.toString(mode)
                    + " must let the owner read and write: the creating process maps the files read-write");
        }
        if (mode.contains(PosixFilePermission.OWNER_EXECUTE) || mode.contains(PosixFilePermission.GROUP_EXECUTE)
                || mode.contains(PosixFilePermission.OTHERS_EXECUTE)) {
            throw new SpoolException(option + "=" + PosixFilePermissions.toString(mode)
                    + " must not let anyone execute a data file");
        }
        return mode;
    }

    /**
     * @param option        the builder option, for the message.
     * @param directoryMode a mode for directories.
     * @return {@code directoryMode}, copied.
     * @throws SpoolException unless the owner may read, write and search.
     */
    public static Set<PosixFilePermission> checkDirectoryMode(final String option,
                                                              final Set<PosixFilePermission> directoryMode) {
        if (directoryMode == null) {
            throw new SpoolException(option + "=null: give a mode such as rwxr-x---");
        }
        final Set<PosixFilePermission> mode = copy(directoryMode);
        if (!mode.containsAll(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_EXECUTE))) {
            throw new SpoolException(option + "=" + PosixFilePermissions.toString(mode)
                    + " must let the owner read, write and search (rwx): it creates and deletes files there");
        }
        return mode;
    }

    /**
     * @param fileMode the mode of the data files.
     * @return the mode of a lock file beside them: read and write for each class (owner, group, others) that may
     * write the data, nothing for the others; e.g. {@code rw-r-----} gives {@code rw-------}.
     */
    public static Set<PosixFilePermission> lockMode(final Set<PosixFilePermission> fileMode) {
        final Set<PosixFilePermission> mode = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        if (fileMode.contains(PosixFilePermission.GROUP_WRITE)) {
            mode.add(PosixFilePermission.GROUP_READ);
            mode.add(PosixFilePermission.GROUP_WRITE);
        }
        if (fileMode.contains(PosixFilePermission.OTHERS_WRITE)) {
            mode.add(PosixFilePermission.OTHERS_READ);
            mode.add(PosixFilePermission.OTHERS_WRITE);
        }
        return mode;
    }

    /**
     * Creates a new file with {@code mode} exactly: the umask can only take permissions away from the mode it is
     * created with, so no other user can open it before its mode is set.
     *
     * @param path    a file that does not exist.
     * @param mode    its permissions.
     * @param options open options besides {@link StandardOpenOption#CREATE_NEW}.
     * @return the open channel.
     * @throws IOException if it exists already, or cannot be created.
     */
    public static FileChannel createNew(final Path path, final Set<PosixFilePermission> mode,
                                        final OpenOption... options) throws IOException {
        final Set<OpenOption> open = new HashSet<>(Arrays.asList(options));
        open.add(StandardOpenOption.CREATE_NEW);
        final FileChannel channel = FileChannel.open(path, open, asAttribute(mode));
        try {
            Files.setPosixFilePermissions(path, mode);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    /**
     * Creates a directory and its missing parents; the ones created here get {@code mode} exactly.
     *
     * @param directory the directory.
     * @param mode      the permissions of the directories created.
     * @throws SpoolException if one cannot be created.
     */
    public static void createDirectories(final Path directory, final Set<PosixFilePermission> mode) {
        final Path absolute = directory.toAbsolutePath().normalize();
        if (Files.isDirectory(absolute)) {
            return;
        }
        final Path parent = absolute.getParent();
        if (parent != null) {
            createDirectories(parent, mode);
        }
        try {
            Files.createDirectory(absolute, asAttribute(mode));
            Files.setPosixFilePermissions(absolute, mode);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(absolute)) {
                throw new SpoolException("cannot create directory " + absolute + ": a file of that name exists", e);
            }
        } catch (IOException e) {
            throw new SpoolException("cannot create directory " + absolute + ": " + e.getMessage(), e);
        }
    }

    private static FileAttribute<Set<PosixFilePermission>> asAttribute(final Set<PosixFilePermission> mode) {
        return PosixFilePermissions.asFileAttribute(mode);
    }

    private static Set<PosixFilePermission> copy(final Set<PosixFilePermission> mode) {
        return mode.isEmpty() ? EnumSet.noneOf(PosixFilePermission.class) : EnumSet.copyOf(mode);
    }
}
