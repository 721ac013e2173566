package dev.spool.queue.engine;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RepairRefusedException;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.internal.DamagedRange;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.zip.CRC32C;

import static dev.spool.queue.format.ExcerptDescriptor.*;

/**
 * Finds the excerpts of a checksummed queue that its checksums and headers prove damaged, and rewrites them in place
 * with another copy's bytes (a replica's, or the primary's), through a {@link RepairJournal}. A replacement is written
 * only when it is proven right: an excerpt whose CRC32C fails gets the other copy's body when that body passes its
 * own CRC32C and has exactly the stored length; a data header that no writer produces gets the other copy's length
 * when the bytes after it equal that copy's body; an index entry that points elsewhere than at the excerpt of its
 * sequence, found where the walk by headers is proven (by the checksums of every excerpt before it), gets that
 * excerpt's position when the excerpt there is the copy's. Anything else is refused with a
 * {@link RepairRefusedException} naming the range, before anything is written.
 * <p>
 * Every position a repair writes at is proven: the walk from the start of the cycle checks the CRC32C of every
 * excerpt before the range, and refuses at the first that fails.
 * <p>
 * What a reader sees while bytes change: only damaged excerpts are rewritten, and a reader of one already throws its
 * checksum mismatch or bad header. During the rewrite it reads the old bytes, the new ones, or a mix: a mix fails the
 * CRC32C as the damage did (and throws the same way), a header read half-written is one a reader treats as damage, an
 * end or a claim, or whose length the CRC32C then fails, and the new bytes are the excerpt's. An index entry read
 * half-written is checked against the walk from the entry before it, as the damaged entry it replaces was. So readers need no
 * new check and no wait on their path, and a reader that retries once the repair is done reads the original bytes.
 * Marking the header in progress instead would make readers wait, but would hide every excerpt after it from a
 * forward reader while a crash leaves the mark, and would need the write lock the excerpts' writer may be holding.
 * <p>
 * The files are read and written through file channels, not the queue's mappings: the page cache is shared with
 * them, and a repair neither needs a mapping nor moves one of a tailer's.
 */
final class ExcerptRepairer {
    private static final Logger LOG = LoggerFactory.getLogger(ExcerptRepairer.class);
    /** Scans at most in a repair of what scans find: each finds what a bad header hid from the one before. */
    private static final int MAX_PASSES = 64;

    private final Store store;
    private final RollCycle rollCycle;
    private final int prefixLength;
    private final int maxDataLength;
    private final CRC32C crc = new CRC32C();

    ExcerptRepairer(final Store store) {
        this.store = store;
        this.rollCycle = store.rollCycle();
        this.prefixLength = store.bodyPrefixLength();
        this.maxDataLength = store.maxDataLength();
    }

    /**
     * @return the damaged ranges of the cycles from that of {@code fromIndex} on, ascending: excerpts whose CRC32C
     * fails, and bad data headers.
     */
    List<DamagedRange> damagedRanges(final long fromIndex) {
        checkChecksums(-1, -1);
        final List<DamagedRange> ranges = new ArrayList<>();
        final long fromCycle = rollCycle.toCycle(Math.max(0, fromIndex));
        for (final long cycle : store.cycleFiles().cycles()) {
            if (cycle < fromCycle) {
                continue;
            }
            final Path path = store.cycleFiles().path(cycle);
            try (CycleReader reader = CycleReader.open(path)) {
                if (reader == null) {
                    continue;
                }
                final Walk walk = new Walk(reader);
                long damagedFrom = -1;
                String what = null;
                long last = -1;
                // the positions of the walk are proven until the first damage: index entries are checked against them
                boolean proven = true;
                for (int step = walk.next(); step != Walk.END; step = walk.next()) {
                    final long index = rollCycle.toIndex(cycle, walk.sequence);
                    String problem = step == Walk.BAD_HEADER ? walk.badHeader()
                            : passes(reader.read(walk.position + HEADER_LENGTH, walk.length)) ? null
                            : "CRC32C mismatch in the excerpt at position=" + walk.position + " of " + path;
                    proven &= problem == null;
                    if (proven) {
                        problem = walk.wrongEntry();
                    }
                    if (problem != null && damagedFrom >= 0 && index == last + 1) {
                        last = index;
                    } else if (problem != null) {
                        if (damagedFrom >= 0) {
                            ranges.add(new DamagedRange(damagedFrom, last, what));
                        }
                        damagedFrom = index;
                        last = index;
                        what = problem;
                    }
                    if (step == Walk.BAD_HEADER) {
                        // nothing after a header that lies about its length can be walked
                        break;
                    }
                    walk.sequence++;
                    walk.position += alignedLength(walk.length);
                }
                if (damagedFrom >= 0) {
                    ranges.add(new DamagedRange(damagedFrom, last, what));
                }
            }
        }
        return ranges;
    }

    /**
     * Rewrites the damaged excerpts of {@code fromIndex} to {@code toIndex} with the bodies {@code bodies} gives, or
     * refuses and writes nothing.
     *
     * @param bodies the other copy's body of an index (CRC32C field, prefix, payload, as stored), or null if it has
     *               none.
     * @return the number of excerpts rewritten; 0 if none in the range was damaged.
     * @throws RepairRefusedException naming the range and why, if any rewrite cannot be proven right.
     */
    int repair(final long fromIndex, final long toIndex, final LongFunction<byte[]> bodies) {
        checkChecksums(fromIndex, toIndex);
        if (fromIndex < 0 || toIndex < fromIndex) {
            throw refused(fromIndex, toIndex, "not a range of indices");
        }
        final Path directory = store.directory();
        RepairJournal.recover(directory);
        final List<RepairJournal.Entry> plan = new ArrayList<>();
        long found = 0;
        final long fromCycle = rollCycle.toCycle(fromIndex);
        final long toCycle = rollCycle.toCycle(toIndex);
        for (final long cycle : store.cycleFiles().cycles()) {
            if (cycle < fromCycle || cycle > toCycle) {
                continue;
            }
            final long fromSequence = cycle == fromCycle ? rollCycle.toSequence(fromIndex) : 0;
            final long toSequence = cycle == toCycle ? rollCycle.toSequence(toIndex) : Long.MAX_VALUE;
            final Path path = store.cycleFiles().path(cycle);
            try (CycleReader reader = CycleReader.open(path)) {
                if (reader == null) {
                    continue;
                }
                final Walk walk = new Walk(reader);
                for (int step = walk.next(); step != Walk.END && walk.sequence <= toSequence; step = walk.next()) {
                    final long index = rollCycle.toIndex(cycle, walk.sequence);
                    if (step == Walk.BAD_HEADER && walk.sequence < fromSequence) {
                        throw refused(fromIndex, toIndex, walk.badHeader() + ", at index " + format(index)
                                + " before the range: the excerpts of the range cannot be found past it; repair from "
                                + format(index));
                    }
                    if (walk.sequence < fromSequence && !passes(reader.read(walk.position + HEADER_LENGTH, walk.length))) {
                        // a length damaged before the range would put the walk, and the rewrites, at wrong positions
                        throw refused(fromIndex, toIndex, "the excerpt of index " + format(index) + " at position="
                                + walk.position + " of " + path + ", before the range, fails its CRC32C: the positions"
                                + " of the range cannot be proven past it; repair from " + format(index));
                    }
                    if (walk.sequence >= fromSequence) {
                        final byte[] replacement = bodies.apply(index);
                        if (step == Walk.BAD_HEADER) {
                            walk.length = repairHeader(reader, walk, index, replacement, plan, fromIndex, toIndex);
                        } else {
                            repairBody(reader, walk, index, replacement, plan, fromIndex, toIndex);
                        }
                        repairEntry(reader, walk, index, replacement, plan, fromIndex, toIndex);
                    }
                    if (walk.sequence >= fromSequence) {
                        found++;
                    }
                    walk.sequence++;
                    walk.position += alignedLength(walk.length);
                }
            }
        }
        if (found == 0) {
            throw refused(fromIndex, toIndex, "the queue holds no excerpt of the range");
        }
        if (plan.isEmpty()) {
            return 0;
        }
        RepairJournal.write(directory, plan, store.fileMode());
        RepairJournal.apply(directory, plan);
        checkWritten(directory, plan);
        return plan.size();
    }

    /**
     * Repairs {@code fromIndex} to {@code toIndex}, or (with {@code fromIndex} -1) every damaged range a scan finds,
     * all of a scan's ranges in one repair, with the bodies {@code copy} holds; then scans again, until no damage is
     * left or a scan finds what the one before found: a bad header hides what follows it in its cycle until it is
     * repaired.
     *
     * @param copy a body tailer of the copy: the bodies of each range are read through it.
     * @return the number of regions rewritten.
     */
    long repairFrom(final ExcerptTailer copy, final long fromIndex, final long toIndex) {
        if (fromIndex >= 0) {
            final Map<Long, byte[]> bodies = new HashMap<>();
            readBodies(copy, fromIndex, toIndex, bodies);
            return logged(fromIndex, toIndex, repair(fromIndex, toIndex, bodies::get));
        }
        long repaired = 0;
        List<DamagedRange> previous = null;
        for (int pass = 0; pass < MAX_PASSES; pass++) {
            final List<DamagedRange> damaged = damagedRanges(0);
            if (damaged.isEmpty() || damaged.equals(previous)) {
                return repaired;
            }
            // one repair of the span of every range a scan found: all of them are written, or none
            final Map<Long, byte[]> bodies = new HashMap<>();
            for (final DamagedRange range : damaged) {
                readBodies(copy, range.fromIndex(), range.toIndex(), bodies);
            }
            final long from = damaged.get(0).fromIndex();
            final long to = damaged.get(damaged.size() - 1).toIndex();
            try {
                repaired += logged(from, to, repair(from, to, bodies::get));
            } catch (RepairRefusedException e) {
                if (repaired == 0) {
                    throw e;
                }
                throw new RepairRefusedException(e.fromIndex(), e.toIndex(), e.getMessage() + " (but " + repaired
                        + " regions were rewritten before, by the repair of the damage an earlier scan found, which"
                        + " hid this damage)");
            }
            previous = damaged;
        }
        return repaired;
    }

    private static void readBodies(final ExcerptTailer copy, final long fromIndex, final long toIndex,
                                   final Map<Long, byte[]> bodies) {
        if (!copy.moveToIndex(fromIndex)) {
            return;
        }
        boolean more = true;
        while (more) {
            more = copy.read((bytes, offset, length, index) -> {
                if (index <= toIndex) {
                    final byte[] body = new byte[length];
                    bytes.read(offset, body, 0, length);
                    bodies.put(index, body);
                }
            }) && copy.index() <= toIndex;
        }
    }

    private int logged(final long fromIndex, final long toIndex, final int count) {
        if (count > 0) {
            LOG.info("repaired {}..{} of {}: {} damaged regions rewritten with a copy's verified bytes", format(fromIndex),
                    format(toIndex), store.directory(), count);
        }
        return count;
    }

    /** Plans the body of a data excerpt with a good header: nothing if it verifies, the other copy's if proven. */
    private void repairBody(final CycleReader reader, final Walk walk, final long index, final byte[] replacement,
                            final List<RepairJournal.Entry> plan, final long fromIndex, final long toIndex) {
        final byte[] body = reader.read(walk.position + HEADER_LENGTH, walk.length);
        if (passes(body)) {
            if (replacement != null && !Arrays.equals(body, replacement)) {
                throw refused(fromIndex, toIndex, "the excerpt of index " + format(index) + " at position="
                        + walk.position + " of " + reader.path + " passes its CRC32C here but the other copy holds"
                        + " different bytes for it: the copies diverged, which no repair can settle");
            }
            return;
        }
        final String where = "the excerpt of index " + format(index) + " at position=" + walk.position + " of "
                + reader.path + " fails its CRC32C";
        checkReplacement(replacement, index, where, fromIndex, toIndex);
        if (replacement.length != walk.length) {
            throw refused(fromIndex, toIndex, where + ", and the other copy's body has length=" + replacement.length
                    + " where this file's header gives length=" + walk.length + ": it cannot be rewritten in place");
        }
        plan.add(new RepairJournal.Entry(reader.path.getFileName().toString(), walk.position + HEADER_LENGTH, replacement));
    }

    /**
     * Plans the header of a data excerpt that no writer would have written: the other copy's length, when the bytes
     * that follow are exactly the other copy's body.
     *
     * @return the excerpt's length, proven.
     */
    private int repairHeader(final CycleReader reader, final Walk walk, final long index, final byte[] replacement,
                             final List<RepairJournal.Entry> plan, final long fromIndex, final long toIndex) {
        final String where = walk.badHeader() + " (index " + format(index) + ")";
        checkReplacement(replacement, index, where, fromIndex, toIndex);
        final int length = replacement.length;
        if (length > maxDataLength || !reader.contains(walk.position, alignedLength(length))
                || !Arrays.equals(reader.read(walk.position + HEADER_LENGTH, length), replacement)) {
            throw refused(fromIndex, toIndex, where + ": the bytes after it are not the other copy's body of length="
                    + length + ", so no length can be proven for it; it cannot be rewritten in place");
        }
        final byte[] header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN).putInt(0, length).array();
        plan.add(new RepairJournal.Entry(reader.path.getFileName().toString(), walk.position, header));
        return length;
    }

    /**
     * Plans the index entry of the excerpt the walk is at, if it points elsewhere: the right position is proven when
     * the excerpt there is, once repaired, the copy's excerpt of the entry's index.
     */
    private void repairEntry(final CycleReader reader, final Walk walk, final long index, final byte[] replacement,
                             final List<RepairJournal.Entry> plan, final long fromIndex, final long toIndex) {
        final String wrong = walk.wrongEntry();
        if (wrong == null) {
            return;
        }
        if (replacement == null) {
            throw refused(fromIndex, toIndex, wrong + ", and the other copy does not hold index " + format(index)
                    + " to prove the excerpt there is that index's");
        }
        // repairBody and repairHeader refused unless the excerpt at the walk's position is, or becomes, the copy's
        final byte[] entry = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, walk.position).array();
        plan.add(new RepairJournal.Entry(reader.path.getFileName().toString(), walk.entryPosition(), entry));
    }

    private void checkReplacement(final byte[] replacement, final long index, final String where, final long fromIndex,
                                  final long toIndex) {
        if (replacement == null) {
            throw refused(fromIndex, toIndex, where + ", and the other copy does not hold index " + format(index));
        }
        if (replacement.length < prefixLength + 1 || !passes(replacement)) {
            throw refused(fromIndex, toIndex, where + ", and the other copy's body of it (length=" + replacement.length
                    + ") fails its own CRC32C: it is damaged there too");
        }
    }

    /** Reads back every write: the journal was applied, so a difference is a failing disk, not a refusal. */
    private static void checkWritten(final Path directory, final List<RepairJournal.Entry> plan) {
        for (final RepairJournal.Entry entry : plan) {
            try (CycleReader reader = CycleReader.open(directory.resolve(entry.fileName()))) {
                if (reader != null && !Arrays.equals(reader.read(entry.position(), entry.data().length), entry.data())) {
                    throw new SpoolException("the repair written at position=" + entry.position() + " of "
                            + reader.path + " reads back different: the disk does not keep what is written to it");
                }
            }
        }
    }

    /** @return true if {@code body} (CRC32C field, then what it covers) passes its CRC32C. */
    private boolean passes(final byte[] body) {
        if (body.length < CHECKSUM_LENGTH) {
            return false;
        }
        crc.reset();
        crc.update(body, CHECKSUM_LENGTH, body.length - CHECKSUM_LENGTH);
        final int stored = (body[0] & 0xFF) | (body[1] & 0xFF) << 8 | (body[2] & 0xFF) << 16 | (body[3] & 0xFF) << 24;
        return (int) crc.getValue() == stored;
    }

    private void checkChecksums(final long fromIndex, final long toIndex) {
        if (!store.checksums()) {
            throw refused(fromIndex, toIndex, "queue " + store.directory() + " was created without checksums: a repair"
                    + " could prove neither the damage nor the replacement");
        }
    }

    private RepairRefusedException refused(final long fromIndex, final long toIndex, final String why) {
        final String range = fromIndex < 0 ? "" : "repair of " + format(fromIndex) + ".." + format(toIndex) + " refused: ";
        return new RepairRefusedException(fromIndex, toIndex, (range.isEmpty() ? "repair refused: " : range) + why
                + "; nothing was written");
    }

    private String format(final long index) {
        return IndexFormat.format(index, rollCycle);
    }

    /** The walk over one cycle file's excerpts by their headers, counting data excerpts. */
    private final class Walk {
        static final int END = 0;
        static final int DATA = 1;
        static final int BAD_HEADER = 2;

        private final CycleReader reader;
        private final int metadataLimit;
        /** The cycle's index settings, or 0 when the header's are not powers of two: its entries prove nothing then. */
        private final int indexSpacing;
        private final int indexBlockEntries;
        private final int blockLength;
        long position = CycleDescriptor.DATA_OFFSET;
        long sequence;
        int header;
        int length;
        /** The index block last looked up, and its position if it is one (else -1): a block serves many entries. */
        private long checkedBlock = -1;
        private long checkedBlockPosition = -1;

        Walk(final CycleReader reader) {
            this.reader = reader;
            final int spacing = reader.readInt(CycleDescriptor.INDEX_SPACING_OFFSET);
            final int entries = reader.readInt(CycleDescriptor.INDEX_BLOCK_ENTRIES_OFFSET);
            final boolean valid = spacing > 0 && (spacing & (spacing - 1)) == 0 && entries > 0 && (entries & (entries - 1)) == 0;
            this.indexSpacing = valid ? spacing : 0;
            this.indexBlockEntries = valid ? entries : 0;
            this.blockLength = valid ? CycleDescriptor.blockPayloadLength(entries, reader.readInt(CycleDescriptor.FEATURES_OFFSET)) : 0;
            this.metadataLimit = Math.max(maxDataLength, blockLength);
        }

        /**
         * @return the position of the index entry of the data excerpt the walk is at, or -1 if it has none, or none
         * written, or the root entry does not lead to an index block.
         */
        long entryPosition() {
            if (indexSpacing == 0 || (sequence & (indexSpacing - 1)) != 0) {
                return -1;
            }
            final long entry = sequence / indexSpacing;
            final long block = entry / indexBlockEntries;
            if (block >= CycleDescriptor.ROOT_ENTRIES) {
                return -1;
            }
            if (block != checkedBlock) {
                checkedBlock = block;
                checkedBlockPosition = validBlock(reader.readLongAside(CycleDescriptor.rootEntryPosition((int) block)));
            }
            return checkedBlockPosition < 0 ? -1
                    : CycleDescriptor.indexEntryPosition(checkedBlockPosition, (int) (entry % indexBlockEntries));
        }

        /** @return {@code blockPosition} if an index block of this file's layout is there, else -1. */
        private long validBlock(final long blockPosition) {
            if (blockPosition < CycleDescriptor.DATA_OFFSET || !reader.contains(blockPosition, alignedLength(blockLength))) {
                return -1;
            }
            final int blockHeader = (int) reader.readLongAside(blockPosition);
            final int type = (int) reader.readLongAside(blockPosition + CycleDescriptor.BLOCK_TYPE_OFFSET);
            return isMetadata(blockHeader) && length(blockHeader) == blockLength && type == TYPE_INDEX_BLOCK
                    ? blockPosition : -1;
        }

        /** @return what is wrong with the index entry of the excerpt the walk is at, or null if it is right or unwritten. */
        String wrongEntry() {
            final long at = entryPosition();
            if (at < 0) {
                return null;
            }
            final long entry = reader.readLongAside(at);
            return entry == 0 || entry == position ? null : "the index entry at position=" + at + " of " + reader.path
                    + " holds position=" + entry + ", but the excerpt of its sequence " + sequence + " is at position="
                    + position;
        }

        /** @return the next data excerpt or bad header from {@link #position}, skipping metadata; or the end. */
        int next() {
            while (reader.contains(position, HEADER_LENGTH)) {
                header = reader.readInt(position);
                if (header == 0 || isInProgress(header) || isEndOfCycle(header)) {
                    return END;
                }
                length = length(header);
                final boolean data = isData(header);
                if (!isWellFormed(header) || length > (data ? maxDataLength : metadataLimit)
                        || data && length < prefixLength + 1 || !reader.contains(position, alignedLength(length))) {
                    return BAD_HEADER;
                }
                if (data) {
                    return DATA;
                }
                position += alignedLength(length);
            }
            return END;
        }

        String badHeader() {
            return String.format("bad header 0x%08x (%s) at position=%d of %s", header, describe(header), position,
                    reader.path);
        }
    }

    /** Plain reads of a cycle file, through a window so that a walk costs a read per window rather than per excerpt. */
    private static final class CycleReader implements AutoCloseable {
        private static final int WINDOW_LENGTH = 1 << 16;

        final Path path;
        private final FileChannel channel;
        private final long size;
        private final ByteBuffer window = ByteBuffer.allocate(WINDOW_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        private long windowStart = -1;
        private int windowLength;

        private CycleReader(final Path path, final FileChannel channel, final long size) {
            this.path = path;
            this.channel = channel;
            this.size = size;
        }

        /**
         * @return a reader, or null if the file no longer exists (deleted by retention) or is too short to hold its
         * header and root index, which nothing here could repair.
         */
        static CycleReader open(final Path path) {
            try {
                final FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
                final long size = channel.size();
                if (size < CycleDescriptor.DATA_OFFSET) {
                    channel.close();
                    return null;
                }
                return new CycleReader(path, channel, size);
            } catch (NoSuchFileException e) {
                return null;
            } catch (IOException e) {
                throw new SpoolException("cannot read " + path + ": " + e.getMessage(), e);
            }
        }

        boolean contains(final long position, final long length) {
            return position >= 0 && position + length <= size;
        }

        int readInt(final long position) {
            return ByteBuffer.wrap(read(position, Integer.BYTES)).order(ByteOrder.LITTLE_ENDIAN).getInt();
        }

        /** @return the long at {@code position}, read past the window: index lookups do not move the walk's window. */
        long readLongAside(final long position) {
            final ByteBuffer value = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            readFully(value, position);
            return value.getLong(0);
        }

        byte[] read(final long position, final int length) {
            final byte[] bytes = new byte[length];
            if (length <= WINDOW_LENGTH) {
                if (position < windowStart || position + length > windowStart + windowLength) {
                    fill(position);
                }
                window.get((int) (position - windowStart), bytes, 0, length);
                return bytes;
            }
            readFully(ByteBuffer.wrap(bytes), position);
            return bytes;
        }

        private void fill(final long position) {
            window.clear();
            readFully(window.limit((int) Math.min(WINDOW_LENGTH, size - position)), position);
            windowStart = position;
            windowLength = window.position();
        }

        private void readFully(final ByteBuffer into, final long position) {
            try {
                while (into.hasRemaining()) {
                    if (channel.read(into, position + into.position()) < 0) {
                        throw new SpoolException("cannot read " + path + " at position=" + position + ": it ends at "
                                + (position + into.position()));
                    }
                }
            } catch (IOException e) {
                throw new SpoolException("cannot read " + path + " at position=" + position + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                throw new SpoolException("cannot close " + path + ": " + e.getMessage(), e);
            }
        }
    }
}
