package dev.spool.benchmarks.support;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a result depends on besides the code: when, on what CPUs and JDK, with which command, JVM flags and file
 * system, and how busy the machine was as the run started (these machines are shared). Written at the top of
 * every result file, and alone as JSON.
 */
public final class MachineFacts {
    private final Map<String, String> facts;

    private MachineFacts(final Map<String, String> facts) {
        this.facts = facts;
    }

    /**
     * @param args           the launcher's arguments.
     * @param benchDirectory where the benchmarks create their files.
     * @param forkFlags      the flags each benchmark JVM gets.
     * @return the facts of this machine, now.
     */
    public static MachineFacts collect(final String[] args, final Path benchDirectory, final List<String> forkFlags) {
        final Map<String, String> facts = new LinkedHashMap<>();
        facts.put("date", OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS)
                .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        facts.put("command", command(args));
        facts.put("cpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
        facts.put("cpuModel", cpuModel());
        facts.put("loadAverage", firstLine(Paths.get("/proc/loadavg"), ""));
        facts.put("memory", memory());
        facts.put("jdk", System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version") + " (" + System.getProperty("java.home") + ")");
        facts.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        facts.put("benchDirectory", benchDirectory + " (" + fileSystem(benchDirectory) + ")");
        facts.put("forkFlags", String.join(" ", forkFlags));
        return new MachineFacts(facts);
    }

    private static String command(final String[] args) {
        // the JVM's own command line has the java binary and its options; not every platform gives it
        return ProcessHandle.current().info().commandLine()
                .orElse("java -jar benchmarks.jar " + String.join(" ", args));
    }

    /** @return the CPU's model name, from {@code /proc/cpuinfo}, or "unknown". */
    public static String cpuModel() {
        return firstLine(Paths.get("/proc/cpuinfo"), "model name");
    }

    /** @return the value of the first line starting with {@code key} ({@code key: value}), or "unknown". */
    private static String firstLine(final Path file, final String key) {
        if (!Files.isReadable(file)) {
            return "unknown";
        }
        try (Stream<String> lines = Files.lines(file)) {
            return lines.filter(line -> line.startsWith(key))
                    .map(line -> key.isEmpty() ? line : line.substring(line.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown");
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** @return the machine's physical memory, e.g. {@code 24105 MiB}, or "unknown". */
    public static String memory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return (os.getTotalMemorySize() >> 20) + " MiB";
        }
        return "unknown";
    }

    /**
     * @param directory a directory, or a path not created yet (its nearest existing parent tells).
     * @return the type of the file system it is on, e.g. {@code ext4} or {@code tmpfs}.
     */
    public static String fileSystem(final Path directory) {
        Path existing = directory;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return "file system unknown";
        }
        try {
            return Files.getFileStore(existing).type();
        } catch (IOException e) {
            return "file system unknown (" + e.getMessage() + ")";
        }
    }

    /** @return one {@code # name: value} line per fact. */
    public String toText() {
        final StringBuilder text = new StringBuilder();
        for (final Map.Entry<String, String> fact : facts.entrySet()) {
            text.append("# ").append(fact.getKey()).append(": ").append(fact.getValue()).append(System.lineSeparator());
        }
        return text.toString();
    }

    /** @return the facts as one JSON object of strings. */
    public String toJson() {
        final StringBuilder json = new StringBuilder("{\n");
        String separator = "";
        for (final Map.Entry<String, String> fact : facts.entrySet()) {
            json.append(separator).append("  \"").append(fact.getKey()).append("\": ").append(quote(fact.getValue()));
            separator = ",\n";
        }
        return json.append("\n}\n").toString();
    }

    private static String quote(final String value) {
        final StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            final char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20) {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }
}
