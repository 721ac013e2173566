package dev.spool.queue.tools;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts what a queue holds: cycles, excerpts and bytes per cycle file and in total, and how far each named
 * tailer is behind the end. Reads the files with plain reads, like {@link QueueVerifier}; a file it cannot walk to
 * the end is counted up to the damage, and said so.
 */
final class QueueStats {
    private final QueueFiles queue;
    private final PrintStream out;

    /** One cycle file's counts. */
    private record CycleCount(long cycle, long excerpts) {
    }

    QueueStats(final QueueFiles queue, final PrintStream out) {
        this.queue = queue;
        this.out = out;
    }

    /** @return true if every cycle file could be walked to its end. */
    boolean print() {
        final RollCycle rollCycle = queue.rollCycle();
        out.println("queue " + queue.directory());
        if (rollCycle == null) {
            out.println("!! unknown roll cycle id=" + queue.readInt(MetadataDescriptor.ROLL_CYCLE_OFFSET) + ": run verify");
            return false;
        }
        out.println("roll cycle " + rollCycle + ", index spacing " + queue.indexSpacing() + ", max message length "
                + queue.maxMessageLength() + ", chunk length " + queue.chunkLength());
        final List<QueueFiles.CycleFileName> names = queue.cycleFiles(rollCycle, new ArrayList<>());
        if (names.isEmpty()) {
            out.println("cycles: 0");
        } else {
            final QueueFiles.CycleFileName first = names.get(0);
            final QueueFiles.CycleFileName last = names.get(names.size() - 1);
            out.println("cycles: " + names.size() + ", first " + first.cycle() + " (" + first.path().getFileName() + "), last "
                    + last.cycle() + " (" + last.path().getFileName() + ")");
        }
        final List<CycleCount> counts = new ArrayList<>();
        boolean whole = true;
        long excerpts = 0;
        long payloadBytes = 0;
        long usedBytes = 0;
        long fileBytes = 0;
        long firstIndex = -1;
        long lastIndex = -1;
        for (final QueueFiles.CycleFileName name : names) {
            try (ReadOnlyFile file = ReadOnlyFile.open(name.path())) {
                final String prefix = "cycle " + name.cycle() + " " + name.path().getFileName() + ":";
                fileBytes += file.length();
                if (file.length() < CycleDescriptor.DATA_OFFSET) {
                    out.println(prefix + " !! truncated, file bytes=" + file.length() + ": run verify");
                    whole = false;
                    continue;
                }
                final int entries = file.readInt(CycleDescriptor.INDEX_BLOCK_ENTRIES_OFFSET);
                final int maxEntries = MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES;
                final ExcerptScanner scanner = new ExcerptScanner(file, queue.maxDataLength(),
                        QueueFiles.isPowerOfTwo(entries) && entries <= maxEntries ? entries : maxEntries);
                // a body may hold a CRC32C, a publisher id and sequence before the payload
                final int prefixLength = queue.bodyPrefixLength();
                long payload = 0;
                ExcerptScanner.Kind kind;
                for (kind = scanner.next(); !kind.isEnd(); kind = scanner.next()) {
                    if (kind == ExcerptScanner.Kind.DATA) {
                        payload += scanner.length() - prefixLength;
                    }
                }
                final long count = scanner.dataCount();
                if (count > 0) {
                    final long base = rollCycle.toIndex(name.cycle(), 0);
                    firstIndex = firstIndex < 0 ? base : firstIndex;
                    lastIndex = base | (count - 1);
                }
                out.println(prefix + " excerpts=" + count + " payload bytes=" + payload + " used bytes=" + scanner.position()
                        + " file bytes=" + file.length() + (kind == ExcerptScanner.Kind.END_OF_CYCLE ? " ended" : "")
                        + (kind == ExcerptScanner.Kind.IN_PROGRESS ? " torn-tail" : ""));
                if (kind != ExcerptScanner.Kind.EMPTY && kind != ExcerptScanner.Kind.END_OF_CYCLE
                        && kind != ExcerptScanner.Kind.IN_PROGRESS) {
                    out.println("  !! counted up to position=" + scanner.position() + ", where the walk stops at a "
                            + kind.label() + " header: run verify");
                    whole = false;
                }
                counts.add(new CycleCount(name.cycle(), count));
                excerpts += count;
                payloadBytes += payload;
                usedBytes += scanner.position();
            }
        }
        out.println("total: excerpts=" + excerpts + " payload bytes=" + payloadBytes + " used bytes=" + usedBytes
                + " file bytes=" + fileBytes);
        out.println("first index=" + IndexFormat.format(firstIndex, rollCycle) + " last index="
                + IndexFormat.format(lastIndex, rollCycle));
        final List<QueueFiles.NamedTailer> tailers = queue.namedTailers();
        out.println("named tailers: " + tailers.size());
        for (final QueueFiles.NamedTailer tailer : tailers) {
            final long index = tailer.lastReadIndex();
            out.println("  " + (tailer.name() == null ? "!! entry " + tailer.entry() : "'" + tailer.name() + "'")
                    + " last read index=" + IndexFormat.format(index, rollCycle) + " lag=" + lag(rollCycle, counts, index));
        }
        return whole;
    }

    /** @return data excerpts after {@code lastRead}: what a tailer that read up to it has still to read. */
    private static long lag(final RollCycle rollCycle, final List<CycleCount> counts, final long lastRead) {
        long lag = 0;
        for (final CycleCount count : counts) {
            if (lastRead < 0 || count.cycle() > rollCycle.toCycle(lastRead)) {
                lag += count.excerpts();
            } else if (count.cycle() == rollCycle.toCycle(lastRead)) {
                lag += Math.max(0, count.excerpts() - rollCycle.toSequence(lastRead) - 1);
            }
        }
        return lag;
    }
}
