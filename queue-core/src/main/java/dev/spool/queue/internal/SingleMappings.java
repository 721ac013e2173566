package dev.spool.queue.internal;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;

/**
 * Unmapping a file mapped with {@link MappedFile#ofSingle}: the metadata file and the ring's file.
 * <p>
 * Chronicle-Bytes' single mapped file creates its one store with the file itself as an owner, and releases that
 * reference only when {@code -DmappedFile.retain=true}. Without the release here every open and close of a queue or
 * a ring left one mapping behind (in {@code /proc/self/maps}) until {@code vm.max_map_count} stopped the process, and
 * a deleted queue kept its disk space.
 */
public final class SingleMappings {
    private SingleMappings() {
    }

    /**
     * Releases the mapped file and the reference its store keeps for it; the caller has released its own.
     *
     * @param mappedFile a file from {@link MappedFile#ofSingle}.
     * @param store      its store.
     */
    public static void releaseLast(final MappedFile mappedFile, final MappedBytesStore store) {
        mappedFile.releaseLast();
        if (store.refCount() > 0) {
            store.release(mappedFile);
        }
    }
}
