package dev.spool.queue;

/** Sizes of the slow suite: short in every build, full with {@code -Pslow}. */
public final class Soak {
    private Soak() {
    }

    public static boolean full() {
        return "full".equals(System.getProperty("spool.soak", "short"));
    }

    /** @return {@code fullCount} with -Pslow, else {@code shortCount}. */
    public static int count(final int shortCount, final int fullCount) {
        return full() ? fullCount : shortCount;
    }
}
