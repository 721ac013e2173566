package dev.spool.replication.sink;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.QueueInternals;

import java.util.List;

/**
 * What a sink checks before it answers any handshake: the CRC32C of every excerpt of the replica's last cycle, where
 * a crash or a failing disk leaves its damage and where the sink resumes from. A sink that acknowledged from damaged
 * files would tell the primary, and every writer waiting on an acknowledged stage, that it holds excerpts it does
 * not; so a sink with a damaged tail resumes from before the damage, takes the damaged excerpts' bodies from its
 * source's stream, repairs them in place ({@link ReplicaWriter}), and acknowledges nothing past them before. A replica
 * without checksums has nothing to check.
 */
final class ReplicaTailCheck {
    private ReplicaTailCheck() {
    }

    /**
     * @param replica the replica, opened.
     * @return the damaged ranges of its last cycle, ascending; empty if none, or if it has no checksums.
     */
    static List<DamagedRange> damage(final SpoolQueue replica) {
        final QueueInternals internals = replica.unwrap(QueueInternals.class);
        final long last = replica.lastIndex();
        if (!internals.checksums() || last < 0) {
            return List.of();
        }
        final RollCycle rollCycle = replica.rollCycle();
        return internals.damagedRanges(rollCycle.toIndex(rollCycle.toCycle(last), 0));
    }

    /** @return the ranges, as a message prints them: each with what is wrong. */
    static String describe(final List<DamagedRange> damaged, final RollCycle rollCycle) {
        final StringBuilder ranges = new StringBuilder();
        for (final DamagedRange range : damaged) {
            ranges.append(ranges.length() == 0 ? "" : "; ").append(IndexFormat.format(range.fromIndex(), rollCycle))
                    .append("..").append(IndexFormat.format(range.toIndex(), rollCycle)).append(": ").append(range.what());
        }
        return ranges.toString();
    }
}
