package dev.spool.queue.internal;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** A default level is set only where the user set none: as a system property, or in simplelogger.properties. */
class LoggerDefaultsTest {
    private static final String LOGGER = "dev.spool.test.quiet";

    @AfterEach
    void clear() {
        System.clearProperty(LoggerDefaults.SIMPLE_LOGGER_PREFIX + LOGGER);
    }

    @Test
    void shouldSetWarnWhereTheUserSetNothing() {
        LoggerDefaults.quiet(LOGGER);
        assertEquals("warn", System.getProperty(LoggerDefaults.SIMPLE_LOGGER_PREFIX + LOGGER));
    }

    @Test
    void shouldLeaveALevelTheUserSetAsAProperty() {
        System.setProperty(LoggerDefaults.SIMPLE_LOGGER_PREFIX + LOGGER, "debug");
        LoggerDefaults.quiet(LOGGER);
        assertEquals("debug", System.getProperty(LoggerDefaults.SIMPLE_LOGGER_PREFIX + LOGGER));
    }

    @Test
    void shouldNotOverrideALevelTheUsersSimpleLoggerFileSets() {
        // the tests' simplelogger.properties sets net.openhft; a property would override the file, so none is set
        final String property = LoggerDefaults.SIMPLE_LOGGER_PREFIX + "net.openhft";
        final String before = System.getProperty(property);
        System.clearProperty(property);
        try {
            LoggerDefaults.quiet("net.openhft");
            assertNull(System.getProperty(property));
        } finally {
            if (before != null) {
                System.setProperty(property, before);
            }
        }
    }
}
