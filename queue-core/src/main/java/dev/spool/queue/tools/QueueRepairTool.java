package dev.spool.queue.tools;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.ReplicaRepair;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code repair} command with a copy of the queue on this machine ({@code --copy}): a replica's directory, or a
 * backup, opened read-only, where {@link SpoolQueue#repairFrom(SpoolQueue)} does the work; or with a replica over the
 * network ({@code --replica}), where queue-replication's {@link ReplicaRepair} does. This prints what it did and the
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
        final long repaired;
        try (SpoolQueue queue = SpoolQueue.builder(directory).open();
             SpoolQueue source = SpoolQueue.builder(copy).readOnly().open()) {
            repaired = fromIndex >= 0 ? queue.repairFrom(source, fromIndex, toIndex) : queue.repairFrom(source);
        }
        return report(repaired, fromIndex, toIndex, copy.toString());
    }

    /**
     * @param repair    the network repair queue-replication provides.
     * @param replica   the replica's sink address, {@code host:port}.
     * @param secret    the shared secret, or null for an insecure sink.
     * @param fromIndex the first index to repair, or -1 to repair what a scan finds.
     * @param toIndex   the last index to repair, inclusive.
     * @return true if the queue holds no damage its checksums prove when done.
     * @throws dev.spool.queue.RepairRefusedException naming the range and why, if a range cannot be proven right.
     */
    boolean repair(final ReplicaRepair repair, final String replica, final byte[] secret, final long fromIndex,
                   final long toIndex) {
        if (!isDamaged(fromIndex, toIndex)) {
            // nothing to fetch: a connection would prove nothing the user asked for, so none is made
            return report(-1, fromIndex, toIndex, "the replica at " + replica);
        }
        return report(repair.repair(directory, replica, secret, fromIndex, toIndex), fromIndex, toIndex,
                "the replica at " + replica);
    }

    /** @return true if a scan finds damage the checksums prove in {@code fromIndex..toIndex}, or anywhere if -1. */
    private boolean isDamaged(final long fromIndex, final long toIndex) {
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open()) {
            return queue.unwrap(QueueInternals.class).damagedRanges(Math.max(0, fromIndex)).stream()
                    .anyMatch(range -> fromIndex < 0 || range.toIndex() >= fromIndex && range.fromIndex() <= toIndex);
        }
    }

    /** @param repaired the regions rewritten, or -1 if nothing was damaged and {@code from} was not asked. */
    private boolean report(final long repaired, final long fromIndex, final long toIndex, final String from) {
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open()) {
            final RollCycle rollCycle = queue.rollCycle();
            out.println("REPAIRED " + (fromIndex >= 0 ? IndexFormat.format(fromIndex, rollCycle) + ".."
                    + IndexFormat.format(toIndex, rollCycle) : "what a scan found") + ": " + (repaired < 0
                    ? "nothing was damaged, so " + from + " was not contacted"
                    : repaired + " rewritten from " + from));
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
