package dev.spool.benchmarks.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A markdown page whose tables come from result files: each table sits between
 * {@code <!-- table:NAME file=RESULT-FILE -->} and {@code <!-- /table -->}, optionally with
 * {@code ratios=a/b,c/d} (further ratios of a JLBH file's variants), and everything between the two markers is
 * generated: a caption naming the file, the command and the machine, the table, and the run's plot if it has one.
 * A marker with {@code files=A,B,C} instead names several JLBH result files of one command, one per invocation, and
 * gets their spread ({@link SpreadTable}). Everything outside the markers is the page's own prose and is kept as it
 * is.
 */
public final class BenchmarkPage {
    private static final Pattern START = Pattern.compile("^<!-- table:(\\S+)((?: \\w+=\\S+)*) -->$");
    private static final String END = "<!-- /table -->";
    /** A result file's name starts with its UTC time, e.g. {@code 20261124T171650Z-}. */
    private static final int STAMP_LENGTH = "20261124T171650Z-".length();

    private final Path page;
    private final List<String> lines;
    private final List<Table> tables;

    /**
     * One table's place in the page.
     *
     * @param name       the table's name, for messages.
     * @param attributes {@code file} and the optional {@code ratios}.
     * @param start      the line of its start marker, from 0.
     * @param end        the line of its end marker.
     */
    private record Table(String name, Map<String, String> attributes, int start, int end) {
        String file() {
            return attributes.get("file");
        }
    }

    private BenchmarkPage(final Path page, final List<String> lines, final List<Table> tables) {
        this.page = page;
        this.lines = lines;
        this.tables = tables;
    }

    /**
     * @param page the markdown file.
     * @return the page and its tables.
     * @throws IllegalArgumentException if a marker lacks its file, or a table its end marker.
     */
    public static BenchmarkPage read(final Path page) {
        final List<String> lines;
        try {
            lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + page + ": " + e.getMessage(), e);
        }
        final List<Table> tables = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            final Matcher start = START.matcher(lines.get(i));
            if (!start.matches()) {
                if (lines.get(i).startsWith("<!-- table:")) {
                    throw new IllegalArgumentException(page + " line " + (i + 1)
                            + ": a table marker is <!-- table:NAME file=RESULT-FILE [ratios=a/b,c/d] --> or"
                            + " <!-- table:NAME files=RESULT-FILE,RESULT-FILE,... -->, not "
                            + lines.get(i));
                }
                continue;
            }
            final Map<String, String> attributes = new LinkedHashMap<>();
            for (final String attribute : start.group(2).trim().split(" ")) {
                if (!attribute.isEmpty()) {
                    attributes.put(attribute.substring(0, attribute.indexOf('=')),
                            attribute.substring(attribute.indexOf('=') + 1));
                }
            }
            if (!attributes.containsKey("file") && !attributes.containsKey("files")) {
                throw new IllegalArgumentException(page + " line " + (i + 1) + ": table " + start.group(1)
                        + " names no result file (file=... or files=...)");
            }
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).equals(END) && !START.matcher(lines.get(end)).matches()) {
                end++;
            }
            if (end == lines.size() || !lines.get(end).equals(END)) {
                throw new IllegalArgumentException(page + " line " + (i + 1) + ": table " + start.group(1)
                        + " has no " + END + " before the next table or the end of the page");
            }
            tables.add(new Table(start.group(1), attributes, i, end));
            i = end;
        }
        return new BenchmarkPage(page, lines, tables);
    }

    /** @return the names of the page's tables, in page order. */
    public List<String> tableNames() {
        return tables.stream().map(Table::name).toList();
    }

    /**
     * @param results the directory of the result files.
     * @return the names of the tables whose text differs from what their result files give, in page order.
     */
    public List<String> differences(final Path results) {
        final List<String> differing = new ArrayList<>();
        for (final Table table : tables) {
            if (!lines.subList(table.start() + 1, table.end()).equals(generate(table, results))) {
                differing.add(table.name());
            }
        }
        return differing;
    }

    /**
     * @param results the directory of the result files.
     * @return the page with every table generated anew from its result file.
     */
    public String render(final Path results) {
        final List<String> rendered = new ArrayList<>();
        int next = 0;
        for (final Table table : tables) {
            rendered.addAll(lines.subList(next, table.start() + 1));
            rendered.addAll(generate(table, results));
            next = table.end();
        }
        rendered.addAll(lines.subList(next, lines.size()));
        return String.join("\n", rendered) + "\n";
    }

    /**
     * @param results the directory of the result files.
     * @return per table, the result files of the same run label written after the one it shows (a newer run of the
     * same experiment that the page may want), only for tables that have any.
     */
    public Map<String, List<String>> newerRuns(final Path results) {
        final Map<String, List<String>> newer = new LinkedHashMap<>();
        final String[] names = results.toFile().list();
        if (names == null) {
            return newer;
        }
        Arrays.sort(names);
        for (final Table table : tables) {
            final String file = table.file();
            if (file == null || file.length() <= STAMP_LENGTH) {
                continue;
            }
            final List<String> later = new ArrayList<>();
            for (final String name : names) {
                if (name.length() > STAMP_LENGTH && name.substring(STAMP_LENGTH).equals(file.substring(STAMP_LENGTH))
                        && name.compareTo(file) > 0) {
                    later.add(name);
                }
            }
            if (!later.isEmpty()) {
                newer.put(table.name(), later);
            }
        }
        return newer;
    }

    /** @return the lines between the table's markers, as its result file gives them. */
    private List<String> generate(final Table table, final Path results) {
        if (table.file() == null) {
            final List<String> files = List.of(table.attributes().get("files").split(","));
            final List<List<String>> contents = new ArrayList<>();
            for (final String file : files) {
                contents.add(readResult(table, results.resolve(file)));
            }
            return lines(SpreadTable.render(files, contents));
        }
        final List<String> content = readResult(table, results.resolve(table.file()));
        final String name = table.file();
        final String markdown;
        if (name.contains("-jlbh-")) {
            final String ratios = table.attributes().getOrDefault("ratios", "");
            markdown = JlbhTable.render(name, content, ratios.isEmpty() ? List.of() : List.of(ratios.split(",")));
        } else if (name.contains("-jmh-")) {
            markdown = JmhTable.render(name, content);
        } else if (name.contains("-startup")) {
            markdown = StartupTable.render(name, content);
        } else if (name.contains("-failover")) {
            markdown = FailoverTable.render(name, content);
        } else {
            throw new IllegalArgumentException("table " + table.name() + " of " + page + ": " + name
                    + " is not a jlbh, jmh, startup or failover result file");
        }
        final List<String> generated = lines(markdown);
        final String plot = name.substring(0, name.length() - ".txt".length()) + ".png";
        if (name.endsWith(".txt") && Files.exists(results.resolve(plot))) {
            final Path from = page.toAbsolutePath().normalize().getParent();
            final String relative = from.relativize(results.toAbsolutePath().normalize()).toString().replace('\\', '/');
            generated.add("");
            generated.add("![" + table.name() + "](" + (relative.isEmpty() ? "" : relative + "/") + plot + ")");
        }
        return generated;
    }

    private List<String> readResult(final Table table, final Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("table " + table.name() + " of " + page
                    + ": cannot read its result file " + file + ": " + e.getMessage(), e);
        }
    }

    /** @return the markdown's lines, without the empty one after its last line break. */
    private static List<String> lines(final String markdown) {
        final List<String> lines = new ArrayList<>(Arrays.asList(markdown.split("\n", -1)));
        if (lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        return lines;
    }
}
