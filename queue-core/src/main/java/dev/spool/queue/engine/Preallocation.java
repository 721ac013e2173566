package dev.spool.queue.engine;

import dev.spool.queue.SpoolException;

import net.openhft.posix.PosixAPI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reserves disk blocks for a range of a cycle file with {@code fallocate(2)} before a writer maps it. Chronicle
 * grows files with {@code setLength}, which makes them sparse: a store into a page whose block cannot be allocated
 * because the disk is full kills the JVM with SIGBUS. Reserving first turns a full disk into an exception before
 * anything is written.
 */
final class Preallocation {
    private static final Logger LOG = LoggerFactory.getLogger(Preallocation.class);
    private static final Field FD = fdField();
    private static volatile boolean warned;

    private Preallocation() {
    }

    private static Field fdField() {
        try {
            final Field field = FileDescriptor.class.getDeclaredField("fd");
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * @throws SpoolException naming the file and range if the disk has no room for it.
     */
    static void reserve(final Path path, final RandomAccessFile file, final long fromPosition, final long toPosition) {
        final PosixAPI posix = PosixAPI.posix();
        final int fd;
        try {
            fd = FD == null ? -1 : FD.getInt(file.getFD());
        } catch (IOException | IllegalAccessException e) {
            warnOnce("cannot read the file descriptor of " + path + ": " + e);
            return;
        }
        if (fd < 0 || posix.getClass().getSimpleName().startsWith("NoOp")) {
            warnOnce("cannot reserve disk space ahead of writes (no native fallocate): a full disk may crash the JVM");
            return;
        }
        final int rc = posix.fallocate(fd, 0, fromPosition, toPosition - fromPosition);
        if (rc == 0) {
            return;
        }
        // JNR's errno can be overwritten by the time it is read: ask the file system whether the space is there
        final long needed = toPosition - fromPosition;
        final long usable;
        try {
            usable = Files.getFileStore(path).getUsableSpace();
        } catch (IOException e) {
            throw new SpoolException("fallocate of positions [" + fromPosition + ", " + toPosition + ") of " + path
                    + " failed and the file system cannot be asked why: " + e.getMessage(), e);
        }
        if (usable < needed) {
            throw new SpoolException("disk full: cannot reserve positions [" + fromPosition + ", " + toPosition + ") of "
                    + path + " (" + usable + " bytes usable); nothing was written there and what was written before is intact");
        }
        warnOnce("fallocate of " + path + " failed (" + posix.lastErrorStr() + ") with " + usable
                + " bytes usable: writing without reserved space, a full disk may crash the JVM");
    }

    private static void warnOnce(final String message) {
        if (!warned) {
            warned = true;
            LOG.warn(message);
        }
    }
}
