package dev.spool.importer;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What an import did: the data documents it read and the excerpts it wrote (one each, the same bytes), their bytes,
 * its time, where it resumed, and what it skipped and why. Immutable.
 */
public final class ImportReport {
    private final Path chronicleDirectory;
    private final Path spoolDirectory;
    private final long documentsRead;
    private final long excerptsWritten;
    private final long bytesWritten;
    private final long metadataSkipped;
    private final long resumedAfterSpoolIndex;
    private final long resumedAfterChronicleIndex;
    private final long lastSpoolIndex;
    private final Duration elapsed;

    ImportReport(final Path chronicleDirectory, final Path spoolDirectory, final ImportCounters counters,
                 final Duration elapsed) {
        this.chronicleDirectory = chronicleDirectory;
        this.spoolDirectory = spoolDirectory;
        this.documentsRead = counters.documentsWritten();
        this.excerptsWritten = counters.documentsWritten();
        this.bytesWritten = counters.bytesWritten();
        this.metadataSkipped = counters.metadataSkippedCount();
        this.resumedAfterSpoolIndex = counters.resumedAfterSpoolIndex();
        this.resumedAfterChronicleIndex = counters.resumedAfterChronicleIndex();
        this.lastSpoolIndex = counters.lastSpoolIndex();
        this.elapsed = elapsed;
    }

    /** @return the Chronicle Queue read. */
    public Path chronicleDirectory() {
        return chronicleDirectory;
    }

    /** @return the Spool queue written. */
    public Path spoolDirectory() {
        return spoolDirectory;
    }

    /** @return the data documents this run read, after where it resumed. */
    public long documentsRead() {
        return documentsRead;
    }

    /** @return the excerpts this run wrote: one per data document read. */
    public long excerptsWritten() {
        return excerptsWritten;
    }

    /** @return the payload bytes of those excerpts. */
    public long bytesWritten() {
        return bytesWritten;
    }

    /**
     * @return the metadata documents this run passed and did not import: the header and index blocks Chronicle Queue
     * keeps in each cycle file, and any metadata an application wrote; Spool keeps its own.
     */
    public long metadataSkipped() {
        return metadataSkipped;
    }

    /** @return the Spool index of the last excerpt an earlier run wrote, after which this one went on; -1 if none. */
    public long resumedAfterSpoolIndex() {
        return resumedAfterSpoolIndex;
    }

    /** @return the Chronicle index of the document that excerpt holds; -1 if this run started at the beginning. */
    public long resumedAfterChronicleIndex() {
        return resumedAfterChronicleIndex;
    }

    /** @return the Spool queue's last index when the run ended; -1 if it is empty. */
    public long lastSpoolIndex() {
        return lastSpoolIndex;
    }

    /** @return how long the run took, from opening both queues to closing them. */
    public Duration elapsed() {
        return elapsed;
    }

    /** @return the bytes written per second, in MB (10^6 bytes); 0 if the run took no measurable time. */
    public double megabytesPerSecond() {
        final long nanos = elapsed.toNanos();
        return nanos == 0 ? 0 : bytesWritten * 1e3 / nanos;
    }

    /** @return the report in a few lines, as {@code spool import} prints it. */
    @Override
    public String toString() {
        return String.format("imported %s into %s%n"
                        + "  documents read:   %,d%n"
                        + "  excerpts written: %,d%n"
                        + "  bytes:            %,d (%.1f MB/s)%n"
                        + "  time:             %.3f s%n"
                        + "  resumed:          %s%n"
                        + "  skipped:          %,d metadata documents (Chronicle's cycle headers and index blocks, and"
                        + " any metadata an application wrote: Spool keeps its own)%n",
                chronicleDirectory, spoolDirectory, documentsRead, excerptsWritten, bytesWritten,
                megabytesPerSecond(), elapsed.toNanos() / 1e9,
                resumedAfterSpoolIndex < 0 ? "no, started at the first document"
                        : String.format("after Spool index 0x%x (Chronicle index 0x%x)", resumedAfterSpoolIndex,
                        resumedAfterChronicleIndex), metadataSkipped);
    }
}
