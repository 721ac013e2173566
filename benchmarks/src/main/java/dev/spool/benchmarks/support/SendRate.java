package dev.spool.benchmarks.support;

import java.util.Locale;

/**
 * Whether a paced sender held the rate it was asked for. A run that sends more slowly than asked waits less between
 * messages than planned, so its latencies flatter: every command that paces (the JLBH experiments, the demo's live
 * phase) marks such a run by this one rule.
 */
public final class SendRate {
    /** A sender this much below the rate asked for did not hold it. */
    public static final double TOLERANCE = 0.05;

    private SendRate() {
    }

    /**
     * @param achieved the rate sent, messages a second.
     * @param asked    the rate asked for.
     * @return false if it sent more than {@link #TOLERANCE} below the rate asked for.
     */
    public static boolean held(final double achieved, final int asked) {
        return achieved >= asked * (1 - TOLERANCE);
    }

    /**
     * @param rate messages a second.
     * @return it, rounded, with thousands separators.
     */
    public static String format(final double rate) {
        return String.format(Locale.ROOT, "%,.0f", rate);
    }
}
