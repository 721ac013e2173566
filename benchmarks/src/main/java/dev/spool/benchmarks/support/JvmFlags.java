package dev.spool.benchmarks.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The JVM flags a benchmark JVM needs, read from {@code jvm-flags.properties}, which Maven fills from the parent
 * pom's {@code spool.jvm.*} properties: the flags are written in one place, and the launcher picks the ones for
 * the Java version it runs on, since a jar built on Java 17 may run on 25 and the other way round.
 */
public final class JvmFlags {
    /** Java's feature version from which the {@code flags.jdk23} flags are needed, and accepted. */
    static final int JDK23 = 23;
    private static final String RESOURCE = "jvm-flags.properties";

    private final List<String> flags;
    private final List<String> jdk23Flags;
    private final List<String> quietFlags;
    private final List<String> manifestAddExports;
    private final List<String> manifestAddOpens;

    private JvmFlags(final Properties properties) {
        this.flags = list(properties, "flags");
        this.jdk23Flags = list(properties, "flags.jdk23");
        this.quietFlags = list(properties, "quiet");
        this.manifestAddExports = list(properties, "manifest.addExports");
        this.manifestAddOpens = list(properties, "manifest.addOpens");
    }

    /** @return the flags of this build. */
    public static JvmFlags load() {
        final Properties properties = new Properties();
        try (InputStream in = JvmFlags.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path next to "
                        + JvmFlags.class.getName());
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + ": " + e.getMessage(), e);
        }
        return new JvmFlags(properties);
    }

    private static List<String> list(final Properties properties, final String key) {
        final String value = properties.getProperty(key);
        if (value == null || value.contains("${")) {
            throw new IllegalStateException(RESOURCE + " has no filtered value for '" + key + "' (found " + value
                    + "): build the benchmarks with Maven, which fills it from the poms");
        }
        final String trimmed = value.trim();
        return trimmed.isEmpty() ? List.of() : List.of(trimmed.split("\\s+"));
    }

    /**
     * @param featureVersion the Java feature version of the JVM that will get the flags.
     * @return the flags Chronicle needs there, then the ones that quieten its start-up.
     */
    public List<String> forkFlags(final int featureVersion) {
        final List<String> all = new ArrayList<>(flags);
        if (featureVersion >= JDK23) {
            all.addAll(jdk23Flags);
        }
        all.addAll(quietFlags);
        return all;
    }

    /** @return the {@code --add-exports}/{@code --add-opens} flags every Java version needs. */
    List<String> flags() {
        return flags;
    }

    /** @return the {@code Add-Exports} manifest attribute's entries, {@code module/package}. */
    List<String> manifestAddExports() {
        return manifestAddExports;
    }

    /** @return the {@code Add-Opens} manifest attribute's entries, {@code module/package}. */
    List<String> manifestAddOpens() {
        return manifestAddOpens;
    }
}
