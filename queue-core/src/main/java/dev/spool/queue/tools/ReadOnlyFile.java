package dev.spool.queue.tools;

import dev.spool.queue.SpoolException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A queue file read with positional reads through a small window, for the tools: nothing is mapped, so no byte
 * pattern and no truncated file can fault the JVM, and nothing is written, not even the file's length (mapping a
 * cycle file through the engine grows it to a whole chunk).
 * <p>
 * A live writer grows a cycle file a chunk at a time, before it writes there, so the length is taken when the file
 * is opened and taken again only when a check finds a position past it. Reads outside the length are the caller's
 * bug and fail with {@link SpoolException}; callers check every length they took from the file with
 * {@link #contains(long, long)} before reading.
 */
final class ReadOnlyFile implements AutoCloseable {
    /** Large enough that a walk over small excerpts makes one system call per few hundred headers. */
    private static final int WINDOW_LENGTH = 64 * 1024;
    /** Reads longer than this bypass the window rather than evict it. */
    private static final int WINDOWED_READ_LIMIT = 4096;

    private final Path path;
    private final FileChannel channel;
    private long length;
    private final ByteBuffer window = ByteBuffer.allocate(WINDOW_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private long windowStart;
    private int windowLength;

    private ReadOnlyFile(final Path path, final FileChannel channel, final long length) {
        this.path = path;
        this.channel = channel;
        this.length = length;
    }

    /**
     * @param path the file.
     * @return the file, open for reading.
     * @throws SpoolException naming the file if it cannot be opened.
     */
    static ReadOnlyFile open(final Path path) {
        FileChannel channel = null;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
            return new ReadOnlyFile(path, channel, channel.size());
        } catch (IOException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw new SpoolException("cannot read " + path + ": " + e, e);
        }
    }

    Path path() {
        return path;
    }

    /** @return the length of the file when it was last taken. */
    long length() {
        return length;
    }

    /** @return true if {@code count} bytes from {@code position} lie inside the file, which may have grown. */
    boolean contains(final long position, final long count) {
        if (position < 0 || count < 0) {
            return false;
        }
        if (count <= length - position) {
            return true;
        }
        try {
            // never shrinks: a file that shrinks under a reader is reported by the read that finds it
            length = Math.max(length, channel.size());
        } catch (IOException e) {
            throw new SpoolException("cannot read the length of " + path + ": " + e, e);
        }
        return count <= length - position;
    }

    int readInt(final long position) {
        return window(position, Integer.BYTES).getInt((int) (position - windowStart));
    }

    long readLong(final long position) {
        return window(position, Long.BYTES).getLong((int) (position - windowStart));
    }

    /** @return the long at {@code position} as the file holds it now, not as the window copied it. */
    long readLongNow(final long position) {
        windowLength = 0;
        return readLong(position);
    }

    /** Copies {@code count} bytes from {@code position} into {@code dst}. */
    void read(final long position, final byte[] dst, final int offset, final int count) {
        check(position, count);
        if (count <= WINDOWED_READ_LIMIT) {
            window(position, count).get((int) (position - windowStart), dst, offset, count);
            return;
        }
        readFully(ByteBuffer.wrap(dst, offset, count).slice(), position);
    }

    /** @return {@code count} bytes from {@code position}, little-endian, in a new buffer. */
    ByteBuffer read(final long position, final int count) {
        final byte[] bytes = new byte[count];
        read(position, bytes, 0, count);
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private ByteBuffer window(final long position, final int count) {
        check(position, count);
        if (position < windowStart || position + count > windowStart + windowLength) {
            // start the window a little before the position: index checks read backwards as well as forwards
            final long pageStart = position & -4096L;
            final long wanted = position + count <= pageStart + WINDOW_LENGTH ? pageStart : position;
            final long start = Math.max(0, Math.min(wanted, length - WINDOW_LENGTH));
            final int fill = (int) Math.min(WINDOW_LENGTH, length - start);
            window.clear().limit(fill);
            readFully(window, start);
            windowStart = start;
            windowLength = fill;
        }
        return window;
    }

    /** Fills {@code buffer}, from its position 0, with the bytes from {@code position}. */
    private void readFully(final ByteBuffer buffer, final long position) {
        try {
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, position + buffer.position()) < 0) {
                    throw new SpoolException("file shrank while being read: end of file at position="
                            + (position + buffer.position()) + ", length was " + length + " when opened, in " + path);
                }
            }
        } catch (IOException e) {
            throw new SpoolException("cannot read position=" + position + " of " + path + ": " + e, e);
        }
    }

    private void check(final long position, final int count) {
        if (!contains(position, count)) {
            throw new SpoolException("read of " + count + " bytes at position=" + position + " is outside "
                    + path + " (length=" + length + ")");
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new SpoolException("cannot close " + path + ": " + e, e);
        }
    }
}
