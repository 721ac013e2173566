package dev.spool.importer;

/**
 * What a run has done so far. One thread writes (the run's), any may read: each field is volatile and has one writer,
 * so a plain increment published by a volatile store is exact.
 */
final class ImportCounters {
    private volatile long documentsWritten;
    private volatile long bytesWritten;
    private volatile long metadataSkipped;
    private volatile long lastChronicleIndex = -1;
    private volatile long lastSpoolIndex = -1;
    private volatile long resumedAfterSpoolIndex = -1;
    private volatile long resumedAfterChronicleIndex = -1;

    void resumed(final long spoolIndex, final long chronicleIndex) {
        resumedAfterSpoolIndex = spoolIndex;
        resumedAfterChronicleIndex = chronicleIndex;
        lastSpoolIndex = spoolIndex;
        lastChronicleIndex = chronicleIndex;
    }

    void metadataSkipped() {
        metadataSkipped = metadataSkipped + 1;
    }

    void written(final long chronicleIndex, final long spoolIndex, final int length) {
        bytesWritten = bytesWritten + length;
        lastChronicleIndex = chronicleIndex;
        lastSpoolIndex = spoolIndex;
        documentsWritten = documentsWritten + 1;
    }

    long documentsWritten() {
        return documentsWritten;
    }

    long bytesWritten() {
        return bytesWritten;
    }

    long metadataSkippedCount() {
        return metadataSkipped;
    }

    long lastChronicleIndex() {
        return lastChronicleIndex;
    }

    long lastSpoolIndex() {
        return lastSpoolIndex;
    }

    long resumedAfterSpoolIndex() {
        return resumedAfterSpoolIndex;
    }

    long resumedAfterChronicleIndex() {
        return resumedAfterChronicleIndex;
    }
}
