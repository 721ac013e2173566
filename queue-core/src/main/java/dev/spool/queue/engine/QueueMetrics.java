package dev.spool.queue.engine;

import dev.spool.queue.QueueMXBean;
import dev.spool.queue.RollCycle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link QueueMXBean} of one open queue instance: sums the open appenders' counters and the closed ones' totals,
 * and reads the indices from the metadata and the files. Off the hot path: every call takes the store's monitor or
 * reads through the queue's guard. After the queue closed, the counters keep their last values and a read of an
 * index or role throws a {@link dev.spool.queue.SpoolException} saying the queue is closed.
 */
final class QueueMetrics implements QueueMXBean {
    private final QueueEngine engine;
    private final Store store;
    private final StoreCounters counters;

    QueueMetrics(final QueueEngine engine, final Store store) {
        this.engine = engine;
        this.store = store;
        this.counters = store.counters();
    }

    @Override
    public String getDirectory() {
        return store.directory().toString();
    }

    @Override
    public long getAppends() {
        synchronized (store.users()) {
            long sum = counters.closedAppends;
            for (final AppenderCounters open : store.openAppenderCounters()) {
                sum += open.appends();
            }
            return sum;
        }
    }

    @Override
    public long getAppendedBytes() {
        synchronized (store.users()) {
            long sum = counters.closedAppendedBytes;
            for (final AppenderCounters open : store.openAppenderCounters()) {
                sum += open.appendedBytes();
            }
            return sum;
        }
    }

    @Override
    public long getLastIndex() {
        return engine.lastIndex();
    }

    @Override
    public long getLastSyncedIndex() {
        return engine.lastSyncedIndex();
    }

    @Override
    public long getSyncs() {
        synchronized (store.users()) {
            long sum = counters.closedSyncs;
            for (final AppenderCounters open : store.openAppenderCounters()) {
                sum += open.syncs();
            }
            return sum;
        }
    }

    @Override
    public long getSyncTimeTotalNanos() {
        synchronized (store.users()) {
            long sum = counters.closedSyncNanos;
            for (final AppenderCounters open : store.openAppenderCounters()) {
                sum += open.syncNanos();
            }
            return sum;
        }
    }

    @Override
    public long getSyncTimeMaxNanos() {
        synchronized (store.users()) {
            long max = counters.maxSyncNanos;
            for (final AppenderCounters open : store.openAppenderCounters()) {
                max = Math.max(max, open.maxSyncNanos());
            }
            return max;
        }
    }

    @Override
    public long getWriteLockTakeovers() {
        return counters.writeLockTakeovers.get();
    }

    @Override
    public long getTornTailRecoveries() {
        return counters.tornTailRecoveries.get();
    }

    @Override
    public long getTornHintRepairs() {
        return counters.tornHintRepairs.get();
    }

    @Override
    public int getOpenUsers() {
        synchronized (store.users()) {
            return store.openUsers().size();
        }
    }

    @Override
    public int getOpenCycleFiles() {
        return store.openCycleFiles();
    }

    @Override
    public Map<String, Long> getNamedTailerIndex() {
        return engine.namedTailerIndices();
    }

    @Override
    public Map<String, Long> getNamedTailerLag() {
        final long last = engine.lastIndex();
        final Map<String, Long> lags = new LinkedHashMap<>();
        engine.namedTailerIndices().forEach((name, read) -> lags.put(name, excerptsAfter(read, last)));
        return lags;
    }

    @Override
    public String getRole() {
        return engine.role().name();
    }

    @Override
    public long getLastAckedIndex() {
        return engine.lastAckedIndex();
    }

    @Override
    public long getAckLag() {
        return excerptsAfter(engine.lastAckedIndex(), engine.lastIndex());
    }

    /** @return the excerpts with an index above {@code read} up to {@code last}; -1 for {@code read} means none read. */
    private long excerptsAfter(final long read, final long last) {
        if (last < 0 || read >= last) {
            return 0;
        }
        final RollCycle rollCycle = store.rollCycle();
        final long lastCycle = rollCycle.toCycle(last);
        final long readCycle = read < 0 ? -1 : rollCycle.toCycle(read);
        if (readCycle == lastCycle) {
            return rollCycle.toSequence(last) - rollCycle.toSequence(read);
        }
        long count = rollCycle.toSequence(last) + 1;
        for (final long cycle : store.cycleFiles().cycles()) {
            final Path path = store.cycleFiles().path(cycle);
            // retention may delete a listed file meanwhile: its excerpts are gone, and no longer lag
            if (cycle >= readCycle && cycle < lastCycle && Files.exists(path)) {
                final long written = CycleFile.readSequenceHint(path);
                count += cycle == readCycle ? Math.max(0, written - rollCycle.toSequence(read) - 1) : written;
            }
        }
        return count;
    }
}
