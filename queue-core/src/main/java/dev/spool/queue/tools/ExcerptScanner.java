package dev.spool.queue.tools;

import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;

import static dev.spool.queue.format.ExcerptDescriptor.*;

/**
 * Walks the excerpts of one cycle file by their headers (layout: {@link ExcerptDescriptor}), for the tools. It
 * trusts no byte: every header is classified before its length is used, and every length is checked against the
 * queue's limits and the end of the file before the walk moves past it. The walk stops at the first header it
 * cannot move past, and says why.
 * <pre>{@code
 * ExcerptScanner scanner = new ExcerptScanner(file, maxMessageLength, blockEntries);
 * for (ExcerptScanner.Kind kind = scanner.next(); !kind.isEnd(); kind = scanner.next()) { ... }
 * }</pre>
 */
final class ExcerptScanner {
    /** What the header at the walk's position is. */
    enum Kind {
        /** A data excerpt: {@link #sequence()} is its sequence. */
        DATA("data", false),
        /** A metadata excerpt of type {@link ExcerptDescriptor#TYPE_INDEX_BLOCK}. */
        INDEX_BLOCK("metadata index-block", false),
        /** A metadata excerpt of type {@link ExcerptDescriptor#TYPE_PADDING}, or too short to have a type. */
        PADDING("metadata padding", false),
        /** A metadata excerpt of type {@link ExcerptDescriptor#TYPE_SYNC_MARKER}. */
        SYNC_MARKER("metadata sync-marker", false),
        /** A metadata excerpt of a type this build does not know: {@link #metadataType()}. */
        UNKNOWN_METADATA("metadata unknown-type", false),
        /** Header 0: nothing has been written here yet. */
        EMPTY("empty", true),
        /** The end-of-cycle marker. */
        END_OF_CYCLE("end-of-cycle", true),
        /** A claim that was never committed: a writer is writing, or died while it held the claim. */
        IN_PROGRESS("in-progress", true),
        /** A header no writer produces. */
        MALFORMED("malformed", true),
        /** A header whose length exceeds the queue's limit for its kind: {@link #limit()}. */
        TOO_LONG("too-long", true),
        /** A header whose excerpt runs past the end of the file. */
        PAST_END_OF_FILE("past-end-of-file", true),
        /** The file ends where a header should be. */
        NO_HEADER("no-header", true);

        private final String label;
        private final boolean end;

        Kind(final String label, final boolean end) {
            this.label = label;
            this.end = end;
        }

        /** @return the word the tools print for it. */
        String label() {
            return label;
        }

        /** @return true if the walk cannot move past it. */
        boolean isEnd() {
            return end;
        }
    }

    private final ReadOnlyFile file;
    private final int dataLimit;
    private final int metadataLimit;
    private long position = CycleDescriptor.DATA_OFFSET;
    private Kind kind;
    private int header;
    private int metadataType;
    private long sequence = -1;
    private long dataCount;

    /**
     * @param file              the cycle file, at least {@link CycleDescriptor#DATA_OFFSET} long.
     * @param maxMessageLength  the queue's longest data payload.
     * @param indexBlockEntries the cycle's entries per index block, which sets the longest metadata payload.
     */
    ExcerptScanner(final ReadOnlyFile file, final int maxMessageLength, final int indexBlockEntries) {
        this.file = file;
        this.dataLimit = maxMessageLength;
        this.metadataLimit = Math.max(maxMessageLength, CycleDescriptor.blockPayloadLength(indexBlockEntries,
                file.readInt(CycleDescriptor.FEATURES_OFFSET)));
    }

    /**
     * Moves to the next excerpt; after an end, stays there.
     *
     * @return what is there.
     */
    Kind next() {
        if (kind != null) {
            if (kind.isEnd()) {
                return kind;
            }
            position += alignedLength(ExcerptDescriptor.length(header));
        }
        kind = classify();
        return kind;
    }

    private Kind classify() {
        if (!file.contains(position, HEADER_LENGTH)) {
            header = 0;
            return Kind.NO_HEADER;
        }
        header = file.readInt(position);
        if (header == 0) {
            return Kind.EMPTY;
        }
        if (isEndOfCycle(header)) {
            return Kind.END_OF_CYCLE;
        }
        if (!isWellFormed(header)) {
            return Kind.MALFORMED;
        }
        if (isInProgress(header)) {
            return Kind.IN_PROGRESS;
        }
        if (ExcerptDescriptor.length(header) > limit()) {
            return Kind.TOO_LONG;
        }
        if (!file.contains(position, alignedLength(ExcerptDescriptor.length(header)))) {
            return Kind.PAST_END_OF_FILE;
        }
        if (isData(header)) {
            sequence = dataCount++;
            return Kind.DATA;
        }
        if (ExcerptDescriptor.length(header) < METADATA_TYPE_LENGTH) {
            metadataType = TYPE_PADDING;
            return Kind.PADDING;
        }
        metadataType = file.readInt(position + HEADER_LENGTH + METADATA_TYPE_OFFSET);
        if (metadataType == TYPE_INDEX_BLOCK) {
            return Kind.INDEX_BLOCK;
        }
        if (metadataType == TYPE_SYNC_MARKER && ExcerptDescriptor.length(header) == SYNC_MARKER_LENGTH) {
            return Kind.SYNC_MARKER;
        }
        return metadataType == TYPE_PADDING ? Kind.PADDING : Kind.UNKNOWN_METADATA;
    }

    /** @return the position of the current header. */
    long position() {
        return position;
    }

    /** @return the current header. */
    int header() {
        return header;
    }

    /** @return the payload length the current header states. */
    int length() {
        return ExcerptDescriptor.length(header);
    }

    /** @return the longest payload the current header's kind may have. */
    int limit() {
        return isMetadata(header) ? metadataLimit : dataLimit;
    }

    /** @return the sequence of the current (or last) data excerpt, or -1 before the first. */
    long sequence() {
        return sequence;
    }

    /** @return data excerpts walked so far, the current one included. */
    long dataCount() {
        return dataCount;
    }

    /** @return the type of the current metadata excerpt. */
    int metadataType() {
        return metadataType;
    }
}
