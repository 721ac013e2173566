package dev.spool.queue.tools;

import dev.spool.queue.format.CycleDescriptor;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

import static dev.spool.queue.format.ExcerptDescriptor.ALIGNMENT;
import static dev.spool.queue.format.ExcerptDescriptor.HEADER_LENGTH;

/**
 * The root index and its blocks: root entries are a prefix in ascending position order, each at an index-block
 * excerpt; entry {@code e} holds the position of the data excerpt of sequence {@code e * spacing}, or 0 if not
 * yet written, and only trailing entries may be 0.
 */
final class IndexCheck {
    private final Findings findings;
    private final Path path;
    private final ReadOnlyFile file;
    /** Read before the walk, so every block it names was there for the walk to find. */
    private final ByteBuffer root;
    private final int spacing;
    private final int entries;
    private final LongList indexed;
    private final LongList blocks;
    private final long dataCount;
    private final boolean complete;
    /** Where the walk stopped: without {@link #complete}, nothing from here on was seen. */
    private final long tail;
    /** The writer's position hint, read before the walk. */
    private final long hintPosition;
    /** The first entry of an indexed sequence found empty, and where it is; -1 if none. */
    private long firstMissing = -1;
    private long firstMissingPosition;
    private long lastMissing;
    private boolean orderReported;
    /** The first entry set past the walk's tail, and what is wrong with it; null if none. */
    private long pastTailPosition;
    private String pastTailWhat;

    IndexCheck(final Findings findings, final Path path, final ReadOnlyFile file, final ByteBuffer root, final int spacing, final int entries,
               final LongList indexed, final LongList blocks, final long dataCount, final boolean complete,
               final long tail, final long hintPosition) {
        this.findings = findings;
        this.path = path;
        this.file = file;
        this.root = root;
        this.spacing = spacing;
        this.entries = entries;
        this.indexed = indexed;
        this.blocks = blocks;
        this.dataCount = dataCount;
        this.complete = complete;
        this.tail = tail;
        this.hintPosition = hintPosition;
    }

    void run() {
        final int blockLength = HEADER_LENGTH + CycleDescriptor.blockPayloadLength(entries,
                file.readInt(CycleDescriptor.FEATURES_OFFSET));
        final boolean[] referenced = new boolean[blocks.size()];
        int firstEmpty = -1;
        long previous = 0;
        // a damaged root entry orphans its block: only without one does an orphan mean a writer died
        boolean rootDamaged = false;
        int allocated = 0;
        for (int block = 0; block < CycleDescriptor.ROOT_ENTRIES; block++) {
            final long value = root.getLong(block * Long.BYTES);
            final long at = CycleDescriptor.rootEntryPosition(block);
            if (value == 0) {
                if (firstEmpty < 0) {
                    firstEmpty = block;
                }
                continue;
            }
            if (firstEmpty >= 0) {
                findings.damage(path, at, "root entry " + block + " = " + value + " follows the empty root entry " + firstEmpty
                        + ": blocks are allocated in order");
                rootDamaged = true;
                continue;
            }
            allocated = block + 1;
            if (value < CycleDescriptor.DATA_OFFSET || (value & (ALIGNMENT - 1)) != 0 || !file.contains(value, blockLength)) {
                findings.damage(path, at, "root entry " + block + " = " + value + " is not an aligned position of a whole block in the"
                        + " data area [" + CycleDescriptor.DATA_OFFSET + ", " + file.length() + ")");
                rootDamaged = true;
                continue;
            }
            final int found = Arrays.binarySearch(blocks.array(), 0, blocks.size(), value);
            if (found >= 0) {
                referenced[found] = true;
            } else if (complete || value < tail) {
                findings.damage(path, at, "root entry " + block + " = " + value + ", but no index-block excerpt starts there");
                rootDamaged = true;
                continue;
            }
            if (value <= previous) {
                findings.damage(path, at, "root entry " + block + " = " + value + " is not after the previous block at " + previous
                        + ": blocks are allocated in order");
                rootDamaged = true;
            }
            previous = value;
            final long firstSequence = (long) block * entries * spacing;
            if (complete && firstSequence >= dataCount) {
                findings.damage(path, at, "root entry " + block + " = " + value + ": an index block from sequence " + firstSequence
                        + ", but the cycle holds only " + dataCount + " data excerpts");
            }
            checkEntries(block, value);
        }
        // entries of indexed sequences whose blocks were never allocated are missing too
        for (long entry = (long) allocated * entries; entry < indexed.size(); entry++) {
            missing(entry, CycleDescriptor.rootEntryPosition((int) (entry / entries)));
        }
        if (pastTailWhat != null && file.readLongNow(CycleDescriptor.WRITE_POSITION_OFFSET) == hintPosition) {
            // the writer's hint has not moved since before the walk: no writer added that entry meanwhile
            findings.damage(path, pastTailPosition, pastTailWhat);
        }
        if (firstMissing >= 0 && !orderReported) {
            findings.warning(path, firstMissingPosition, "index entries " + firstMissing + " to " + lastMissing + " (sequences "
                    + firstMissing * spacing + " to " + lastMissing * spacing + ") are not written: a writer died between"
                    + " publishing and indexing, or is writing now; the next append writes them");
        }
        for (int i = 0; i < blocks.size() && !rootDamaged; i++) {
            if (!referenced[i]) {
                findings.warning(path, blocks.get(i), "index block not in the root index: a writer died between writing it and its"
                        + " root entry; a new block replaces it");
            }
        }
    }

    private void checkEntries(final int block, final long blockPosition) {
        final long entriesPosition = CycleDescriptor.indexEntryPosition(blockPosition, 0);
        final ByteBuffer values = file.read(entriesPosition, entries * Long.BYTES);
        for (int slot = 0; slot < entries; slot++) {
            final long entry = (long) block * entries + slot;
            final long value = values.getLong(slot * Long.BYTES);
            final long at = CycleDescriptor.indexEntryPosition(blockPosition, slot);
            if (entry < indexed.size()) {
                if (value == 0) {
                    missing(entry, at);
                    continue;
                }
                if (firstMissing >= 0 && !orderReported) {
                    if (file.readLongNow(firstMissingPosition) == 0) {
                        orderReported = true;
                        findings.damage(path, firstMissingPosition, "index entry " + firstMissing + " (sequence "
                                + firstMissing * spacing + ") is empty but entry " + entry + " is set: entries are written in order");
                    } else {
                        // written while this block was being copied: a live writer, not a gap
                        firstMissing = -1;
                    }
                }
                if (value != indexed.get((int) entry)) {
                    findings.damage(path, at, "index entry " + entry + " (sequence " + entry * spacing + ") = " + value
                            + ", but that sequence is at position=" + indexed.get((int) entry));
                }
            } else if (value != 0 && complete) {
                final String what = "index entry " + entry + " (sequence " + entry * spacing + ") = " + value
                        + ", but the cycle holds only " + dataCount + " data excerpts";
                if (value < tail) {
                    findings.damage(path, at, what);
                } else if (pastTailWhat == null) {
                    // maybe a live writer's, written after the walk: judged once the walk is known to be current
                    pastTailPosition = at;
                    pastTailWhat = what;
                }
            }
        }
    }

    private void missing(final long entry, final long at) {
        if (firstMissing < 0) {
            firstMissing = entry;
            firstMissingPosition = at;
        }
        lastMissing = entry;
    }
}
