package dev.spool.benchmarks.support;

/**
 * The names of the three contenders every suite compares, so that a JLBH variant, the latency tables and the JMH
 * plot mean the same thing by them: the floor, Spool and Chronicle Queue.
 */
public final class VariantNames {
    /** The variant every other is divided by first: E0, the in-memory handoff; in JMH, a bare copy into a mapped file. */
    public static final String FLOOR = "floor";
    /** The plain Spool queue. */
    public static final String SPOOL = "spool";
    /** The peer queue every Spool variant is divided by: Chronicle Queue open source. */
    public static final String CHRONICLE = "chronicle";

    private VariantNames() {
    }
}
