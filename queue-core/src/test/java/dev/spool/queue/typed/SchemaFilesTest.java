package dev.spool.queue.typed;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.SchemaFiles;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import static dev.spool.queue.format.TypedExcerptDescriptor.SCHEMA_MAX_LENGTH;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue's typed schema files: written once per content with the queue's file mode, counted in the metadata's
 * schema generation, and refused, writing nothing, when the name or content is not a schema file's.
 */
class SchemaFilesTest extends SpoolTestBase {
    private static final byte[] SCHEMA = "spool-schema 1\nevents com.example.Quotes 7\nmethod 1 quote\n  bid double\n"
            .getBytes(StandardCharsets.UTF_8);

    private SpoolQueue open() {
        return SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20)
                .fileMode(PosixFilePermissions.fromString("rw-rw----")).openOrCreate();
    }

    @Test
    void shouldCountEachSchemaFileAWriterStoresInTheMetadataAndNotRewriteAnEqualOne() throws IOException {
        try (SpoolQueue queue = open(); ExcerptAppender appender = queue.createAppender()) {
            final SchemaFiles schemas = queue.unwrap(QueueInternals.class).schemaFiles();
            assertEquals(0, schemas.generation());
            appender.methodWriter(OrderEvents.class);
            assertEquals(1, schemas.generation(), "the writer's schema file is counted");
            appender.methodWriter(OrderEvents.class);
            assertEquals(1, schemas.generation(), "the same content is not written again");
            assertEquals(1, metadataGeneration(queue.directory()), "in the mapped metadata, for other processes");
            final Path file = queue.directory().resolve("dev.spool.queue.typed.OrderEvents.spool-schema");
            assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
                    "the queue's file mode");
            assertArrayEquals(OrderEventsSpoolWriter.SCHEMA.getBytes(StandardCharsets.UTF_8),
                    schemas.read().get(file.getFileName().toString()));
        }
    }

    @Test
    void shouldReplaceAChangedSchemaAndCountIt() {
        try (SpoolQueue queue = open()) {
            final SchemaFiles schemas = queue.unwrap(QueueInternals.class).schemaFiles();
            assertTrue(schemas.store("com.example.Quotes.spool-schema", SCHEMA));
            final byte[] changed = (new String(SCHEMA, StandardCharsets.UTF_8) + "  ask double\n")
                    .getBytes(StandardCharsets.UTF_8);
            assertTrue(schemas.store("com.example.Quotes.spool-schema", changed));
            assertFalse(schemas.store("com.example.Quotes.spool-schema", changed));
            assertEquals(2, schemas.generation());
            assertArrayEquals(changed, schemas.read().get("com.example.Quotes.spool-schema"));
            assertEquals(List.of("com.example.Quotes.spool-schema"), List.copyOf(schemas.read().keySet()));
        }
    }

    @Test
    void shouldRefuseANameThatIsNoPlainSchemaFileNameAndWriteNothing() throws IOException {
        try (SpoolQueue queue = open()) {
            final SchemaFiles schemas = queue.unwrap(QueueInternals.class).schemaFiles();
            assertRefused(schemas, "../x.spool-schema", "contains a path separator");
            assertRefused(schemas, "a/b.spool-schema", "contains a path separator");
            assertRefused(schemas, "a\\b.spool-schema", "contains a path separator");
            assertRefused(schemas, "a..b.spool-schema", "contains \"..\"");
            assertRefused(schemas, ".hidden.spool-schema", "starts with '.' (a hidden file)");
            assertRefused(schemas, "x.txt", "is not <interface name>.spool-schema");
            assertRefused(schemas, ".spool-schema", "starts with '.'");
            assertRefused(schemas, "a\u0000b.spool-schema", "contains a control character at 1");
            assertRefused(schemas, "x".repeat(250) + ".spool-schema", "name of 263 bytes is longer than 255");
            assertEquals(0, schemas.generation());
            try (Stream<Path> files = Files.list(queue.directory())) {
                assertTrue(files.noneMatch(f -> f.toString().contains("spool-schema") || f.toString().endsWith(".tmp")));
            }
            assertFalse(Files.exists(tempDir.resolve("x.spool-schema")));
        }
    }

    @Test
    void shouldRefuseContentThatIsNoSchemaAndWriteNothing() {
        try (SpoolQueue queue = open()) {
            final SchemaFiles schemas = queue.unwrap(QueueInternals.class).schemaFiles();
            final byte[] oversize = new byte[SCHEMA_MAX_LENGTH + 1];
            System.arraycopy(SCHEMA, 0, oversize, 0, SCHEMA.length);
            assertEquals("content is longer than 65536 bytes", SchemaFiles.contentProblem(oversize));
            final byte[] notUtf8 = SCHEMA.clone();
            notUtf8[20] = (byte) 0xC3;
            notUtf8[21] = (byte) 0x28;
            assertEquals("content is not valid UTF-8 at byte offset 20", SchemaFiles.contentProblem(notUtf8));
            assertEquals("content does not start with the line \"spool-schema 1\"",
                    SchemaFiles.contentProblem("spool-schema 2\n".getBytes(StandardCharsets.UTF_8)));
            assertNull(SchemaFiles.contentProblem(SCHEMA));
            final SpoolException e = assertThrows(SpoolException.class, () -> schemas.store("a.spool-schema", notUtf8));
            assertTrue(e.getMessage().contains("a.spool-schema") && e.getMessage().contains("not valid UTF-8"),
                    e.getMessage());
            assertFalse(Files.exists(queue.directory().resolve("a.spool-schema")));
            assertEquals(0, schemas.generation());
        }
    }

    private static void assertRefused(final SchemaFiles schemas, final String name, final String why) {
        final SpoolException e = assertThrows(SpoolException.class, () -> schemas.store(name, SCHEMA));
        assertTrue(e.getMessage().contains(why), e.getMessage());
        assertTrue(e.getMessage().startsWith("cannot store the typed schema "), e.getMessage());
    }

    private static long metadataGeneration(final Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory.resolve(MetadataDescriptor.FILE_NAME), StandardOpenOption.READ)) {
            final ByteBuffer field = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(field, MetadataDescriptor.SCHEMA_GENERATION_OFFSET);
            return field.getLong(0);
        }
    }
}
