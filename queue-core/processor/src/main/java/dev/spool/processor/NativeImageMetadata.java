package dev.spool.processor;

/**
 * The GraalVM native-image reflection metadata of one {@code @Events} interface: exactly what
 * {@code dev.spool.queue.typed.TypedMessages} looks up by reflection, once per writer or reader it creates, and
 * nothing more. For {@code app.Outer.Events} it is, in {@link #path()}:
 * <pre>
 * [
 *   {"name": "app.Outer$Events"},                               the interface: Class.isAnnotationPresent(Events)
 *   {"name": "app.Outer_EventsSpoolWriter",                     Class.forName
 *    "fields": [{"name": "SCHEMA"}],                            getField("SCHEMA").get(null)
 *    "methods": [{"name": "&lt;init&gt;",                             getConstructor(ExcerptSink.class).newInstance
 *                 "parameterTypes": ["dev.spool.queue.typed.ExcerptSink"]}]},
 *   {"name": "app.Outer_EventsSpoolReader",                     Class.forName
 *    "methods": [{"name": "&lt;init&gt;",                             getConstructor(Outer.Events.class).newInstance
 *                 "parameterTypes": ["app.Outer$Events"]}]}
 * ]
 * </pre>
 * The legacy {@code reflect-config.json} format (key {@code "name"}), because GraalVM for JDK 17 reads only that one
 * and later releases still read it; {@code reachability-metadata.json} is read from GraalVM for JDK 23 on only.
 * Entries are unconditional: a {@code typeReachable}/{@code typeReached} condition on an interface that is never
 * initialized would never hold. Names are binary names ({@code Class.getName()}), as native-image resolves them.
 */
final class NativeImageMetadata {
    /**
     * Where native-image looks: any {@code reflect-config.json} under {@code META-INF/native-image/} of a class-path
     * entry, at any depth. One directory per interface, named by its binary name, so that two interfaces (or two
     * jars) never write the same file.
     */
    static final String DIRECTORY = "META-INF/native-image/dev.spool/typed/";
    static final String FILE_NAME = "reflect-config.json";
    static final String CONSTRUCTOR = "<init>";

    private final String events;
    private final String writer;
    private final String reader;

    /**
     * @param events      the interface's binary name, {@code app.Outer$Events}.
     * @param packageName its package, where the generated classes live.
     * @param flatName    the generated classes' prefix, {@code Outer_Events}.
     */
    NativeImageMetadata(final String events, final String packageName, final String flatName) {
        final String prefix = (packageName.isEmpty() ? "" : packageName + ".") + flatName;
        this.events = events;
        this.writer = prefix + Names.WRITER_SUFFIX;
        this.reader = prefix + Names.READER_SUFFIX;
    }

    /** @return the resource's path, relative to the class output. */
    String path() {
        return DIRECTORY + events + "/" + FILE_NAME;
    }

    /** @return the file's text: JSON in ASCII only, so that no encoding of the compiler can change it. */
    String json() {
        return "[\n"
                + "  {\n"
                + "    \"name\": " + quote(events) + "\n"
                + "  },\n"
                + "  {\n"
                + "    \"name\": " + quote(writer) + ",\n"
                + "    \"fields\": [{\"name\": " + quote(Names.SCHEMA_FIELD) + "}],\n"
                + "    \"methods\": [" + constructor(Names.SINK.reflectionName()) + "]\n"
                + "  },\n"
                + "  {\n"
                + "    \"name\": " + quote(reader) + ",\n"
                + "    \"methods\": [" + constructor(events) + "]\n"
                + "  }\n"
                + "]\n";
    }

    private static String constructor(final String parameterType) {
        return "{\"name\": " + quote(CONSTRUCTOR) + ", \"parameterTypes\": [" + quote(parameterType) + "]}";
    }

    /**
     * @return {@code text} as a JSON string: quotes and backslashes escaped, and every character outside printable
     * ASCII (control characters, and the letters a Java name may take from any script) as a unicode escape.
     */
    static String quote(final String text) {
        final StringBuilder json = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7E) {
                json.append(String.format("\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"').toString();
    }
}
