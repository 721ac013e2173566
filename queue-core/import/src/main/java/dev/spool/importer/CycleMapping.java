package dev.spool.importer;

import dev.spool.queue.RollCycle;
import dev.spool.queue.internal.CycleCalendar;

/**
 * Where the documents of each Chronicle cycle go in the Spool queue, and the times their index entries get.
 * Chronicle cycle {@code c} starts at {@code epoch + c * length}; all of its documents go, in order, into the Spool
 * cycle that holds that start, so a Spool cycle holds one Chronicle cycle (same length and epoch), several (a longer
 * Spool cycle) or part of one's time span (a shorter one), and the mapping never goes back in time. Chronicle Queue
 * records no time per document, only its cycle: an index entry gets the time the document was read, but never
 * later than the end of its Chronicle cycle (nor outside its Spool cycle), an upper bound of when Chronicle's writer
 * appended it, so that {@code moveToTime} never skips a document appended at or after the time asked.
 */
final class CycleMapping {
    private final long chronicleEpochMillis;
    private final long chronicleLengthMillis;
    private final CycleCalendar spool;

    CycleMapping(final long chronicleEpochMillis, final long chronicleLengthMillis, final CycleCalendar spool) {
        this.chronicleEpochMillis = chronicleEpochMillis;
        this.chronicleLengthMillis = chronicleLengthMillis;
        this.spool = spool;
    }

    /**
     * @param chronicleLengthMillis the length of a Chronicle cycle.
     * @return the Spool roll cycle whose length is nearest by ratio (a five-minute cycle maps to minutes, a
     * half-hourly one to hours); the shorter of two equally near.
     */
    static RollCycle nearest(final long chronicleLengthMillis) {
        RollCycle best = RollCycle.SECONDLY;
        double bestDistance = Double.MAX_VALUE;
        for (final RollCycle candidate : RollCycle.values()) {
            final double distance = Math.abs(Math.log((double) candidate.lengthMillis() / chronicleLengthMillis));
            if (distance < bestDistance - 1e-9) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /**
     * @param chronicleCycle a Chronicle cycle.
     * @return the Spool cycle its documents go to.
     */
    long spoolCycle(final long chronicleCycle) {
        return spool.cycle(chronicleStartMillis(chronicleCycle));
    }

    /**
     * @param chronicleCycle the Chronicle cycle of a document.
     * @param nowMillis      the wall clock when it was read.
     * @return the time its index entry records.
     */
    long indexTime(final long chronicleCycle, final long nowMillis) {
        final long spoolCycle = spoolCycle(chronicleCycle);
        final long earliest = Math.max(chronicleStartMillis(chronicleCycle), spool.startMillis(spoolCycle));
        final long latest = Math.min(chronicleStartMillis(chronicleCycle + 1), spool.startMillis(spoolCycle + 1)) - 1;
        return Math.max(earliest, Math.min(nowMillis, latest));
    }

    private long chronicleStartMillis(final long chronicleCycle) {
        return chronicleEpochMillis + chronicleCycle * chronicleLengthMillis;
    }
}
