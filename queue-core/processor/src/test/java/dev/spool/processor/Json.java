package dev.spool.processor;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader (RFC 8259) for the tests: objects become maps in order, arrays lists, strings strings,
 * numbers {@link BigDecimal}s. Anything else, trailing text included, is an {@link IllegalArgumentException} naming
 * the offset. Enough to prove that generated metadata is JSON, and to read it back; no JSON library is on the
 * processor's class path.
 */
final class Json {
    private final String text;
    private int offset;

    private Json(final String text) {
        this.text = text;
    }

    /** @return the value {@code text} holds. */
    static Object parse(final String text) {
        final Json json = new Json(text);
        final Object value = json.value();
        json.whitespace();
        if (json.offset != text.length()) {
            throw json.error("trailing text");
        }
        return value;
    }

    private Object value() {
        whitespace();
        if (offset == text.length()) {
            throw error("end of text where a value was expected");
        }
        final char c = text.charAt(offset);
        if (c == '{') {
            return object();
        } else if (c == '[') {
            return array();
        } else if (c == '"') {
            return string();
        } else if (text.startsWith("true", offset) || text.startsWith("false", offset) || text.startsWith("null", offset)) {
            final String word = text.startsWith("true", offset) ? "true" : text.startsWith("false", offset) ? "false" : "null";
            offset += word.length();
            return "null".equals(word) ? null : Boolean.valueOf(word);
        }
        return number();
    }

    private Map<String, Object> object() {
        final Map<String, Object> object = new LinkedHashMap<>();
        offset++;
        whitespace();
        if (take('}')) {
            return object;
        }
        do {
            whitespace();
            if (offset == text.length() || text.charAt(offset) != '"') {
                throw error("a member name must be a string");
            }
            final String name = string();
            whitespace();
            expect(':');
            if (object.put(name, value()) != null) {
                throw error("duplicate member " + name);
            }
            whitespace();
        } while (take(','));
        expect('}');
        return object;
    }

    private List<Object> array() {
        final List<Object> array = new ArrayList<>();
        offset++;
        whitespace();
        if (take(']')) {
            return array;
        }
        do {
            array.add(value());
            whitespace();
        } while (take(','));
        expect(']');
        return array;
    }

    private String string() {
        final StringBuilder string = new StringBuilder();
        offset++;
        while (true) {
            if (offset == text.length()) {
                throw error("unterminated string");
            }
            final char c = text.charAt(offset++);
            if (c == '"') {
                return string.toString();
            } else if (c < 0x20) {
                throw error("unescaped control character");
            } else if (c != '\\') {
                string.append(c);
            } else if (offset == text.length()) {
                throw error("unterminated escape");
            } else {
                final char escaped = text.charAt(offset++);
                switch (escaped) {
                    case '"', '\\', '/' -> string.append(escaped);
                    case 'b' -> string.append('\b');
                    case 'f' -> string.append('\f');
                    case 'n' -> string.append('\n');
                    case 'r' -> string.append('\r');
                    case 't' -> string.append('\t');
                    case 'u' -> {
                        if (offset + 4 > text.length() || !text.substring(offset, offset + 4).matches("[0-9a-fA-F]{4}")) {
                            throw error("bad unicode escape");
                        }
                        string.append((char) Integer.parseInt(text.substring(offset, offset + 4), 16));
                        offset += 4;
                    }
                    default -> throw error("bad escape \\" + escaped);
                }
            }
        }
    }

    private BigDecimal number() {
        final int start = offset;
        while (offset < text.length() && "+-0123456789.eE".indexOf(text.charAt(offset)) >= 0) {
            offset++;
        }
        final String number = text.substring(start, offset);
        if (!number.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            offset = start;
            throw error("not a value");
        }
        return new BigDecimal(number);
    }

    private void whitespace() {
        while (offset < text.length() && " \t\r\n".indexOf(text.charAt(offset)) >= 0) {
            offset++;
        }
    }

    private boolean take(final char c) {
        if (offset < text.length() && text.charAt(offset) == c) {
            offset++;
            return true;
        }
        return false;
    }

    private void expect(final char c) {
        if (!take(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private IllegalArgumentException error(final String what) {
        return new IllegalArgumentException(what + " at offset " + offset + " of: " + text);
    }
}
