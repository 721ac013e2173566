package dev.spool.queue.tools;

import dev.spool.queue.RollCycle;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which indices hold an excerpt, found with plain reads like {@link QueueStats}: the count of data excerpts in each
 * cycle file, walked up to its end or its first damage. Cycles without a file hold none, so the indices of a queue
 * are not one run from the first to the last.
 */
final class IndexRange {
    private final RollCycle rollCycle;
    /** Data excerpts per cycle, cycles in order; only cycles that hold at least one. */
    private final TreeMap<Long, Long> counts;

    private IndexRange(final RollCycle rollCycle, final TreeMap<Long, Long> counts) {
        this.rollCycle = rollCycle;
        this.counts = counts;
    }

    /**
     * @param queue     the queue's files.
     * @param rollCycle its roll cycle, known.
     * @return the indices its cycle files hold.
     */
    static IndexRange scan(final QueueFiles queue, final RollCycle rollCycle) {
        final TreeMap<Long, Long> counts = new TreeMap<>();
        for (final QueueFiles.CycleFileName name : queue.cycleFiles(rollCycle, new ArrayList<>())) {
            try (ReadOnlyFile file = ReadOnlyFile.open(name.path())) {
                if (file.length() < CycleDescriptor.DATA_OFFSET) {
                    continue;
                }
                final int entries = file.readInt(CycleDescriptor.INDEX_BLOCK_ENTRIES_OFFSET);
                final int maxEntries = MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES;
                final ExcerptScanner scanner = new ExcerptScanner(file, queue.maxDataLength(),
                        QueueFiles.isPowerOfTwo(entries) && entries <= maxEntries ? entries : maxEntries);
                while (!scanner.next().isEnd()) {
                    // counting: the scanner counts the data excerpts it passes
                }
                if (scanner.dataCount() > 0) {
                    counts.put(name.cycle(), scanner.dataCount());
                }
            }
        }
        return new IndexRange(rollCycle, counts);
    }

    /**
     * @param index a queue index.
     * @return true if an excerpt has it.
     */
    boolean holds(final long index) {
        final Long count = counts.get(rollCycle.toCycle(index));
        return count != null && rollCycle.toSequence(index) < count;
    }

    /** @return the first index that holds an excerpt, or -1 if none does. */
    long first() {
        return counts.isEmpty() ? -1 : rollCycle.toIndex(counts.firstKey(), 0);
    }

    /** @return the last index that holds an excerpt, or -1 if none does. */
    long last() {
        if (counts.isEmpty()) {
            return -1;
        }
        final Map.Entry<Long, Long> last = counts.lastEntry();
        return rollCycle.toIndex(last.getKey(), last.getValue() - 1);
    }
}
