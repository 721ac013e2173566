package dev.spool.processor;

/** How one parameter or message field is encoded: one per tag of {@code TypedExcerptDescriptor}. */
enum Kind {
    BOOLEAN("boolean", "Boolean", "BYTE_FIELD_LENGTH"),
    BYTE("byte", "Byte", "BYTE_FIELD_LENGTH"),
    SHORT("short", "Short", "SHORT_FIELD_LENGTH"),
    CHAR("char", "Char", "SHORT_FIELD_LENGTH"),
    INT("int", "Int", "INT_FIELD_LENGTH"),
    LONG("long", "Long", "LONG_FIELD_LENGTH"),
    FLOAT("float", "Float", "INT_FIELD_LENGTH"),
    DOUBLE("double", "Double", "LONG_FIELD_LENGTH"),
    ENUM("enum", null, "SHORT_FIELD_LENGTH"),
    STRING("string", null, null),
    FIXED_STRING("fixed-string", null, null),
    BYTES("bytes", null, null),
    FIXED_BYTES("fixed-bytes", null, null),
    MESSAGE("message", null, null),
    MARSHALLABLE("marshallable", null, null);

    /** The word the schema file uses. */
    final String schemaWord;
    /** The suffix of the codec's write and the cursor's read method, for primitives. */
    final String accessor;
    /** The codec's constant for the field's length, for fixed-length kinds without a check. */
    final String lengthConstant;

    Kind(final String schemaWord, final String accessor, final String lengthConstant) {
        this.schemaWord = schemaWord;
        this.accessor = accessor;
        this.lengthConstant = lengthConstant;
    }

    boolean isPrimitive() {
        return accessor != null;
    }
}
