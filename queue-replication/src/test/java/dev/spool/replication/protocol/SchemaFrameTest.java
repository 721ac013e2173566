package dev.spool.replication.protocol;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static dev.spool.replication.protocol.FrameDescriptor.SCHEMA_MAX_FRAME_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.SCHEMA_NAME_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_SCHEMA;
import static dev.spool.replication.protocol.FrameDescriptor.fixedLength;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The SCHEMA frame's codec, and its check, which refuses every name and content a sink must not write. */
class SchemaFrameTest {
    private static final String PEER = "/10.0.0.1:5000";
    private static final byte[] SCHEMA = "spool-schema 1\nevents com.example.Quotes 7\nmethod 1 quote\n  bid double\n"
            .getBytes(StandardCharsets.UTF_8);
    /** Frames start off the buffer's start, as they do in a connection's buffers. */
    private static final int AT = 24;
    private final ByteBuffer buffer = ByteBuffer.allocate(AT + SCHEMA_MAX_FRAME_LENGTH + 1024)
            .order(ByteOrder.LITTLE_ENDIAN);

    private SchemaFlyweight frame(final byte[] name, final byte[] content) {
        final SchemaFlyweight schema = new SchemaFlyweight().wrap(buffer, AT);
        assertEquals(SCHEMA_NAME_OFFSET + name.length + content.length, schema.put(name, content));
        return schema;
    }

    private String refusal(final String name, final byte[] content) {
        final byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        final SchemaFlyweight schema = frame(utf8, content);
        return assertThrows(FrameException.class,
                () -> schema.check(PEER, SchemaFlyweight.frameLength(utf8.length, content.length))).getMessage();
    }

    @Test
    void shouldRoundTripASchemaFrameOfVariableLength() throws FrameException {
        final byte[] name = "com.example.Quotes.spool-schema".getBytes(StandardCharsets.UTF_8);
        final SchemaFlyweight schema = frame(name, SCHEMA);
        schema.check(PEER, SchemaFlyweight.frameLength(name.length, SCHEMA.length));
        assertEquals("com.example.Quotes.spool-schema", schema.name());
        assertArrayEquals(SCHEMA, schema.content());
        assertEquals("SCHEMA", typeName(TYPE_SCHEMA));
        assertEquals(-1, fixedLength(TYPE_SCHEMA));
        assertEquals(16 + 255 + 65536, SCHEMA_MAX_FRAME_LENGTH);
    }

    @Test
    void shouldRefuseHostileNamesNamingPeerFrameAndName() {
        assertEquals("SCHEMA frame from " + PEER + ": name \"../x.spool-schema\" contains a path separator",
                refusal("../x.spool-schema", SCHEMA));
        assertEquals("SCHEMA frame from " + PEER + ": name \"a/b.spool-schema\" contains a path separator",
                refusal("a/b.spool-schema", SCHEMA));
        assertEquals("SCHEMA frame from " + PEER + ": name \"..spool-schema\" contains \"..\"",
                refusal("..spool-schema", SCHEMA));
        assertEquals("SCHEMA frame from " + PEER + ": name \".hidden.spool-schema\" starts with '.' (a hidden file)",
                refusal(".hidden.spool-schema", SCHEMA));
        assertEquals("SCHEMA frame from " + PEER + ": name \"Quotes.schema\" is not <interface name>.spool-schema",
                refusal("Quotes.schema", SCHEMA));
        assertEquals("SCHEMA frame from " + PEER + ": name \"a?b.spool-schema\" contains a control character at 1",
                refusal("a\nb.spool-schema", SCHEMA));
        final byte[] latin1 = "caf\u00e9.spool-schema".getBytes(StandardCharsets.ISO_8859_1);
        final SchemaFlyweight schema = frame(latin1, SCHEMA);
        assertEquals("SCHEMA frame from " + PEER + ": name is not valid UTF-8", assertThrows(FrameException.class,
                () -> schema.check(PEER, SchemaFlyweight.frameLength(latin1.length, SCHEMA.length))).getMessage());
    }

    @Test
    void shouldRefuseOversizeNonUtf8AndHeaderlessContentNamingTheFile() {
        final byte[] notUtf8 = SCHEMA.clone();
        notUtf8[16] = (byte) 0xFF;
        assertEquals("SCHEMA frame from " + PEER + " for q.spool-schema: content is not valid UTF-8 at byte offset 16",
                refusal("q.spool-schema", notUtf8));
        assertEquals("SCHEMA frame from " + PEER + " for q.spool-schema: content does not start with the line"
                + " \"spool-schema 1\"", refusal("q.spool-schema", "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8)));
        final byte[] name = "q.spool-schema".getBytes(StandardCharsets.UTF_8);
        final byte[] oversize = new byte[(1 << 16) + 1];
        final SchemaFlyweight big = frame(name, oversize);
        assertEquals("SCHEMA frame from " + PEER + ": content length=65537 outside [0, 65536]",
                assertThrows(FrameException.class, () -> big.check(PEER, SchemaFlyweight.frameLength(name.length,
                        oversize.length))).getMessage());
    }

    @Test
    void shouldRefuseLengthsThatDoNotFillTheFrame() {
        final byte[] name = "q.spool-schema".getBytes(StandardCharsets.UTF_8);
        final SchemaFlyweight schema = frame(name, SCHEMA);
        final int length = SchemaFlyweight.frameLength(name.length, SCHEMA.length);
        assertEquals("SCHEMA frame from " + PEER + " of length " + (length + 1) + " holds a name of 14 bytes and content"
                + " of " + SCHEMA.length + ", which make " + length,
                assertThrows(FrameException.class, () -> schema.check(PEER, length + 1)).getMessage());
        buffer.putInt(AT + FrameDescriptor.SCHEMA_NAME_LENGTH_OFFSET, 0);
        assertEquals("SCHEMA frame from " + PEER + ": name length=0 outside [1, 255]",
                assertThrows(FrameException.class, () -> schema.check(PEER, length)).getMessage());
        buffer.putInt(AT + FrameDescriptor.SCHEMA_NAME_LENGTH_OFFSET, 14);
        buffer.putInt(AT + FrameDescriptor.SCHEMA_CONTENT_LENGTH_OFFSET, -1);
        assertEquals("SCHEMA frame from " + PEER + ": content length=-1 outside [0, 65536]",
                assertThrows(FrameException.class, () -> schema.check(PEER, length)).getMessage());
    }
}
