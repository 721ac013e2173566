package dev.spool.replication.sink;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.QueueInternals;

import java.util.List;

/**
 * What a sink checks before it answers any handshake: the CRC32C of every excerpt of the replica's last cycle, where
 * a crash or a failing disk leaves its damage and where the sink resumes from. A sink that acknowledged from damaged
 * files would tell the primary, and every writer waiting on an acknowledged stage, that it holds excerpts it does
 * not; so a damaged tail stops the sink from starting, naming the range, for an operator to repair it
 * ({@code spool repair}) or set the replica aside. A replica without checksums has nothing to check.
 */
final class ReplicaTailCheck {
    private ReplicaTailCheck() {
    }

    /**
     * @param replica the replica, opened.
     * @throws SpoolException naming the replica, each damaged range and what is wrong, if its last cycle is damaged.
     */
    static void check(final SpoolQueue replica) {
        final QueueInternals internals = replica.unwrap(QueueInternals.class);
        final long last = replica.lastIndex();
        if (!internals.checksums() || last < 0) {
            return;
        }
        final RollCycle rollCycle = replica.rollCycle();
        final List<DamagedRange> damaged = internals.damagedRanges(rollCycle.toIndex(rollCycle.toCycle(last), 0));
        if (damaged.isEmpty()) {
            return;
        }
        final StringBuilder ranges = new StringBuilder();
        for (final DamagedRange range : damaged) {
            ranges.append(ranges.length() == 0 ? "" : "; ").append(IndexFormat.format(range.fromIndex(), rollCycle))
                    .append("..").append(IndexFormat.format(range.toIndex(), rollCycle)).append(": ").append(range.what());
        }
        throw new SpoolException("the replica " + replica.directory() + " holds damaged excerpts in its last cycle, which"
                + " its checksums prove (" + ranges + "): a sink never acknowledges from damaged files, so it does not"
                + " start; repair the replica from the primary (spool repair " + replica.directory()
                + " --copy <the primary's directory, or another replica's>) or set it aside");
    }
}
