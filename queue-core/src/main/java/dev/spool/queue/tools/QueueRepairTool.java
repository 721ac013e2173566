package dev.spool.queue.tools;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.QueueInternals;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code repair} command with a copy of the queue on this machine ({@code --copy}): a replica's directory, or a
 * backup. Finds the damaged ranges with the queue's checksums (or takes the range given), reads the copy's bodies of
 * each range through a read-only open, and has the queue rewrite each damaged excerpt in place where the copy's bytes
 * are proven right; a range that cannot be proven is refused with nothing of it written.
 * <p>
 * A scan stops in a cycle file at a bad header, so once a range is repaired the queue is scanned again, until no
 * damage is left or a scan finds the same damage as the one before.
 */
final class QueueRepairTool {
    /** Scans at most: each finds what a bad header hid from the one before. */
    private static final int MAX_PASSES = 64;

    private final Path directory;
    private final PrintStream out;

    QueueRepairTool(final Path directory, final PrintStream out) {
        this.directory = directory;
        this.out = out;
    }

    /**
     * @param copy      the copy's directory.
     * @param fromIndex the first index to repair, or -1 to repair what a scan finds.
     * @param toIndex   the last index to repair, inclusive.
     * @return true if the queue holds no damage its checksums prove when done.
     * @throws dev.spool.queue.RepairRefusedException naming the range and why, if a range cannot be proven right.
     */
    boolean repair(final Path copy, final long fromIndex, final long toIndex) {
        try (SpoolQueue queue = SpoolQueue.builder(directory).open();
             SpoolQueue source = SpoolQueue.builder(copy).readOnly().open()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final RollCycle rollCycle = queue.rollCycle();
            long repaired = 0;
            if (fromIndex >= 0) {
                final int count = internals.repairExcerpts(fromIndex, toIndex, bodies(source, fromIndex, toIndex)::get);
                out.println("REPAIRED " + IndexFormat.format(fromIndex, rollCycle) + ".." + IndexFormat.format(toIndex, rollCycle)
                        + ": " + count + " rewritten from " + copy);
                repaired += count;
            }
            List<DamagedRange> previous = null;
            for (int pass = 0; pass < MAX_PASSES; pass++) {
                final List<DamagedRange> damaged = internals.damagedRanges(0);
                if (damaged.isEmpty()) {
                    out.println("OK: no damage the checksums prove; " + repaired + " rewritten");
                    return true;
                }
                if (fromIndex >= 0 || damaged.equals(previous)) {
                    for (final DamagedRange range : damaged) {
                        out.println("DAMAGE " + IndexFormat.format(range.fromIndex(), rollCycle) + ".."
                                + IndexFormat.format(range.toIndex(), rollCycle) + ": " + range.what());
                    }
                    return false;
                }
                for (final DamagedRange range : damaged) {
                    final int count = internals.repairExcerpts(range.fromIndex(), range.toIndex(),
                            bodies(source, range.fromIndex(), range.toIndex())::get);
                    out.println("REPAIRED " + IndexFormat.format(range.fromIndex(), rollCycle) + ".."
                            + IndexFormat.format(range.toIndex(), rollCycle) + ": " + count + " rewritten from " + copy
                            + " (" + range.what() + ")");
                    repaired += count;
                }
                previous = damaged;
            }
            throw new SpoolException("repair of " + directory + ": damage is still found after " + MAX_PASSES + " scans");
        }
    }

    /** @return the copy's body of every index from {@code fromIndex} to {@code toIndex} that it holds. */
    static Map<Long, byte[]> bodies(final SpoolQueue copy, final long fromIndex, final long toIndex) {
        final Map<Long, byte[]> bodies = new HashMap<>();
        try (ExcerptTailer tailer = copy.unwrap(QueueInternals.class).createBodyTailer()) {
            if (!tailer.moveToIndex(fromIndex)) {
                return bodies;
            }
            boolean more = true;
            while (more) {
                more = tailer.read((bytes, offset, length, index) -> {
                    if (index <= toIndex) {
                        final byte[] body = new byte[length];
                        bytes.read(offset, body, 0, length);
                        bodies.put(index, body);
                    }
                }) && tailer.index() <= toIndex;
            }
        }
        return bodies;
    }
}
