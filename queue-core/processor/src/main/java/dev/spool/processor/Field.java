package dev.spool.processor;

import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;
import java.util.List;

/**
 * One encodable parameter or message field.
 *
 * @param name      its Java name.
 * @param type      its declared type.
 * @param kind      how it is encoded.
 * @param fixed     the {@code @Fixed} length, or 0.
 * @param element   the enum, message or marshallable class, or null.
 * @param constants an enum's constants in ordinal order, else empty.
 * @param fields    a message's fields in declaration order, else empty.
 */
record Field(String name, TypeMirror type, Kind kind, int fixed, TypeElement element, List<String> constants,
             List<Field> fields) {
    /** @return true if the declared type is {@code CharSequence}, which a reader replaces by a reused StringBuilder. */
    boolean isCharSequence() {
        return (kind == Kind.STRING || kind == Kind.FIXED_STRING) && type.toString().equals("java.lang.CharSequence");
    }
}
