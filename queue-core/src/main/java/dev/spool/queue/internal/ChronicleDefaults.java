package dev.spool.queue.internal;

/**
 * The system properties that keep Chronicle's start-up and performance INFO lines ("Chronicle core loaded from",
 * "Took N ms to add mapping", "Took N us to grow file") out of an application's log. Chronicle reads them once, when
 * its classes load, so {@code SpoolQueue} and {@code RingBuffer} call {@link #apply()} in their static initializers,
 * before they touch Chronicle. A property the user set (on the command line or before) is left as it is.
 */
public final class ChronicleDefaults {
    /** Chronicle's switch for its performance notes, which it logs at INFO. */
    static final String PERF_INFO = "disable.perf.info";
    /** slf4j-simple's level for Chronicle's loggers; other bindings take it from their own configuration. */
    static final String SIMPLE_LOGGER_LEVEL = "org.slf4j.simpleLogger.log.net.openhft";

    private ChronicleDefaults() {
    }

    /** Sets each property to its quiet value unless it is set already. */
    public static void apply() {
        defaultProperty(PERF_INFO, "true");
        defaultProperty(SIMPLE_LOGGER_LEVEL, "warn");
    }

    private static void defaultProperty(final String name, final String value) {
        if (System.getProperty(name) == null) {
            System.setProperty(name, value);
        }
    }
}
