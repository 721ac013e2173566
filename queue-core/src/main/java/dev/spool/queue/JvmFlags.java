package dev.spool.queue;

import java.util.ArrayList;
import java.util.List;

/**
 * Checks, before any Chronicle class loads, that the JVM was started with the flags Chronicle-Bytes needs, so a
 * user sees one message naming them instead of an {@link IllegalAccessError} from deep inside a mapping call.
 */
final class JvmFlags {
    /** Packages Chronicle reaches into with reflection or internal APIs: "module/package". */
    private static final String[] EXPORTS = {"java.base/jdk.internal.ref", "java.base/sun.nio.ch", "jdk.unsupported/sun.misc"};
    private static final String[] OPENS = {"java.base/java.lang.reflect", "java.base/java.lang", "java.base/java.io", "java.base/java.util"};

    private static volatile boolean checked;

    private JvmFlags() {
    }

    /** @throws SpoolException naming every missing flag. */
    static void check() {
        if (checked) {
            return;
        }
        final List<String> missing = missing();
        if (!missing.isEmpty()) {
            throw new SpoolException("Spool needs these JVM flags, missing here: " + String.join(" ", missing)
                    + System.lineSeparator() + "Add all of them to the java command line: " + String.join(" ", required()));
        }
        checked = true;
    }

    /** @return every flag Spool needs on this JVM, the ones for Java 23+ included when running there. */
    static List<String> required() {
        final List<String> flags = new ArrayList<>();
        for (final String export : EXPORTS) {
            flags.add("--add-exports=" + export + "=ALL-UNNAMED");
        }
        for (final String open : OPENS) {
            flags.add("--add-opens=" + open + "=ALL-UNNAMED");
        }
        if (Runtime.version().feature() >= 23) {
            flags.add("--enable-native-access=ALL-UNNAMED");
            flags.add("--sun-misc-unsafe-memory-access=allow");
        }
        return flags;
    }

    static List<String> missing() {
        final Module self = JvmFlags.class.getModule();
        final List<String> missing = new ArrayList<>();
        for (final String export : EXPORTS) {
            final Module module = module(export);
            if (module != null && !module.isExported(pkg(export), self)) {
                missing.add("--add-exports=" + export + "=ALL-UNNAMED");
            }
        }
        for (final String open : OPENS) {
            final Module module = module(open);
            if (module != null && !module.isOpen(pkg(open), self)) {
                missing.add("--add-opens=" + open + "=ALL-UNNAMED");
            }
        }
        return missing;
    }

    private static Module module(final String modulePackage) {
        final String name = modulePackage.substring(0, modulePackage.indexOf('/'));
        return ModuleLayer.boot().findModule(name).orElse(null);
    }

    private static String pkg(final String modulePackage) {
        return modulePackage.substring(modulePackage.indexOf('/') + 1);
    }
}
