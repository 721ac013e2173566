package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ChildJvm;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.SchemaFiles;
import dev.spool.queue.tools.SpoolTool;
import dev.spool.queue.typed.Events;
import dev.spool.replication.protocol.SchemaFlyweight;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.spool.replication.protocol.FrameDescriptor.TYPE_SCHEMA;
import static dev.spool.replication.Replicas.SECRET;
import static dev.spool.replication.Replicas.await;
import static dev.spool.replication.Replicas.open;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica receives its primary's typed schema files (protocol version 4, SCHEMA frames), so that {@code dump} and
 * {@code tail} on it, or on it once promoted, print typed excerpts by method and field names.
 */
class SchemaReplicationTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static final String QUOTES = "dev.spool.replication.SchemaReplicationTest.Quotes.spool-schema";
    private static final String TRADES = "dev.spool.replication.SchemaReplicationTest.Trades.spool-schema";

    @Events
    interface Quotes {
        void quote(long instrument, double bid, double ask);
    }

    @Events
    interface Trades {
        void trade(long instrument, long quantity);
    }

    private ReplicationSink sink(final String name) {
        return ReplicationSink.builder(tempDir.resolve(name)).sharedSecret(SECRET)
                .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).start();
    }

    private static ReplicationSource source(final SpoolQueue primary, final ReplicationSink... sinks) {
        return ReplicationSource.builder(primary, sinks[0].address(), Arrays.stream(sinks).skip(1)
                        .map(ReplicationSink::address).toArray(InetSocketAddress[]::new))
                .sharedSecret(SECRET).heartbeatInterval(HEARTBEAT)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100)).start();
    }

    private static byte[] read(final Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readAllBytes(file) : null;
        } catch (IOException e) {
            throw new AssertionError(file + " cannot be read", e);
        }
    }

    private static boolean holds(final Path directory, final String name, final byte[] content) {
        return Arrays.equals(read(directory.resolve(name)), content);
    }

    private static String dump(final Path directory) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = SpoolTool.run(new String[]{"dump", directory.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(SpoolTool.EXIT_OK, status, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldGiveEveryReplicaTheSchemaSoThatDumpThereNamesMethodsAndFields() {
        final Path primaryDirectory = tempDir.resolve("primary");
        try (SpoolQueue primary = open(primaryDirectory); ExcerptAppender appender = primary.createAppender();
             ReplicationSink one = sink("one"); ReplicationSink two = sink("two");
             ReplicationSource source = source(primary, one, two)) {
            final Quotes quotes = appender.methodWriter(Quotes.class);
            quotes.quote(7, 1.25, 1.5);
            final long last = primary.lastIndex();
            final byte[] schema = read(primaryDirectory.resolve(QUOTES));
            await(() -> one.lastIndex() == last && two.lastIndex() == last, "index " + last + " is replicated");
            // a replica receives a schema file before any excerpt of its writer
            assertTrue(holds(tempDir.resolve("one"), QUOTES, schema) && holds(tempDir.resolve("two"), QUOTES, schema),
                    "both replicas hold the schema");
        }
        for (final String replica : new String[]{"one", "two"}) {
            final String dump = dump(tempDir.resolve(replica));
            assertTrue(dump.contains("typed Quotes.quote(instrument=7, bid=1.25, ask=1.5)"), dump);
            assertFalse(dump.contains("ignored file"), dump);
            assertEquals("rw-r-----", permissions(tempDir.resolve(replica).resolve(QUOTES)), "the replica's file mode");
        }
    }

    @Test
    void shouldSendASchemaStoredWhileTheLinkIsUpAndReplaceAChangedOne() throws IOException {
        final Path primaryDirectory = tempDir.resolve("primary");
        final Path replicaDirectory = tempDir.resolve("replica");
        try (SpoolQueue primary = open(primaryDirectory); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink)) {
            appender.methodWriter(Quotes.class).quote(7, 1.25, 1.5);
            await(() -> sink.lastIndex() == primary.lastIndex(), "the first quote is replicated");
            await(source::isConnected, "the link is up");

            final Trades trades = appender.methodWriter(Trades.class);
            for (int i = 0; i < 100; i++) {
                trades.trade(7, i);
            }
            final byte[] tradesSchema = read(primaryDirectory.resolve(TRADES));
            final long lastTrade = primary.lastIndex();
            await(() -> sink.lastIndex() >= primary.lastIndex() - 99, "the first trade is replicated");
            assertTrue(holds(replicaDirectory, TRADES, tradesSchema), "the schema came before the first trade");
            await(() -> sink.lastIndex() == lastTrade, "the trades are replicated");

            // a newer build of the writer stores another schema under the same name
            final byte[] changed = (new String(read(primaryDirectory.resolve(QUOTES)), StandardCharsets.UTF_8)
                    + "  venue long\n").getBytes(StandardCharsets.UTF_8);
            assertTrue(primary.unwrap(QueueInternals.class).schemaFiles().store(QUOTES, changed));
            await(() -> holds(replicaDirectory, QUOTES, changed), "the changed schema replaces the replica's");
        }
        final String dump = dump(replicaDirectory);
        assertTrue(dump.contains("typed Trades.trade(instrument=7, quantity=99)"), dump);
        try (Stream<Path> files = Files.list(replicaDirectory)) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().endsWith(".tmp")), "no temporary file is left");
        }
    }

    @Test
    void shouldNeverGiveAReplicaAnExcerptBeforeTheSchemaStoredBeforeIt() throws Exception {
        final Path replicaDirectory = tempDir.resolve("replica");
        final String name = "com.example.Versions.spool-schema";
        final int versions = 500;
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink)) {
            final SchemaFiles schemas = primary.unwrap(QueueInternals.class).schemaFiles();
            storeThenAppend(schemas, name, appender, 0);
            await(() -> sink.lastIndex() == primary.lastIndex(), "the first excerpt is replicated");
            // watches the replica as the sink writes it: each excerpt must find the schema stored before it, or a later one
            final List<String> violations = new CopyOnWriteArrayList<>();
            final Thread watcher = new Thread(() -> {
                try (SpoolQueue replica = open(replicaDirectory); ExcerptTailer tailer = replica.createTailer()) {
                    final long[] version = {-1};
                    while (version[0] < versions - 1) {
                        if (tailer.read((bytes, offset, length, index) -> version[0] = bytes.readLong(offset))) {
                            final long schema = Long.parseLong(new String(read(replicaDirectory.resolve(name)),
                                    StandardCharsets.UTF_8).replaceAll("(?s).*# version (\\d+).*", "$1"));
                            if (schema < version[0]) {
                                violations.add("excerpt " + version[0] + " before schema " + version[0] + " (found " + schema + ")");
                            }
                        }
                    }
                }
            });
            watcher.start();
            for (long version = 1; version < versions; version++) {
                storeThenAppend(schemas, name, appender, version);
            }
            watcher.join(30_000);
            assertFalse(watcher.isAlive(), "the watcher read every excerpt");
            assertEquals(List.of(), violations);
        }
    }

    /** As a method writer does: stores the schema file first, then appends an excerpt that needs it. */
    private static void storeThenAppend(final SchemaFiles schemas, final String name, final ExcerptAppender appender,
                                        final long version) {
        schemas.store(name, ("spool-schema 1\n# version " + version + "\n").getBytes(StandardCharsets.UTF_8));
        appender.append(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(0, version).array());
    }

    @Test
    void shouldSendTheSchemaOfAWriterInAnotherProcessBeforeItsExcerpts() throws Exception {
        final Path primaryDirectory = tempDir.resolve("primary");
        final Path replicaDirectory = tempDir.resolve("replica");
        try (SpoolQueue primary = open(primaryDirectory); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = sink("replica"); ReplicationSource source = source(primary, sink)) {
            appender.methodWriter(Quotes.class).quote(7, 1.25, 1.5);
            await(() -> sink.lastIndex() == primary.lastIndex(), "the quote is replicated");
            final long last;
            try (ChildJvm writer = ChildJvm.start(ReplicationMains.TypedWriter.class, tempDir.resolve("writer.err"),
                    primaryDirectory.toString(), "1000")) {
                last = Long.parseLong(writer.awaitLine("WROTE", 60, TimeUnit.SECONDS).substring("WROTE ".length()));
                assertEquals(0, writer.awaitExit(60, TimeUnit.SECONDS), writer.stderrTail());
            }
            // the other process counted its schema file in the mapped metadata, which this process's source reads
            await(() -> sink.lastIndex() > last - 1000, "the other process's first trade is replicated");
            assertTrue(holds(replicaDirectory, TRADES, read(primaryDirectory.resolve(TRADES))),
                    "the schema came before the first trade");
            await(() -> sink.lastIndex() == last, "the other process's trades are replicated");
        }
        assertTrue(dump(replicaDirectory).contains("typed Trades.trade(instrument=7, quantity=999)"));
    }

    @Test
    void shouldLetAPromotedReplicaForwardTheSchemasItReceived() {
        final Path primaryDirectory = tempDir.resolve("primary");
        final Path replicaDirectory = tempDir.resolve("replica");
        final byte[] schema;
        try (SpoolQueue primary = open(primaryDirectory); ExcerptAppender appender = primary.createAppender()) {
            appender.methodWriter(Quotes.class).quote(7, 1.25, 1.5);
            schema = read(primaryDirectory.resolve(QUOTES));
            try (ReplicationSink sink = sink("replica")) {
                try (ReplicationSource source = source(primary, sink)) {
                    await(() -> sink.lastIndex() == primary.lastIndex() && holds(replicaDirectory, QUOTES, schema),
                            "the quote and its schema are replicated");
                }
                sink.promote();
            }
        }
        try (SpoolQueue promoted = open(replicaDirectory); ReplicationSink next = sink("next");
             ReplicationSource source = source(promoted, next)) {
            assertEquals(1, promoted.unwrap(QueueInternals.class).schemaFiles().generation(),
                    "the sink counted the file it stored in the replica's own schema generation");
            await(() -> holds(tempDir.resolve("next"), QUOTES, schema), "the promoted replica forwards the schema");
        }
    }

    @Test
    void shouldDropAConnectionThatSendsAHostileSchemaAndWriteNothing() throws IOException {
        expectWarning("closing the connection");
        final Path replicaDirectory = tempDir.resolve("replica");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ReplicationSink sink = sink("replica")) {
            final String[][] hostile = {{"../x.spool-schema", "contains a path separator"},
                    {"a/b.spool-schema", "contains a path separator"},
                    {".hidden.spool-schema", "starts with '.' (a hidden file)"},
                    {"x.sh", "is not <interface name>.spool-schema"}};
            for (final String[] refusal : hostile) {
                final String name = refusal[0];
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
                    socket.setSoTimeout(30_000);
                    final Wire.Session session = Wire.Session.open(socket, primary);
                    final byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
                    final byte[] content = "spool-schema 1\n".getBytes(StandardCharsets.UTF_8);
                    final ByteBuffer frame = Wire.frame(SchemaFlyweight.frameLength(utf8.length, content.length),
                            TYPE_SCHEMA);
                    new SchemaFlyweight().wrap(frame, 0).put(utf8, content);
                    Wire.write(socket, Wire.sealed(frame, session.mac));
                    Wire.awaitClosed(socket);
                }
                final String reason = "SCHEMA frame from /127.0.0.1:";
                await(() -> logged(reason) && logged("name \"" + name + "\" " + refusal[1]),
                        "the sink logs why it dropped the connection: " + name + " " + refusal[1]);
            }
            assertFalse(Files.exists(tempDir.resolve("x.spool-schema")), "nothing outside the replica's directory");
            try (Stream<Path> files = Files.list(replicaDirectory)) {
                assertTrue(files.map(f -> f.getFileName().toString()).noneMatch(f -> f.startsWith(".")
                        || f.endsWith(".spool-schema") || f.startsWith("x.")), "no file written in the replica's directory");
            }
            assertNull(sink.failure(), "the sink goes on listening");
        }
    }

    private static String permissions(final Path file) {
        try {
            return java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
