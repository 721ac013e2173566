package dev.spool.queue.tools;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import static dev.spool.queue.format.ExcerptDescriptor.ALIGNMENT;
import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_LENGTH;
import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.HEADER_LENGTH;
import static dev.spool.queue.format.ExcerptDescriptor.describe;

/**
 * Checks every byte of a queue that has a meaning, with plain reads of the files: it shares no code with the
 * appender and the tailer beyond the descriptors, because they are what it checks.
 * <p>
 * Damage is what no writer produces, or what makes a reader miss or misread data: a bad magic, version or
 * setting, a malformed or over-long header, an excerpt past the end of its file, an index entry that points
 * anywhere but at the data excerpt of its sequence. Warnings are what a live writer or a dead one legitimately
 * leaves, which the next append repairs: a torn tail (an in-progress claim), index entries not yet written, an
 * index block without a root entry, a held write lock.
 * <p>
 * A queue can be verified while a writer appends to it: the write hints and the root index are read before the
 * walk, so everything they point at is there to be walked; a file's length is taken again when the walk reaches it
 * (the writer grows it a chunk ahead); and what only a live writer can explain (an entry past the walked tail, hints
 * that disagree) is damage only if the writer's position hint has not moved meanwhile.
 * <p>
 * Every problem is printed as {@code DAMAGE <file> position=<p>: <what>} or {@code WARNING <file> position=<p>:
 * <what>}; a queue without damage ends with {@code OK: <n> cycles, <m> excerpts}.
 */
final class QueueVerifier {

    private final QueueFiles queue;
    private final PrintStream out;
    private final Findings findings;
    private long excerpts;
    /** Settings checked against the metadata file; 0 (or null) when the metadata's own value is bad. */
    private RollCycle rollCycle;
    private int indexSpacing;
    private int indexBlockEntries;
    private int maxMessageLength;
    /** Whether data excerpts carry a CRC32C, which the walk checks. */
    private boolean checksums;
    /** Bytes of a data excerpt's body before its payload, as the queue's features have them. */
    private int prefixLength;
    private final CRC32C crc = new CRC32C();

    /** What one cycle file holds, for the checks across files. */
    private record CycleSummary(QueueFiles.CycleFileName name, long dataCount, boolean ended, long tail) {
    }

    QueueVerifier(final QueueFiles queue, final PrintStream out) {
        this.queue = queue;
        this.out = out;
        this.findings = new Findings(out);
    }

    /** @return true if no damage was found; warnings do not count. */
    boolean verify() {
        verifyMetadata();
        final List<CycleSummary> cycles = new ArrayList<>();
        if (rollCycle != null) {
            final List<Path> ignored = new ArrayList<>();
            final List<QueueFiles.CycleFileName> names = queue.cycleFiles(rollCycle, ignored);
            for (final Path path : ignored) {
                warning(path, 0, path.getFileName().toString().endsWith(".tmp")
                        ? "temporary file of a create that did not finish: the queue ignores it"
                        : "not a cycle file of roll cycle " + rollCycle + ": the queue ignores it");
            }
            // as copied before the walks: a cycle a live writer starts during them is not counted as started
            final long highest = queue.highestCycle();
            for (int i = 0; i < names.size(); i++) {
                final CycleSummary summary = verifyCycle(names.get(i));
                if (summary != null) {
                    // a later file that no writer has started (made ahead of its roll by a pretoucher) ends nothing;
                    // an empty cycle the writers skipped (made ahead of a roll that came a cycle later) needs no end
                    if (!summary.ended() && i < names.size() - 1 && names.get(i + 1).cycle() <= highest
                            && summary.dataCount() > 0) {
                        warning(summary.name().path(), summary.tail(), "cycle " + summary.name().cycle()
                                + " is followed by cycle " + names.get(i + 1).cycle() + " but has no end-of-cycle marker:"
                                + " its writer did not end it; tailers move on when they find a later cycle");
                    }
                    cycles.add(summary);
                }
            }
            verifyCycleRange(names, cycles);
        } else {
            out.println("cannot check cycle files: the roll cycle, which names them, is unknown");
        }
        verifyNamedTailers(cycles);
        final int damage = findings.damageCount();
        if (damage == 0) {
            out.println("OK: " + cycles.size() + " cycles, " + excerpts + " excerpts");
            return true;
        }
        out.println("DAMAGED: " + damage + (damage == 1 ? " problem" : " problems") + " found; " + cycles.size() + " cycles, "
                + excerpts + " excerpts walked");
        return false;
    }

    private void verifyMetadata() {
        final Path path = queue.metadataPath();
        if (queue.metadataLength() < MetadataDescriptor.FILE_LENGTH) {
            damage(path, queue.metadataLength(), "metadata file truncated: length=" + queue.metadataLength()
                    + ", expected " + MetadataDescriptor.FILE_LENGTH + " (the rest reads as zeros here)");
        }
        final int magic = queue.readInt(MetadataDescriptor.MAGIC_OFFSET);
        if (magic != MetadataDescriptor.MAGIC) {
            damage(path, MetadataDescriptor.MAGIC_OFFSET, String.format("not a Spool metadata file: magic=0x%08x, expected 0x%08x",
                    magic, MetadataDescriptor.MAGIC));
        }
        final int version = queue.readInt(MetadataDescriptor.VERSION_OFFSET);
        if (version != MetadataDescriptor.VERSION && version != MetadataDescriptor.VERSION_WITH_FEATURES) {
            damage(path, MetadataDescriptor.VERSION_OFFSET, "unsupported metadata version=" + version + ", this build reads "
                    + MetadataDescriptor.VERSION + " and " + MetadataDescriptor.VERSION_WITH_FEATURES);
        }
        final int features = version == MetadataDescriptor.VERSION_WITH_FEATURES
                ? queue.readInt(MetadataDescriptor.FEATURES_OFFSET) : 0;
        if ((features & ~MetadataDescriptor.KNOWN_FEATURES) != 0) {
            damage(path, MetadataDescriptor.FEATURES_OFFSET, String.format(
                    "features=0x%x include 0x%x, which this build does not know: the queue was created by a newer Spool",
                    features, features & ~MetadataDescriptor.KNOWN_FEATURES));
        }
        checksums = (features & MetadataDescriptor.FEATURE_CRC32C) != 0;
        prefixLength = ExcerptDescriptor.bodyPrefixLength(features);
        rollCycle = queue.rollCycle();
        if (rollCycle == null) {
            damage(path, MetadataDescriptor.ROLL_CYCLE_OFFSET, "unknown roll cycle id=" + queue.readInt(MetadataDescriptor.ROLL_CYCLE_OFFSET));
        }
        final long chunkLength = queue.chunkLength();
        final boolean chunkOk = QueueFiles.isPowerOfTwo(chunkLength) && chunkLength >= SpoolQueueBuilder.MIN_CHUNK_LENGTH;
        if (!chunkOk) {
            damage(path, MetadataDescriptor.CHUNK_LENGTH_OFFSET, "chunk length=" + chunkLength + " is not a power of two of at least "
                    + SpoolQueueBuilder.MIN_CHUNK_LENGTH);
        }
        final int spacing = queue.indexSpacing();
        if (isPowerOfTwoUpTo(spacing, 1, MetadataDescriptor.MAX_INDEX_SPACING)) {
            indexSpacing = spacing;
        } else {
            damage(path, MetadataDescriptor.INDEX_SPACING_OFFSET, "index spacing=" + spacing + " is not a power of two from 1 to "
                    + MetadataDescriptor.MAX_INDEX_SPACING);
        }
        final int entries = queue.indexBlockEntries();
        if (isPowerOfTwoUpTo(entries, MetadataDescriptor.MIN_INDEX_BLOCK_ENTRIES, MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES)) {
            indexBlockEntries = entries;
        } else {
            damage(path, MetadataDescriptor.INDEX_BLOCK_ENTRIES_OFFSET, "index block entries=" + entries
                    + " is not a power of two from " + MetadataDescriptor.MIN_INDEX_BLOCK_ENTRIES + " to " + MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES);
        }
        // the same bound the builder enforces: an excerpt must fit in the overlap past its chunk
        final long lengthLimit = chunkOk ? CycleDescriptor.maxPayloadLength(chunkLength)
                : ExcerptDescriptor.MAX_LENGTH;
        final int maxLength = queue.maxMessageLength();
        if (maxLength >= 1 && maxLength <= lengthLimit) {
            maxMessageLength = maxLength;
        } else {
            damage(path, MetadataDescriptor.MAX_MESSAGE_LENGTH_OFFSET, "max message length=" + maxLength + " is not from 1 to "
                    + lengthLimit);
            // check lengths against the loosest bound: a bad setting must not turn every excerpt into damage
            maxMessageLength = (int) lengthLimit;
        }
        final long highest = queue.highestCycle();
        final long lowest = queue.lowestCycle();
        if (highest < -1) {
            damage(path, MetadataDescriptor.HIGHEST_CYCLE_OFFSET, "highest cycle=" + highest + ", expected -1 (none) or a cycle");
        }
        if (lowest < -1 || lowest > highest) {
            damage(path, MetadataDescriptor.LOWEST_CYCLE_OFFSET, "lowest cycle=" + lowest + " with highest cycle=" + highest);
        }
        final long lockWord = queue.writeLock();
        if (lockWord != 0) {
            final int slot = MetadataDescriptor.lockSlot(lockWord);
            warning(path, MetadataDescriptor.WRITE_LOCK_OFFSET, String.format("write lock held (word 0x%016x) by process slot %d,"
                    + " pid %d: a writer is appending now, or died holding it (the next writer takes it over)",
                    lockWord, slot, queue.processSlotPid(slot)));
        }
        for (final QueueFiles.NamedTailer tailer : queue.namedTailers()) {
            if (tailer.name() == null) {
                damage(path, tailer.position() + MetadataDescriptor.NAMED_TAILER_NAME_LENGTH_OFFSET, "named tailer entry "
                        + tailer.entry() + ": name length=" + tailer.nameLength() + ", expected 1 to "
                        + MetadataDescriptor.NAMED_TAILER_MAX_NAME_LENGTH);
            } else if (tailer.lastReadIndex() < -1) {
                damage(path, tailer.position() + MetadataDescriptor.NAMED_TAILER_INDEX_OFFSET, "named tailer '" + tailer.name()
                        + "': last read index=" + tailer.lastReadIndex() + ", expected -1 (none) or an index");
            }
        }
    }

    private static boolean isPowerOfTwoUpTo(final int value, final int min, final int max) {
        return QueueFiles.isPowerOfTwo(value) && value >= min && value <= max;
    }

    /** @return what the file holds, or null if it is too damaged to walk. */
    private CycleSummary verifyCycle(final QueueFiles.CycleFileName name) {
        final Path path = name.path();
        try (ReadOnlyFile file = ReadOnlyFile.open(path)) {
            if (file.length() < CycleDescriptor.DATA_OFFSET) {
                damage(path, file.length(), "cycle file truncated: length=" + file.length()
                        + ", the header and root index alone need " + CycleDescriptor.DATA_OFFSET);
                return null;
            }
            final int magic = file.readInt(CycleDescriptor.MAGIC_OFFSET);
            if (magic != CycleDescriptor.MAGIC) {
                damage(path, CycleDescriptor.MAGIC_OFFSET, String.format("not a Spool cycle file: magic=0x%08x, expected 0x%08x",
                        magic, CycleDescriptor.MAGIC));
            }
            final int version = file.readInt(CycleDescriptor.VERSION_OFFSET);
            if (version != CycleDescriptor.VERSION) {
                damage(path, CycleDescriptor.VERSION_OFFSET, "unsupported cycle file version=" + version + ", this build reads "
                        + CycleDescriptor.VERSION);
            }
            final long cycle = file.readLong(CycleDescriptor.CYCLE_OFFSET);
            if (cycle != name.cycle()) {
                damage(path, CycleDescriptor.CYCLE_OFFSET, "cycle=" + cycle + " but the file name says " + name.cycle());
            }
            final int rollCycleId = file.readInt(CycleDescriptor.ROLL_CYCLE_OFFSET);
            if (rollCycleId != rollCycle.id()) {
                damage(path, CycleDescriptor.ROLL_CYCLE_OFFSET, "roll cycle id=" + rollCycleId + " but the queue's is "
                        + rollCycle.id() + " (" + rollCycle + ")");
            }
            final int spacing = cycleSetting(file, CycleDescriptor.INDEX_SPACING_OFFSET, "index spacing", indexSpacing, 1,
                    MetadataDescriptor.MAX_INDEX_SPACING);
            final int entries = cycleSetting(file, CycleDescriptor.INDEX_BLOCK_ENTRIES_OFFSET, "index block entries",
                    indexBlockEntries, MetadataDescriptor.MIN_INDEX_BLOCK_ENTRIES, MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES);
            final int rootEntries = file.readInt(CycleDescriptor.ROOT_ENTRIES_OFFSET);
            if (rootEntries != CycleDescriptor.ROOT_ENTRIES) {
                damage(path, CycleDescriptor.ROOT_ENTRIES_OFFSET, "root entries=" + rootEntries + ", expected "
                        + CycleDescriptor.ROOT_ENTRIES);
            }
            final int features = file.readInt(CycleDescriptor.FEATURES_OFFSET);
            if ((features & ~MetadataDescriptor.KNOWN_FEATURES) != 0) {
                damage(path, CycleDescriptor.FEATURES_OFFSET, String.format("features=0x%x include 0x%x, which this build"
                        + " does not know", features, features & ~MetadataDescriptor.KNOWN_FEATURES));
            }
            // the hints before the walk: a live writer moves them only after publishing what they point past
            final long hintPosition = file.readLong(CycleDescriptor.WRITE_POSITION_OFFSET);
            final long hintSequence = file.readLong(CycleDescriptor.WRITE_SEQUENCE_OFFSET);
            // the root too: a block a live writer adds during the walk would lie past where the walk stopped
            final ByteBuffer root = file.read(CycleDescriptor.ROOT_OFFSET, CycleDescriptor.ROOT_LENGTH);

            final LongList indexed = new LongList();
            final LongList blocks = new LongList();
            final ExcerptScanner scanner = new ExcerptScanner(file, maxMessageLength + prefixLength,
                    entries > 0 ? entries : indexBlockEntries > 0 ? indexBlockEntries : MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES);
            long dataBeforeHint = -1;
            ExcerptScanner.Kind kind;
            for (kind = scanner.next(); ; kind = scanner.next()) {
                final long position = scanner.position();
                if (position == hintPosition) {
                    dataBeforeHint = kind == ExcerptScanner.Kind.DATA ? scanner.dataCount() - 1 : scanner.dataCount();
                }
                if (kind.isEnd()) {
                    break;
                }
                switch (kind) {
                    case DATA -> {
                        if (spacing > 0 && (scanner.sequence() & (spacing - 1)) == 0) {
                            indexed.add(position);
                        }
                        if (prefixLength != 0) {
                            verifyPrefixed(file, scanner, rollCycle.toIndex(name.cycle(), scanner.sequence()));
                        }
                    }
                    case INDEX_BLOCK -> {
                        blocks.add(position);
                        if (entries > 0 && scanner.length() != CycleDescriptor.blockPayloadLength(entries, features)) {
                            damage(path, position, String.format("index block header 0x%08x: length=%d, expected %d for %d"
                                    + " entries and features=0x%x", scanner.header(), scanner.length(),
                                    CycleDescriptor.blockPayloadLength(entries, features), entries, features));
                        }
                    }
                    case UNKNOWN_METADATA -> damage(path, position, String.format("metadata excerpt (header 0x%08x) of unknown type=%d",
                            scanner.header(), scanner.metadataType()));
                    default -> {
                        // padding and sync markers: nothing to cross-check
                    }
                }
            }
            final long tail = scanner.position();
            final long dataCount = scanner.dataCount();
            excerpts += dataCount;
            final boolean complete = reportEnd(path, file, scanner, kind);
            if (complete) {
                verifyHints(file, hintPosition, hintSequence, tail, dataBeforeHint);
            }
            if (spacing > 0 && entries > 0) {
                new IndexCheck(findings, path, file, root, spacing, entries, indexed, blocks, dataCount, complete, tail, hintPosition).run();
            }
            return new CycleSummary(name, dataCount, kind == ExcerptScanner.Kind.END_OF_CYCLE, tail);
        }
    }

    /**
     * Reports a data excerpt whose body is too short to hold its prefix (CRC32C, publisher id and sequence) and a
     * payload, or, in a checksummed queue, whose CRC32C is not that of what follows it.
     */
    private void verifyPrefixed(final ReadOnlyFile file, final ExcerptScanner scanner, final long index) {
        final long position = scanner.position();
        final int length = scanner.length();
        if (length <= prefixLength) {
            damage(file.path(), position, String.format("data header 0x%08x of index %s: length=%d leaves no"
                    + " payload after the body's %d bytes of prefix", scanner.header(), IndexFormat.format(index, rollCycle),
                    length, prefixLength));
            return;
        }
        if (!checksums) {
            return;
        }
        final int expected = file.readInt(position + CHECKSUM_OFFSET);
        crc.reset();
        crc.update(file.read(position + CHECKSUMMED_PAYLOAD_OFFSET, length - CHECKSUM_LENGTH));
        final int found = (int) crc.getValue();
        if (found != expected) {
            damage(file.path(), position, String.format("CRC32C mismatch in the excerpt of index %s (payload"
                    + " length=%d): expected 0x%08x (stored with it), found 0x%08x (computed from its payload)",
                    IndexFormat.format(index, rollCycle), length - prefixLength, expected, found));
        }
    }

    /** @return the cycle's own setting if it is valid and agrees with the metadata's, else 0 after reporting it. */
    private int cycleSetting(final ReadOnlyFile file, final int offset, final String what, final int expected,
                             final int min, final int max) {
        final int value = file.readInt(offset);
        if (!isPowerOfTwoUpTo(value, min, max)) {
            damage(file.path(), offset, what + "=" + value + " is not a power of two from " + min + " to " + max);
            return 0;
        }
        if (expected != 0 && value != expected) {
            damage(file.path(), offset, what + "=" + value + " but the queue's metadata says " + expected);
        }
        return value;
    }

    /** @return true if the walk reached the end of the excerpts, rather than stopping at damage. */
    private boolean reportEnd(final Path path, final ReadOnlyFile file, final ExcerptScanner scanner,
                              final ExcerptScanner.Kind kind) {
        final long position = scanner.position();
        final int header = scanner.header();
        switch (kind) {
            case EMPTY, END_OF_CYCLE -> {
                return true;
            }
            case IN_PROGRESS -> {
                warning(path, position, String.format("torn tail: in-progress header 0x%08x (%s), a claim never committed:"
                        + " a writer died while holding it, or is writing now; the next append frees it", header, describe(header)));
                return true;
            }
            case MALFORMED -> damage(path, position, String.format("malformed header 0x%08x (%s): no writer sets these flags",
                    header, describe(header)));
            case TOO_LONG -> damage(path, position, String.format("header 0x%08x (%s): length=%d exceeds the limit %d for its kind",
                    header, describe(header), scanner.length(), scanner.limit()));
            case PAST_END_OF_FILE -> damage(path, position, String.format(
                    "header 0x%08x (%s): the excerpt runs to position=%d, past the end of the file (length=%d)", header,
                    describe(header), position + ExcerptDescriptor.alignedLength(scanner.length()), file.length()));
            case NO_HEADER -> damage(path, position, "the file ends (length=" + file.length()
                    + ") where the next excerpt header should be: truncated");
            default -> throw new IllegalStateException("not an end: " + kind);
        }
        out.println("  (the walk of " + path.getFileName() + " stops there: " + scanner.dataCount()
                + " data excerpts before it; nothing after it is checked)");
        return false;
    }

    private void verifyHints(final ReadOnlyFile file, final long hintPosition, final long hintSequence, final long tail,
                             final long dataBeforeHint) {
        final Path path = file.path();
        if (hintPosition > tail) {
            // a data excerpt of length 0 has header 0, which reads as the end: what follows it is lost to readers
            final long next = tail + ALIGNMENT;
            if (file.contains(next, HEADER_LENGTH) && file.readInt(tail) == 0 && file.readInt(next) != 0) {
                damage(path, tail, String.format("header 0 reads as the end of the excerpts, but header 0x%08x follows at"
                        + " position=%d and the writer carried on to position=%d: an empty excerpt (length 0) was appended"
                        + " here, and readers never see anything after it", file.readInt(next), next, hintPosition));
            }
            damage(path, CycleDescriptor.WRITE_POSITION_OFFSET, "write position hint=" + hintPosition
                    + " is past the end of the excerpts at position=" + tail
                    + ": the next append would leave a gap that readers stop at");
        } else if (dataBeforeHint < 0) {
            damage(path, CycleDescriptor.WRITE_POSITION_OFFSET, "write position hint=" + hintPosition
                    + " is not the position of an excerpt header");
        } else if (hintSequence != dataBeforeHint && file.readLongNow(CycleDescriptor.WRITE_POSITION_OFFSET) == hintPosition) {
            // (a moved hint means a live writer, whose two hints may have been read between its two writes)
            damage(path, CycleDescriptor.WRITE_SEQUENCE_OFFSET, "write sequence hint=" + hintSequence + " but "
                    + dataBeforeHint + " data excerpts precede the write position hint=" + hintPosition
                    + ": the next append would get the wrong index");
        }
    }

    private void verifyCycleRange(final List<QueueFiles.CycleFileName> names, final List<CycleSummary> cycles) {
        final Path path = queue.metadataPath();
        // read again after the walks: a live writer records a new cycle before it appends there
        final long highest = queue.currentHighestCycle();
        for (final CycleSummary summary : cycles) {
            if (summary.name().cycle() > highest) {
                final String what = "highest cycle=" + highest + " but " + summary.name().path().getFileName() + " is cycle "
                        + summary.name().cycle();
                // an empty one is not started yet: created ahead of its roll by a pretoucher, or by a writer that
                // died before recording it; the next writer to reach that cycle starts it
                if (summary.dataCount() > 0) {
                    damage(path, MetadataDescriptor.HIGHEST_CYCLE_OFFSET, what + " and holds " + summary.dataCount()
                            + " excerpts: tailers stop before it and never read them");
                }
            }
        }
        final long last = names.isEmpty() ? -1 : names.get(names.size() - 1).cycle();
        if (highest > last) {
            warning(path, MetadataDescriptor.HIGHEST_CYCLE_OFFSET, "highest cycle=" + highest + " has no file"
                    + (last < 0 ? "" : ", the last is cycle " + last) + ": deleted? the next append creates it again");
        }
    }

    private void verifyNamedTailers(final List<CycleSummary> cycles) {
        if (rollCycle == null) {
            return;
        }
        final Map<Long, Long> counts = new HashMap<>();
        for (final CycleSummary summary : cycles) {
            counts.put(summary.name().cycle(), summary.dataCount());
        }
        for (final QueueFiles.NamedTailer tailer : queue.namedTailers()) {
            final long index = tailer.lastReadIndex();
            if (tailer.name() == null || index < 0) {
                continue;
            }
            final long cycle = rollCycle.toCycle(index);
            final long count = counts.getOrDefault(cycle, 0L);
            if (rollCycle.toSequence(index) >= count) {
                final boolean deleted = !counts.containsKey(cycle) && !cycles.isEmpty() && cycle < cycles.get(0).name().cycle();
                if (deleted && tailer.name().startsWith(MetadataDescriptor.REPLICA_NAME_PREFIX)) {
                    warning(queue.metadataPath(), tailer.position() + MetadataDescriptor.NAMED_TAILER_INDEX_OFFSET,
                            "replica '" + tailer.name() + "': acknowledged index=" + IndexFormat.format(index, rollCycle)
                                    + " is not in the queue: its cycle was deleted (past maxReplicaLagCycles), the"
                                    + " replica is set aside and rebuilt from the first cycle when it comes back");
                    continue;
                }
                warning(queue.metadataPath(), tailer.position() + MetadataDescriptor.NAMED_TAILER_INDEX_OFFSET,
                        "named tailer '" + tailer.name() + "': last read index=" + IndexFormat.format(index, rollCycle)
                                + " is not in the queue: " + (deleted
                                ? "its cycle was deleted (retention not pinned by named tailers), it resumes at the first cycle"
                                : "it restarts from the start"));
            }
        }
    }

    private void damage(final Path file, final long position, final String what) {
        findings.damage(file, position, what);
    }

    private void warning(final Path file, final long position, final String what) {
        findings.warning(file, position, what);
    }
}
