package dev.spool.queue.internal;

/**
 * The system properties that keep Chronicle's start-up and performance INFO lines ("Chronicle core loaded from",
 * "Took N ms to add mapping", "Took N us to grow file") out of an application's log. Chronicle reads them once, when
 * its classes load, so {@code SpoolQueue}, {@code RingBuffer} and the replication protocol's {@code Connection} (all
 * a client-only process loads) call {@link #apply()} in their static initializers, before they touch Chronicle. A
 * property the user set (on the command line, before, or in slf4j-simple's file) is left as it is.
 */
public final class ChronicleDefaults {
    /** Chronicle's switch for its performance notes, which it logs at INFO. */
    static final String PERF_INFO = "disable.perf.info";
    /** The prefix of Chronicle's loggers; slf4j-simple's level for them is set, other bindings take theirs. */
    static final String CHRONICLE_LOGGERS = "net.openhft";

    private ChronicleDefaults() {
    }

    /**
     * Sets each property to its quiet value unless it is set already (the level also unless the user's
     * {@code simplelogger.properties} sets it: {@link LoggerDefaults}). Idempotent and cheap: every class through
     * which Spool first touches Chronicle calls it, so that no path (a queue, a ring, or a connection alone, as in a
     * client-only process) reaches Chronicle first.
     */
    public static void apply() {
        defaultProperty(PERF_INFO, "true");
        LoggerDefaults.quiet(CHRONICLE_LOGGERS);
    }

    private static void defaultProperty(final String name, final String value) {
        if (System.getProperty(name) == null) {
            System.setProperty(name, value);
        }
    }
}
