package dev.spool.processor;

import com.palantir.javapoet.ClassName;

/** The queue-core types the generated code uses, by name: the processor does not depend on queue-core. */
final class Names {
    static final String TYPED = "dev.spool.queue.typed";
    static final ClassName SINK = ClassName.get(TYPED, "ExcerptSink");
    static final ClassName CODEC = ClassName.get(TYPED, "TypedCodec");
    static final ClassName CURSOR = ClassName.get(TYPED, "TypedCursor");
    static final ClassName DECODER = ClassName.get(TYPED, "TypedDecoder");
    static final ClassName DESCRIPTOR = ClassName.get("dev.spool.queue.format", "TypedExcerptDescriptor");
    static final ClassName BYTES = ClassName.get("net.openhft.chronicle.bytes", "Bytes");
    static final ClassName MEMORY = ClassName.get("net.openhft.chronicle.core", "UnsafeMemory");
    static final ClassName BYTES_STORE = ClassName.get("net.openhft.chronicle.bytes", "BytesStore");
    static final String WRITER_SUFFIX = "SpoolWriter";
    static final String READER_SUFFIX = "SpoolReader";
    /** The generated writer's static field holding the schema text; TypedMessages reads it by this name. */
    static final String SCHEMA_FIELD = "SCHEMA";

    private Names() {
    }
}
