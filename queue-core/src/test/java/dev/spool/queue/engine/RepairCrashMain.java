package dev.spool.queue.engine;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.QueueInternals;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;

/**
 * The child of {@link RepairCrashTest}: damages the excerpts at the given positions of a cycle file (one byte each,
 * set to the value given) and repairs them, in one repair, from the bodies the parent wrote, over and over, until
 * killed.
 * {@code queue cycleFile bodiesDirectory position:value...}; prints {@code READY} once the first repair is done.
 */
final class RepairCrashMain {
    private RepairCrashMain() {
    }

    public static void main(final String[] args) throws IOException {
        final Path queueDirectory = Path.of(args[0]);
        final Path cycleFile = Path.of(args[1]);
        final Path bodies = Path.of(args[2]);
        try (SpoolQueue queue = SpoolQueue.builder(queueDirectory).open()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            for (long round = 0; ; round++) {
                try (RandomAccessFile file = new RandomAccessFile(cycleFile.toFile(), "rw")) {
                    for (int i = 3; i < args.length; i++) {
                        final String[] damage = args[i].split(":");
                        file.seek(Long.parseLong(damage[0]));
                        file.write(Integer.parseInt(damage[1]));
                    }
                }
                // one repair of the span of every damaged range: one journal for all of them
                final List<DamagedRange> ranges = internals.damagedRanges(0);
                internals.repairExcerpts(ranges.get(0).fromIndex(), ranges.get(ranges.size() - 1).toIndex(),
                        index -> RepairCrashTest.readBody(bodies, index));
                if (round == 0) {
                    System.out.println("READY");
                }
            }
        }
    }
}
