package dev.spool.benchmarks.support;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JvmFlagsTest {
    private final JvmFlags flags = JvmFlags.load();

    @Test
    void shouldGiveJava17OnlyTheFlagsItAccepts() {
        final List<String> java17 = flags.forkFlags(17);
        assertTrue(java17.containsAll(flags.flags()), java17::toString);
        assertTrue(java17.contains("-Ddisable.perf.info=true"), java17::toString);
        assertFalse(java17.contains("--sun-misc-unsafe-memory-access=allow"), "Java 17 refuses to start with it");
    }

    @Test
    void shouldAddNativeAccessAndUnsafeFlagsFromJava23() {
        final List<String> java23 = flags.forkFlags(JvmFlags.JDK23);
        assertTrue(java23.containsAll(flags.flags()), java23::toString);
        assertTrue(java23.contains("--enable-native-access=ALL-UNNAMED"), java23::toString);
        assertTrue(java23.contains("--sun-misc-unsafe-memory-access=allow"), java23::toString);
    }

    @Test
    void shouldOpenInTheManifestWhatTheFlagsOpen() {
        assertEquals(manifestForm(flags.flags(), "--add-exports="), flags.manifestAddExports());
        assertEquals(manifestForm(flags.flags(), "--add-opens="), flags.manifestAddOpens());
    }

    /** {@code --add-opens=java.base/java.lang=ALL-UNNAMED} becomes {@code java.base/java.lang}. */
    private static List<String> manifestForm(final List<String> flags, final String prefix) {
        final List<String> entries = new ArrayList<>();
        for (final String flag : flags) {
            if (flag.startsWith(prefix)) {
                assertTrue(flag.endsWith("=ALL-UNNAMED"), flag + ": the manifest can only open to ALL-UNNAMED");
                entries.add(flag.substring(prefix.length(), flag.length() - "=ALL-UNNAMED".length()));
            }
        }
        return entries;
    }
}
