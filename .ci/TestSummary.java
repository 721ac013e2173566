import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Prints "N passed, M failed" over every surefire report of every module and execution: CI's closing line. */
public final class TestSummary {
    private static final Pattern ATTRIBUTE = Pattern.compile("(tests|failures|errors|skipped)=\"(\\d+)\"");

    public static void main(final String[] args) throws IOException {
        final List<Path> reports;
        try (Stream<Path> files = Files.walk(Path.of("."), 5)) {
            reports = files.filter(f -> f.getFileName().toString().startsWith("TEST-") && f.toString().endsWith(".xml")
                    && f.toString().contains("surefire-reports")).collect(Collectors.toList());
        }
        long passed = 0;
        long failed = 0;
        for (final Path report : reports) {
            final String text = Files.readString(report);
            final int start = text.indexOf("<testsuite ");
            final String suite = text.substring(start, text.indexOf('>', start));
            long tests = 0, failures = 0, errors = 0, skipped = 0;
            final Matcher m = ATTRIBUTE.matcher(suite);
            while (m.find()) {
                final long value = Long.parseLong(m.group(2));
                switch (m.group(1)) {
                    case "tests" -> tests = value;
                    case "failures" -> failures = value;
                    case "errors" -> errors = value;
                    default -> skipped = value;
                }
            }
            failed += failures + errors;
            passed += tests - failures - errors - skipped;
        }
        System.out.println(passed + " passed, " + failed + " failed");
    }
}
