package dev.spool.queue;

/** Receives the sync markers a tailer passes: proof that everything up to an index reached the disk. */
@FunctionalInterface
public interface SyncMarkerHandler {
    /**
     * Called as the tailer moves past a sync marker.
     *
     * @param syncedIndex every excerpt up to this index was on disk when the marker was written.
     * @param timeMillis  when the sync finished, in ms since 1970.
     */
    void onSyncMarker(long syncedIndex, long timeMillis);
}
