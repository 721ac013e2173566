package dev.spool.queue.engine;

import dev.spool.queue.SpoolException;

import net.openhft.posix.MSyncFlag;
import net.openhft.posix.PosixAPI;

/**
 * Flushes mapped pages of a cycle file with {@code msync(2)}. Chronicle's posix layer falls back silently to a
 * no-op when its native library cannot load; {@link #checkAvailable(String)} turns that into an error at start-up
 * for any policy that relies on msync.
 */
final class Msync {
    private Msync() {
    }

    /** @throws SpoolException if msync would silently do nothing here. */
    static void checkAvailable(final String why) {
        final PosixAPI posix = PosixAPI.posix();
        if (posix.getClass().getSimpleName().startsWith("NoOp")) {
            throw new SpoolException(why + " needs msync, but the native posix layer did not load (" + posix
                    + "): its msync would do nothing. Check that jnr-ffi can load on this platform.");
        }
    }

    /**
     * Flushes {@code [fromPosition, toPosition)} of a cycle file through {@code cursor}, chunk by chunk.
     *
     * @param sync true for MS_SYNC (wait until on disk), false for MS_ASYNC (schedule write-back).
     */
    static void flush(final MappedCursor cursor, final long fromPosition, final long toPosition, final boolean sync) {
        final long pageMask = net.openhft.chronicle.core.OS.pageSize() - 1L;
        long position = fromPosition & ~pageMask;
        while (position < toPosition) {
            final long address = cursor.address(position);
            final long end = Math.min(toPosition, cursor.safeLimit());
            final int rc = PosixAPI.posix().msync(address, end - position, sync ? MSyncFlag.MS_SYNC : MSyncFlag.MS_ASYNC);
            if (rc != 0) {
                throw new SpoolException("msync of positions [" + position + ", " + end + ") of " + cursor.file().path()
                        + " failed: " + PosixAPI.posix().lastErrorStr());
            }
            position = end;
        }
    }
}
