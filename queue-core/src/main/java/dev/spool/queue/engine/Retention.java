package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.CycleListener;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Deletes the files of old cycles: all but the newest {@code retainCycles} cycle files up to the highest cycle,
 * and all but the newest that fit in {@code retainBytes}. Deletion goes from the oldest file and stops at the first
 * that must stay, so the files left are always every file from the lowest cycle to the highest:
 * <ul>
 * <li>the highest cycle, and any file past it (created ahead of its roll), always stay;</li>
 * <li>a file open in this queue instance (a tailer reads it, or an appender or pretoucher has not moved on yet)
 * stays: see {@link CycleFiles#delete(long)};</li>
 * <li>with named tailers pinning, a cycle a named tailer has not passed stays: the cycle of its last read index
 * and all after it, every cycle if it has read nothing.</li>
 * <li>a cycle a replica still needs stays: the cycle of the index a replication source recorded as that replica's
 * acknowledged one ({@link MetadataDescriptor#REPLICA_NAME_PREFIX}) and all after it, every cycle if it has none;
 * unless the replica lags more than {@code maxReplicaLagCycles} cycles behind the highest, when it stops pinning,
 * with one WARN naming it and its lag, until it is back within the limit: a dead replica never fills the disk.</li>
 * </ul>
 * A tailer of another process cannot be protected: its mapping of a deleted file stays valid, so it reads that
 * file to its end, then moves on to the next file that exists; files it had not reached are lost to it.
 * <p>
 * The bytes of a cycle are its used length, the write position in its header: the header, the root index and the
 * excerpts, not the sparse file's apparent length. The used length of a cycle below the highest no longer changes
 * and is remembered.
 */
final class Retention {
    private static final Logger LOG = LoggerFactory.getLogger(Retention.class);
    private final Store store;
    private final MetadataFile metadata;
    private final CycleFiles cycleFiles;
    private final RollCycle rollCycle;
    private final int retainCycles;
    private final long retainBytes;
    private final boolean pinnedByNamedTailers;
    private final int maxReplicaLagCycles;
    private final CycleListener listener;
    /** The replicas past the lag limit, warned of once: each WARN is logged when a replica crosses it. */
    private final Set<String> unpinned = new HashSet<>();
    private final Map<Long, Long> usedLengths = new HashMap<>();
    private final ByteBuffer hint = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);

    /**
     * @param retainCycles         cycle files to keep, {@link Integer#MAX_VALUE} for no limit.
     * @param retainBytes          used bytes to keep, {@link Long#MAX_VALUE} for no limit.
     * @param pinnedByNamedTailers whether a named tailer's unread cycles stay.
     * @param maxReplicaLagCycles  cycles a replica may lag behind the highest and still pin its cycles.
     */
    Retention(final Store store, final int retainCycles, final long retainBytes, final boolean pinnedByNamedTailers,
              final int maxReplicaLagCycles, final CycleListener listener) {
        this.store = store;
        this.metadata = store.metadata();
        this.cycleFiles = store.cycleFiles();
        this.rollCycle = store.rollCycle();
        this.retainCycles = retainCycles;
        this.retainBytes = retainBytes;
        this.pinnedByNamedTailers = pinnedByNamedTailers;
        this.maxReplicaLagCycles = maxReplicaLagCycles;
        this.listener = listener;
    }

    /** @return true if a limit is set: otherwise every cycle is kept and {@link #apply()} does nothing. */
    boolean isLimited() {
        return retainCycles != Integer.MAX_VALUE || retainBytes != Long.MAX_VALUE;
    }

    /**
     * @return the number of files deleted.
     * @throws SpoolException if the queue is closed, or was opened read-only.
     */
    synchronized int apply() {
        if (!isLimited()) {
            return 0;
        }
        // a retention agent's thread may run this while the queue closes: the files stay mapped until it is done
        store.guard().enter();
        try {
            return applyLimits();
        } finally {
            store.guard().exit();
        }
    }

    private int applyLimits() {
        // the used lengths of ended cycles are read before taking the write lock, which writers wait for
        usedLengthsBelow(metadata.highestCycle(), cycleFiles.cycles());
        final List<String> lagging = new ArrayList<>();
        final long[] deleted;
        int count = 0;
        final WriteLock lock = store.writeLock();
        lock.lock();
        try {
            // under the lock: no writer starts a cycle, and no other retention runs, until the lowest cycle is set
            final long highest = metadata.highestCycle();
            final long[] cycles = cycleFiles.cycles();
            final int started = startedCount(cycles, highest);
            if (started == 0) {
                return 0;
            }
            final int keepFrom = keepFrom(cycles, started, highest);
            final long pin = Math.min(pinnedByNamedTailers ? pinnedCycle() : Long.MAX_VALUE,
                    replicaPinnedCycle(lagging));
            deleted = new long[keepFrom];
            int first = 0;
            while (first < keepFrom && cycles[first] < pin) {
                final int result = cycleFiles.delete(cycles[first]);
                if (result == CycleFiles.IN_USE) {
                    break;
                }
                if (result == CycleFiles.DELETED) {
                    deleted[count++] = cycles[first];
                }
                usedLengths.remove(cycles[first]);
                first++;
            }
            if (first > 0) {
                metadata.raiseLowestCycle(cycles[first]);
            }
        } finally {
            lock.unlock();
        }
        for (final String replica : lagging) {
            LOG.warn("retention of {}: replica {}: past maxReplicaLagCycles={}, it no longer keeps cycles from"
                    + " deletion; once they are deleted, the replica is rebuilt from the oldest cycle left",
                    store.directory(), replica, maxReplicaLagCycles);
        }
        for (int i = 0; i < count; i++) {
            listener.onDeleted(deleted[i], cycleFiles.path(deleted[i]));
        }
        return count;
    }

    /** @return how many of the ascending {@code cycles} are at or below the highest: started by a writer. */
    private static int startedCount(final long[] cycles, final long highest) {
        final int found = Arrays.binarySearch(cycles, highest);
        return found >= 0 ? found + 1 : -found - 1;
    }

    /** @return the position in {@code cycles} of the oldest file to keep: the newest started one at least. */
    private int keepFrom(final long[] cycles, final int started, final long highest) {
        int keepFrom = started - 1;
        if (retainBytes == Long.MAX_VALUE) {
            return Math.max(0, started - retainCycles);
        }
        long bytes = usedLength(cycles[keepFrom], highest);
        while (keepFrom > 0 && started - keepFrom < retainCycles) {
            final long older = usedLength(cycles[keepFrom - 1], highest);
            if (bytes + older > retainBytes) {
                break;
            }
            bytes += older;
            keepFrom--;
        }
        return keepFrom;
    }

    /** @return the oldest cycle a named tailer has not passed, -1 if one has read nothing, or MAX_VALUE if none. */
    private long pinnedCycle() {
        final long index = metadata.oldestNamedTailerIndex();
        if (index == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return index < 0 ? -1 : rollCycle.toCycle(index);
    }

    /**
     * Caller holds the write lock, and logs what {@code lagging} holds once it is released.
     *
     * @param lagging receives, for each replica that crossed the lag limit since the last run, its name and lag.
     * @return the oldest cycle a replica within the lag limit still needs, -1 if one has acknowledged nothing, or
     * MAX_VALUE if none pins.
     */
    private long replicaPinnedCycle(final List<String> lagging) {
        final Map<String, Long> replicas = metadata.replicaIndices();
        if (replicas.isEmpty() && unpinned.isEmpty()) {
            return Long.MAX_VALUE;
        }
        final long highest = metadata.highestCycle();
        final long lowest = metadata.lowestCycle();
        long pin = Long.MAX_VALUE;
        for (final Map.Entry<String, Long> replica : replicas.entrySet()) {
            final long index = replica.getValue();
            // a replica with nothing acknowledged needs every cycle: it lags from the lowest
            final long cycle = index < 0 ? lowest : rollCycle.toCycle(index);
            final long lag = highest - cycle;
            final String name = replica.getKey();
            // one that acknowledged nothing stays unpinned: the lowest cycle rises as retention deletes, not its lag
            if (lag > maxReplicaLagCycles || index < 0 && unpinned.contains(name)) {
                if (unpinned.add(name)) {
                    lagging.add(name.substring(MetadataDescriptor.REPLICA_NAME_PREFIX.length()) + " acknowledged "
                            + (index < 0 ? "nothing" : "index " + IndexFormat.format(index, rollCycle)) + ", " + lag
                            + " cycles behind the highest cycle");
                }
            } else {
                unpinned.remove(name);
                pin = Math.min(pin, index < 0 ? -1 : cycle);
            }
        }
        unpinned.retainAll(replicas.keySet());
        return pin;
    }

    /** @return the names of the replicas that lag past the limit, so that retention no longer keeps their cycles. */
    synchronized Set<String> unpinnedReplicas() {
        return Set.copyOf(unpinned);
    }

    private void usedLengthsBelow(final long highest, final long[] cycles) {
        if (retainBytes == Long.MAX_VALUE) {
            return;
        }
        if (cycles.length > 0) {
            // forget cycles deleted meanwhile by retention in another process
            usedLengths.keySet().removeIf(cycle -> cycle < cycles[0]);
        }
        for (final long cycle : cycles) {
            if (cycle < highest) {
                usedLength(cycle, highest);
            }
        }
    }

    /** @return the write position of the cycle's file: remembered below the highest cycle, where it is final. */
    private long usedLength(final long cycle, final long highest) {
        final Long known = usedLengths.get(cycle);
        if (known != null) {
            return known;
        }
        final long length = readWritePosition(cycleFiles.path(cycle));
        if (cycle < highest) {
            usedLengths.put(cycle, length);
        }
        return length;
    }

    /** Reads the hint with a positional read: mapping a file just to measure it would grow it to a whole chunk. */
    private long readWritePosition(final Path path) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            hint.clear();
            while (hint.hasRemaining()) {
                if (channel.read(hint, CycleDescriptor.WRITE_POSITION_OFFSET + hint.position()) < 0) {
                    throw new CorruptQueueException(path, CycleDescriptor.WRITE_POSITION_OFFSET,
                            "cycle file truncated: it ends before the write position hint, length=" + channel.size());
                }
            }
            return hint.getLong(0);
        } catch (NoSuchFileException e) {
            // deleted by retention in another process since it was listed: it takes no room
            return 0;
        } catch (IOException e) {
            throw new SpoolException("cannot read the write position of " + path + ": " + e.getMessage(), e);
        }
    }
}
