package dev.spool.queue.format;

/**
 * Layout of a typed excerpt's payload, written by a generated method writer and read by a generated method reader
 * (see {@code dev.spool.queue.typed}): a 6-byte header naming the interface and the method, then one tagged field
 * per argument, in parameter order.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+-------------------------------+
 *  |        Magic (0x7954)         |       Events id (uint16)      |  0
 *  +-------------------------------+---------------+---------------+
 *  |       Method id (uint16)      |   Field tag   |  Value     ...   6
 *  +-------------------------------+---------------+               |
 * ...     more tagged fields, to the end of the payload            ...
 *  +---------------------------------------------------------------+
 * </pre>
 * Every number is little-endian. A field is a one-byte tag followed by its value:
 * <pre>
 *  BOOLEAN, BYTE            tag, 1 byte
 *  SHORT, CHAR              tag, 2 bytes
 *  INT, FLOAT               tag, 4 bytes
 *  LONG, DOUBLE             tag, 8 bytes
 *  ENUM                     tag, uint16 ordinal
 *  STRING                   tag, int32 length, UTF-8 bytes
 *  FIXED_STRING             tag, uint16 length, ISO-8859-1 bytes, zero-padded to length
 *  BYTES, MARSHALLABLE      tag, int32 length, bytes
 *  FIXED_BYTES              tag, uint16 length, bytes
 *  MESSAGE                  tag, int32 length, the message's tagged fields in declaration order
 * </pre>
 * The tags make a payload self-describing: a reader checks each field's tag against the type it expects, ignores
 * the fields after the last one it knows (a newer writer's additions, within a message up to its length) and gives
 * the fields after the end of the data their defaults (an older writer's payload).
 */
public final class TypedExcerptDescriptor {
    /** The first two bytes of every typed payload: "Ty" read as a little-endian short. */
    public static final int MAGIC = 0x7954;
    /** Offset of the magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Bytes of the magic. */
    public static final int MAGIC_LENGTH = Short.BYTES;
    /** Offset of the events id: which {@code @Events} interface wrote the excerpt. */
    public static final int EVENTS_ID_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
    /** Bytes of the events id. */
    public static final int EVENTS_ID_LENGTH = Short.BYTES;
    /** Offset of the method id within its interface. */
    public static final int METHOD_ID_OFFSET = EVENTS_ID_OFFSET + EVENTS_ID_LENGTH;
    /** Bytes of the method id. */
    public static final int METHOD_ID_LENGTH = Short.BYTES;
    /** Bytes of the header; the first field follows it. */
    public static final int HEADER_LENGTH = METHOD_ID_OFFSET + METHOD_ID_LENGTH;
    /** Bytes of a field's tag. */
    public static final int TAG_LENGTH = Byte.BYTES;
    /** Bytes of the length of a variable-length field. */
    public static final int LENGTH_LENGTH = Integer.BYTES;
    /** Bytes of the length of a fixed-length field. */
    public static final int FIXED_LENGTH_LENGTH = Short.BYTES;
    /** Largest events id, method id, enum ordinal and fixed length. */
    public static final int MAX_ID = 0xFFFF;

    /**
     * Suffix of the schema file a method writer keeps in the queue directory, named for the interface's canonical
     * name (e.g. {@code com.example.OrderEvents.spool-schema}), from which {@code dump} and {@code tail} print typed
     * excerpts as text. Its format is in docs/file-format.md.
     */
    public static final String SCHEMA_FILE_SUFFIX = ".spool-schema";
    /** The first line of every schema file, which the {@code spool-processor} writes and the tools expect. */
    public static final String SCHEMA_HEADER = "spool-schema 1";
    /** Longest schema file name, in UTF-8 bytes: what common file systems allow. */
    public static final int SCHEMA_FILE_NAME_MAX_LENGTH = 255;
    /** Longest schema file content, in bytes: 64 KiB, room for thousands of methods and fields. */
    public static final int SCHEMA_MAX_LENGTH = 1 << 16;

    /** Tag of a boolean: 1 byte, 0 or 1. */
    public static final byte TAG_BOOLEAN = 1;
    /** Tag of a byte. */
    public static final byte TAG_BYTE = 2;
    /** Tag of a short. */
    public static final byte TAG_SHORT = 3;
    /** Tag of a char (UTF-16 code unit). */
    public static final byte TAG_CHAR = 4;
    /** Tag of an int. */
    public static final byte TAG_INT = 5;
    /** Tag of a long. */
    public static final byte TAG_LONG = 6;
    /** Tag of a float. */
    public static final byte TAG_FLOAT = 7;
    /** Tag of a double. */
    public static final byte TAG_DOUBLE = 8;
    /** Tag of an enum: its ordinal as a uint16. */
    public static final byte TAG_ENUM = 9;
    /** Tag of a variable-length string: int32 length then UTF-8. */
    public static final byte TAG_STRING = 10;
    /** Tag of a fixed-length string: uint16 length then ISO-8859-1, zero-padded. */
    public static final byte TAG_FIXED_STRING = 11;
    /** Tag of variable-length bytes: int32 length then the bytes. */
    public static final byte TAG_BYTES = 12;
    /** Tag of a fixed-length byte array: uint16 length then the bytes. */
    public static final byte TAG_FIXED_BYTES = 13;
    /** Tag of a nested message: int32 length then its fields. */
    public static final byte TAG_MESSAGE = 14;
    /** Tag of a user's {@code BytesMarshallable}: int32 length then what it wrote. */
    public static final byte TAG_MARSHALLABLE = 15;

    private static final String[] TAG_NAMES = {"?", "boolean", "byte", "short", "char", "int", "long", "float",
            "double", "enum", "string", "fixed string", "bytes", "fixed bytes", "message", "marshallable"};

    private TypedExcerptDescriptor() {
    }

    /**
     * @param tag a field tag.
     * @return its name, for messages and dumps, or {@code "tag N"} if it is unknown.
     */
    public static String tagName(final int tag) {
        return tag > 0 && tag < TAG_NAMES.length ? TAG_NAMES[tag] : "tag " + tag;
    }
}
