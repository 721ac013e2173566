package dev.spool.importer;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.internal.QueueInternals;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;
import org.agrona.concurrent.EpochClock;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.NavigableSet;

/**
 * One run of an import or a bridge: a Chronicle Queue opened read-only with a tailer, a Spool queue with an appender
 * at chosen indices, and where the run is in both. Each Chronicle data document becomes one Spool excerpt with the
 * same bytes at the next index of the Spool cycle its Chronicle cycle maps to ({@link CycleMapping}), so the Spool
 * queue's content alone says how far an earlier run got: its last excerpt is document {@code sequence} of the
 * Chronicle cycles that map to its cycle, counted in order. A write is atomic (an excerpt is there or not), so a run
 * killed at any point resumes exactly after the last excerpt written; before it does, it checks that excerpt's bytes
 * against the Chronicle document it maps to, and refuses a Spool queue that is not an import of this Chronicle
 * queue. Belongs to one thread.
 */
final class ImportSession implements AutoCloseable {
    private final SingleChronicleQueue chronicle;
    private final net.openhft.chronicle.queue.ExcerptTailer reader;
    private final SpoolQueue spool;
    private final IndexedAppender appender;
    private final CycleMapping mapping;
    private final StampClock stamps;
    private final EpochClock wallClock;
    private final net.openhft.chronicle.queue.RollCycle chronicleRoll;
    private final RollCycle spoolRoll;
    private final ImportCounters counters;
    /** The typed mapping, or null to copy each document's bytes. */
    private final TypedCopier typed;
    private byte[] buffer = new byte[4096];
    private long spoolCycle = -1;
    private long nextSequence;

    ImportSession(final SingleChronicleQueue chronicle, final SpoolQueue spool, final CycleMapping mapping,
                  final StampClock stamps, final EpochClock wallClock, final ImportCounters counters,
                  final Class<?> events) {
        this.chronicle = chronicle;
        this.spool = spool;
        this.mapping = mapping;
        this.stamps = stamps;
        this.wallClock = wallClock;
        this.counters = counters;
        this.chronicleRoll = chronicle.rollCycle();
        this.spoolRoll = spool.rollCycle();
        this.reader = chronicle.createTailer();
        IndexedAppender created = null;
        try {
            final QueueInternals internals = spool.unwrap(QueueInternals.class);
            created = internals.createIndexedAppender();
            this.appender = created;
            this.typed = events == null ? null : new TypedCopier(reader, events, internals.schemaFiles());
            resume();
        } catch (RuntimeException e) {
            if (created != null) {
                created.close();
            }
            reader.close();
            throw e;
        }
    }

    /**
     * Positions the Chronicle tailer after the document the Spool queue's last excerpt holds, having checked that it
     * does; at the start if the Spool queue is empty.
     */
    private void resume() {
        final long last = spool.lastIndex();
        if (last < 0) {
            reader.toStart();
            return;
        }
        spoolCycle = spoolRoll.toCycle(last);
        nextSequence = spoolRoll.toSequence(last) + 1;
        final long chronicleIndex = chronicleIndexOf(spoolCycle, nextSequence - 1, last);
        final byte[] expected = spoolExcerpt(last);
        if (!reader.moveToIndex(chronicleIndex)) {
            throw notAnImport(last, chronicleIndex, "Chronicle has no document there");
        }
        if (typed != null) {
            final byte[] actual = typed.readOne() && typed.calls() == 1 ? typed.encoded() : null;
            if (!Arrays.equals(expected, actual)) {
                throw notAnImport(last, chronicleIndex, actual == null ? "that document is not one call of "
                        + typed.events().getName() : "its " + expected.length + " bytes differ from the "
                        + actual.length + " that document's call encodes to");
            }
            counters.resumed(last, chronicleIndex);
            return;
        }
        try (DocumentContext document = reader.readingDocument()) {
            if (!document.isPresent() || document.index() != chronicleIndex) {
                throw notAnImport(last, chronicleIndex, "Chronicle has no document there");
            }
            final Bytes<?> bytes = document.wire().bytes();
            final int length = Math.toIntExact(bytes.readRemaining());
            final byte[] actual = new byte[length];
            bytes.read(actual, 0, length);
            if (!Arrays.equals(expected, actual)) {
                throw notAnImport(last, chronicleIndex, "its " + expected.length + " bytes differ from the document's "
                        + length);
            }
        }
        counters.resumed(last, chronicleIndex);
    }

    /** @return the Chronicle index of document {@code sequence} of the Chronicle cycles that map to {@code cycle}. */
    private long chronicleIndexOf(final long cycle, final long sequence, final long spoolIndex) {
        long remaining = sequence;
        final NavigableSet<Long> cycles = chronicle.listCyclesBetween(chronicle.firstCycle(), chronicle.lastCycle());
        for (final long chronicleCycle : cycles) {
            final long mapped = mapping.spoolCycle(chronicleCycle);
            if (mapped < cycle) {
                continue;
            }
            if (mapped > cycle) {
                break;
            }
            final long documents = reader.excerptsInCycle((int) chronicleCycle);
            if (remaining < documents) {
                return chronicleRoll.toIndex((int) chronicleCycle, remaining);
            }
            remaining -= documents;
        }
        throw notAnImport(spoolIndex, -1, "the Chronicle cycles that map to its Spool cycle " + cycle + " hold only "
                + (sequence - remaining) + " documents");
    }

    private byte[] spoolExcerpt(final long spoolIndex) {
        try (ExcerptTailer tailer = spool.createTailer()) {
            if (!tailer.moveToIndex(spoolIndex)) {
                throw new SpoolException("cannot read the last excerpt, index 0x" + Long.toHexString(spoolIndex)
                        + ", of Spool queue " + spool.directory());
            }
            final byte[][] copy = new byte[1][];
            tailer.read((store, offset, length, index) -> {
                copy[0] = new byte[length];
                store.read(offset, copy[0], 0, length);
            });
            return copy[0];
        }
    }

    private SpoolException notAnImport(final long spoolIndex, final long chronicleIndex, final String why) {
        return new SpoolException("Spool queue " + spool.directory() + " is not an import of Chronicle Queue "
                + chronicle.file() + ": its last excerpt, index 0x" + Long.toHexString(spoolIndex) + ", maps to "
                + (chronicleIndex < 0 ? "no Chronicle document" : "Chronicle index 0x" + Long.toHexString(chronicleIndex))
                + ", but " + why + "; import into a new directory, or into the queue this Chronicle Queue was"
                + " imported to");
    }

    /**
     * Copies the documents the Chronicle queue holds now, up to {@code limit}, skipping metadata documents.
     *
     * @param limit the most data documents to copy.
     * @return the number copied; 0 if there was none to read.
     */
    int copy(final int limit) {
        if (typed != null) {
            return copyTyped(limit);
        }
        int copied = 0;
        while (copied < limit) {
            try (DocumentContext document = reader.readingDocument(true)) {
                if (!document.isPresent()) {
                    return copied;
                }
                if (document.isMetaData()) {
                    counters.metadataSkipped();
                    continue;
                }
                write(document);
                copied++;
            }
        }
        return copied;
    }

    private int copyTyped(final int limit) {
        int copied = 0;
        while (copied < limit) {
            final boolean read;
            try {
                read = typed.readOne();
            } catch (RuntimeException e) {
                // Chronicle's method reader could not decode the document, or it held several calls
                throw notACall("after index 0x" + Long.toHexString(counters.lastChronicleIndex()),
                        " (" + e.getMessage() + ")", e);
            }
            if (!read) {
                return copied;
            }
            final long chronicleIndex = reader.lastReadIndex();
            if (typed.calls() != 1) {
                throw notACall("at index 0x" + Long.toHexString(chronicleIndex), "", null);
            }
            final int length = typed.length();
            final long index = nextIndex(chronicleRoll.toCycle(chronicleIndex), chronicleIndex);
            try {
                appender.appendAt(index, typed.bytes(), 0, length);
            } catch (SpoolException e) {
                throw cannotWrite(chronicleIndex, length, index, e);
            }
            nextSequence++;
            counters.written(chronicleIndex, index, length);
            copied++;
        }
        return copied;
    }

    private SpoolException notACall(final String where, final String why, final RuntimeException cause) {
        return new SpoolException("Chronicle Queue " + chronicle.file() + " document " + where + " is not a call of "
                + typed.events().getName() + why + ": the typed import stops before it; everything before it is"
                + " written, and an import without the typed mapping, into another directory, copies the bytes of"
                + " every document", cause);
    }

    private void write(final DocumentContext document) {
        final long chronicleIndex = document.index();
        final Bytes<?> bytes = document.wire().bytes();
        final int length = Math.toIntExact(bytes.readRemaining());
        if (buffer.length < length) {
            buffer = new byte[Math.max(length, buffer.length * 2)];
        }
        bytes.read(buffer, 0, length);
        final long chronicleCycle = chronicleRoll.toCycle(chronicleIndex);
        final long index = nextIndex(chronicleCycle, chronicleIndex);
        try {
            appender.appendAt(index, buffer, 0, length);
        } catch (SpoolException e) {
            throw cannotWrite(chronicleIndex, length, index, e);
        }
        nextSequence++;
        counters.written(chronicleIndex, index, length);
    }

    private SpoolException cannotWrite(final long chronicleIndex, final int length, final long index,
                                       final SpoolException e) {
        return new SpoolException("cannot write Chronicle Queue " + chronicle.file() + " document at index 0x"
                + Long.toHexString(chronicleIndex) + " (" + length + " bytes) to Spool queue " + spool.directory()
                + " at index 0x" + Long.toHexString(index) + ": " + e.getMessage(), e);
    }

    /** @return the Spool index of the next document of {@code chronicleCycle}, its index time set. */
    private long nextIndex(final long chronicleCycle, final long chronicleIndex) {
        final long cycle = mapping.spoolCycle(chronicleCycle);
        if (cycle != spoolCycle) {
            if (cycle < spoolCycle) {
                throw new SpoolException("Chronicle Queue " + chronicle.file() + " document at index 0x"
                        + Long.toHexString(chronicleIndex) + " maps to Spool cycle " + cycle + ", before cycle "
                        + spoolCycle + " written already");
            }
            spoolCycle = cycle;
            nextSequence = 0;
        }
        stamps.set(mapping.indexTime(chronicleCycle, wallClock.time()));
        return spoolRoll.toIndex(spoolCycle, nextSequence);
    }

    /** @return what this run has done so far. */
    ImportCounters counters() {
        return counters;
    }

    /** @return the Chronicle queue's directory. */
    Path chronicleDirectory() {
        return chronicle.file().toPath();
    }

    /**
     * @return the data documents of the Chronicle queue after the last one copied, as it holds them now; not for a
     * hot path (it walks the index of each cycle after the one being read).
     */
    long lag() {
        final long last = chronicle.lastIndex();
        final long read = counters.lastChronicleIndex();
        if (last < 0 || last <= read) {
            return 0;
        }
        if (read < 0) {
            return chronicle.countExcerpts(chronicle.firstIndex(), last) + 1;
        }
        return chronicle.countExcerpts(read, last);
    }

    @Override
    public void close() {
        try {
            appender.close();
        } finally {
            reader.close();
        }
    }
}
