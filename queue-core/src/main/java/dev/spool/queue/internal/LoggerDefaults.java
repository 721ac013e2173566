package dev.spool.queue.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Default levels for the loggers of the libraries Spool runs on (Chronicle, ZooKeeper, Curator), so their INFO
 * start-up lines stay out of an application's log, set for slf4j-simple only and only where the user set nothing:
 * slf4j-simple reads {@code org.slf4j.simpleLogger.log.<logger>} from the system properties before its
 * {@code simplelogger.properties}, so a default set as a property would override that file; this class therefore
 * sets the property only if neither names the logger. Other SLF4J bindings (Logback, Log4j 2) take levels from their
 * own configuration only, which Spool never touches (docs/operations/observability.md, "Logging", says what to set there). A level
 * is read when a logger is made, so call {@link #quiet} before the library's classes load.
 */
public final class LoggerDefaults {
    /** slf4j-simple's prefix of a logger's level property. */
    static final String SIMPLE_LOGGER_PREFIX = "org.slf4j.simpleLogger.log.";
    /** slf4j-simple's configuration file, on the class path. */
    static final String SIMPLE_LOGGER_FILE = "simplelogger.properties";

    private LoggerDefaults() {
    }

    /**
     * Sets slf4j-simple's level of {@code logger} (and the loggers under it) to WARN, unless the user set it as a system
     * property or in {@code simplelogger.properties}.
     *
     * @param logger a logger name, or the prefix of several: {@code org.apache.zookeeper}.
     */
    public static void quiet(final String logger) {
        final String property = SIMPLE_LOGGER_PREFIX + logger;
        if (System.getProperty(property) == null && !userFile().containsKey(property)) {
            System.setProperty(property, "warn");
        }
    }

    /** @return the first {@code simplelogger.properties} on the class path, as slf4j-simple would read it; or none. */
    private static Properties userFile() {
        final Properties properties = new Properties();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = ClassLoader.getSystemClassLoader();
        }
        try (InputStream in = loader.getResourceAsStream(SIMPLE_LOGGER_FILE)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + SIMPLE_LOGGER_FILE + " from the class path", e);
        }
        return properties;
    }
}
