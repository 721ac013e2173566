package dev.spool.replication;

/** Sizes of the slow suite: short in every build, full with {@code -Pslow}. */
final class Soak {
    private Soak() {
    }

    static boolean full() {
        return "full".equals(System.getProperty("spool.soak", "short"));
    }

    /** @return {@code fullCount} with -Pslow, else {@code shortCount}. */
    static int count(final int shortCount, final int fullCount) {
        return full() ? fullCount : shortCount;
    }
}
