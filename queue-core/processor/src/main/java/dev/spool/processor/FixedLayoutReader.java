package dev.spool.processor;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.TypeName;

import javax.lang.model.element.Modifier;
import java.util.ArrayList;
import java.util.List;

import static dev.spool.processor.Names.CODEC;
import static dev.spool.processor.Names.CURSOR;
import static dev.spool.processor.Names.DESCRIPTOR;
import static dev.spool.processor.Names.MEMORY;

/**
 * Generates a reader's fast path for one method whose arguments all have a fixed length: the layout the reader's
 * own build writes is a table of constant offsets ({@code AT$<method>$<path>}, from the first argument), so the
 * method reads every tag and length once, and only if all are what that layout says reads the values at those
 * offsets and calls the target. Anything else (an older writer with fewer fields, a newer one with more in a
 * nested message, a changed type, a damaged excerpt) returns false before a value is read, and the general path
 * reads the excerpt field by field, with defaults, skipping and errors that name the field.
 */
final class FixedLayoutReader {
    private final ReaderGenerator reader;
    private final Method method;
    private final String name;
    private final String prefix;
    private final List<CodeBlock> checks = new ArrayList<>();
    private final CodeBlock.Builder reads = CodeBlock.builder();
    private CodeBlock next = CodeBlock.of("0");

    /**
     * @param reader the reader being generated, which owns the constants and reused instances.
     * @param method a method whose arguments all have a fixed length.
     * @param name   the name of the fast path's method.
     */
    FixedLayoutReader(final ReaderGenerator reader, final Method method, final String name) {
        this.reader = reader;
        this.method = method;
        this.name = name;
        this.prefix = "AT$" + ReaderGenerator.key(method);
    }

    /** @return a method {@code boolean <name>(bytes, offset, length)}, true if it read the excerpt and called the target. */
    MethodSpec generate() {
        final List<String> arguments = new ArrayList<>();
        int i = 0;
        for (final Field parameter : method.parameters()) {
            arguments.add(parameter(parameter, method.name() + i++));
        }
        final String length = "LENGTH$" + ReaderGenerator.key(method);
        reader.constant(length, next);
        final CodeBlock.Builder condition = CodeBlock.builder()
                .add("length - $T.HEADER_LENGTH >= $L", DESCRIPTOR, length);
        for (final CodeBlock check : checks) {
            condition.add("\n&& $L", check);
        }
        // two methods, each small enough for the JIT to inline where the reader is hot
        final String layout = "has" + name.substring("fast".length()) + "$Layout";
        reader.method(MethodSpec.methodBuilder(layout)
                .addJavadoc("@return true if the arguments at address {@code p} have exactly the layout this reader's build writes.\n")
                .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
                .returns(boolean.class)
                .addParameter(long.class, "p", Modifier.FINAL)
                .addParameter(int.class, "length", Modifier.FINAL)
                .addStatement("return $L", condition.build())
                .build());
        return MethodSpec.methodBuilder(name)
                .addJavadoc("Reads the arguments at address {@code p} at constant offsets, if they have exactly the layout"
                        + " this reader's build writes.\n")
                .addModifiers(Modifier.PRIVATE)
                .returns(boolean.class)
                .addParameter(long.class, "p", Modifier.FINAL)
                .addParameter(int.class, "length", Modifier.FINAL)
                .beginControlFlow("if (!$L(p, length))", layout)
                .addStatement("return false")
                .endControlFlow()
                .addCode(reads.build())
                .addStatement("target.$L($L)", method.name(), String.join(", ", arguments))
                .addStatement("return true")
                .build();
    }

    /** @return the expression passed for a parameter. */
    private String parameter(final Field field, final String slot) {
        final String at = offset(field, field.name());
        final Kind kind = field.kind();
        if (kind.isPrimitive()) {
            final String local = "f$" + slot;
            reads.addStatement("final $T $L = $L", TypeName.get(field.type()), local, primitive(kind, at));
            return local;
        }
        final String reused = "a$" + slot;
        switch (kind) {
            case ENUM -> {
                final String local = "f$" + slot;
                reads.addStatement("final $T $L = $L", TypeName.get(field.type()), local, enumValue(field, at));
                return local;
            }
            case FIXED_STRING -> fixedString(field, at, reused);
            case FIXED_BYTES -> fixedBytes(field, at, reused);
            case MESSAGE -> message(field, at, reused, field.name());
            default -> throw new IllegalStateException("kind " + kind + " of " + field.name() + " has no fixed length");
        }
        return reused;
    }

    private void member(final Field field, final String target, final String path) {
        final String at = offset(field, path);
        final Kind kind = field.kind();
        if (kind.isPrimitive()) {
            reads.addStatement("$L = $L", target, primitive(kind, at));
            return;
        }
        switch (kind) {
            case ENUM -> reads.addStatement("$L = $L", target, enumValue(field, at));
            case FIXED_STRING -> fixedString(field, at, ReaderGenerator.memberString(field, target, reads));
            case FIXED_BYTES -> {
                ReaderGenerator.memberFixedBytes(field, target, reads);
                fixedBytes(field, at, target);
            }
            case MESSAGE -> {
                ReaderGenerator.createIfNull(target, CodeBlock.of("new $T()", TypeName.get(field.type())), reads);
                message(field, at, target, path);
            }
            default -> throw new IllegalStateException("kind " + kind + " of " + path + " has no fixed length");
        }
    }

    /** Declares the field's offset constant, checks its tag, and moves {@link #next} past it (but for a message). */
    private String offset(final Field field, final String path) {
        final String at = prefix + "$" + path.replace('.', '$');
        reader.constant(at, next);
        checks.add(CodeBlock.of("$T.MEMORY.readByte(p + $L) == $T.TAG_$L", MEMORY, at, DESCRIPTOR, field.kind().name()));
        next = switch (field.kind()) {
            case FIXED_STRING, FIXED_BYTES -> CodeBlock.of("$L + $T.FIXED_PREFIX_LENGTH + $L", at, CODEC, field.fixed());
            case MESSAGE -> CodeBlock.of("$L + $T.MESSAGE_PREFIX_LENGTH", at, CODEC);
            default -> CodeBlock.of("$L + $T.$L", at, CODEC, field.kind().lengthConstant);
        };
        return at;
    }

    private CodeBlock primitive(final Kind kind, final String at) {
        final CodeBlock position = CodeBlock.of("p + $L + $T.TAG_LENGTH", at, DESCRIPTOR);
        return switch (kind) {
            case BOOLEAN -> CodeBlock.of("$T.MEMORY.readByte($L) != 0", MEMORY, position);
            case CHAR -> CodeBlock.of("(char) $T.MEMORY.readShort($L)", MEMORY, position);
            default -> CodeBlock.of("$T.MEMORY.read$L($L)", MEMORY, kind.accessor, position);
        };
    }

    /** @return the expression of the unsigned 16-bit value after the tag at {@code at}: an enum ordinal or a length. */
    private static CodeBlock unsignedShort(final String at) {
        return CodeBlock.of("($T.MEMORY.readShort(p + $L + $T.TAG_LENGTH) & 0xFFFF)", MEMORY, at, DESCRIPTOR);
    }

    private CodeBlock enumValue(final Field field, final String at) {
        final String values = reader.enumValues(field);
        checks.add(CodeBlock.of("$L < $L.length", unsignedShort(at), values));
        return CodeBlock.of("$L[$L]", values, unsignedShort(at));
    }

    private void fixedString(final Field field, final String at, final String into) {
        checkFixedLength(field, at);
        reads.addStatement("$L.setLength(0)", into)
                .addStatement("$T.appendFixedString(p + $L + $T.FIXED_PREFIX_LENGTH, $L, $L)", CURSOR, at, CODEC,
                        field.fixed(), into);
    }

    private void fixedBytes(final Field field, final String at, final String into) {
        checkFixedLength(field, at);
        reads.addStatement("$T.readFixedBytes(p + $L + $T.FIXED_PREFIX_LENGTH, $L)", CURSOR, at, CODEC, into);
    }

    private void checkFixedLength(final Field field, final String at) {
        checks.add(CodeBlock.of("$L == $L", unsignedShort(at), field.fixed()));
    }

    /** Checks the message's length is exactly its fields' in this build, then reads them. */
    private void message(final Field message, final String at, final String target, final String path) {
        final CodeBlock fields = next;
        final int afterTag = checks.size();
        for (final Field field : message.fields()) {
            member(field, target + "." + field.name(), path + "." + field.name());
        }
        final String length = "LENGTH$" + ReaderGenerator.key(method) + "$" + path.replace('.', '$');
        reader.constant(length, CodeBlock.of("$L - ($L)", next, fields));
        checks.add(afterTag, CodeBlock.of("$T.MEMORY.readInt(p + $L + $T.TAG_LENGTH) == $L", MEMORY, at, DESCRIPTOR, length));
    }
}
