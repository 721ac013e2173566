package dev.spool.queue.tools;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.QueueInternals;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code repair} command with a copy of the queue on this machine ({@code --copy}): a replica's directory, or a
 * backup, opened read-only. {@link SpoolQueue#repairFrom(SpoolQueue)} does the work; this prints what it did and the
 * damage a scan still finds.
 */
final class QueueRepairTool {
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
            final RollCycle rollCycle = queue.rollCycle();
            final long repaired = fromIndex >= 0 ? queue.repairFrom(source, fromIndex, toIndex) : queue.repairFrom(source);
            out.println("REPAIRED " + (fromIndex >= 0 ? IndexFormat.format(fromIndex, rollCycle) + ".."
                    + IndexFormat.format(toIndex, rollCycle) : "what a scan found") + ": " + repaired
                    + " rewritten from " + copy);
            final List<DamagedRange> damaged = queue.unwrap(QueueInternals.class).damagedRanges(0);
            if (damaged.isEmpty()) {
                out.println("OK: no damage the checksums prove");
                return true;
            }
            for (final DamagedRange range : damaged) {
                out.println("DAMAGE " + IndexFormat.format(range.fromIndex(), rollCycle) + ".."
                        + IndexFormat.format(range.toIndex(), rollCycle) + ": " + range.what());
            }
            return false;
        }
    }
}
