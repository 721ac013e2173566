package dev.spool.replication.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Text a peer sent (an ERROR's message, a HELLO's zone), made fit for an exception message or a log line: in double
 * quotes, every character that is not printable escaped ({@code \n}, {@code \r}, {@code \t}, {@code \"}, {@code \\},
 * {@code \xNN} for another control character or a byte that is not valid UTF-8, {@code \}{@code uNNNN} for an
 * invisible or formatting character), and cut after {@link #MAX_CHARACTERS} characters with a note of the whole
 * length. A peer chooses these bytes: quoted this way they can neither start a log line of their own, nor hide or
 * reorder what follows, nor pass for Spool's own words. Callers say who sent them, and whether that peer proved the
 * secret ({@link #said}). Errors are the throw path: this allocates.
 */
public final class PeerText {
    /** The most characters of a peer's text shown; the rest is counted, not shown. */
    public static final int MAX_CHARACTERS = 1024;

    private PeerText() {
    }

    /**
     * @param peer the peer's address.
     * @param text what it sent, already {@link #quote quoted}.
     * @return {@code the peer at <peer> (not authenticated) said: "<text>"}.
     */
    public static String said(final Object peer, final String text) {
        return "the peer at " + peer + " (not authenticated) said: " + text;
    }

    /**
     * @param text a string decoded from a peer's bytes.
     * @return the string, quoted, escaped and cut.
     */
    public static String quote(final String text) {
        final byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        return quote(ByteBuffer.wrap(utf8), 0, utf8.length);
    }

    /**
     * @param bytes the peer's bytes.
     * @return the bytes as text, quoted, escaped and cut.
     */
    public static String quote(final byte[] bytes) {
        return quote(ByteBuffer.wrap(bytes), 0, bytes.length);
    }

    /**
     * @param buffer holds the peer's bytes; its position and limit are left as they are.
     * @param offset where the text starts.
     * @param length the text's length in bytes.
     * @return the bytes as UTF-8 text, quoted, escaped and cut after {@link #MAX_CHARACTERS} characters.
     */
    public static String quote(final ByteBuffer buffer, final int offset, final int length) {
        final StringBuilder text = new StringBuilder(Math.min(length, MAX_CHARACTERS) + 16).append('"');
        int at = 0;
        int characters = 0;
        while (at < length && characters < MAX_CHARACTERS) {
            final int codePoint = codePoint(buffer, offset + at, length - at);
            if (codePoint < 0) {
                hex(text, buffer.get(offset + at) & 0xFF);
                at++;
            } else {
                append(text, codePoint);
                at += utf8Length(codePoint);
            }
            characters++;
        }
        text.append('"');
        if (at < length) {
            text.append("... (").append(length).append(" bytes in all, the first ").append(MAX_CHARACTERS)
                    .append(" characters shown)");
        }
        return text.toString();
    }

    /** @return the code point of the well-formed UTF-8 sequence at {@code at}, or -1 if it is not one. */
    private static int codePoint(final ByteBuffer buffer, final int at, final int available) {
        final int lead = buffer.get(at) & 0xFF;
        final int length;
        int codePoint;
        if (lead < 0x80) {
            return lead;
        } else if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
            codePoint = lead & 0x1F;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            codePoint = lead & 0x0F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            codePoint = lead & 0x07;
        } else {
            return -1;
        }
        if (length > available) {
            return -1;
        }
        for (int i = 1; i < length; i++) {
            final int next = buffer.get(at + i) & 0xFF;
            if ((next & 0xC0) != 0x80) {
                return -1;
            }
            codePoint = codePoint << 6 | next & 0x3F;
        }
        // overlong forms, surrogates and code points past Unicode's are not UTF-8
        if (utf8Length(codePoint) != length || codePoint >= 0xD800 && codePoint <= 0xDFFF || codePoint > 0x10FFFF) {
            return -1;
        }
        return codePoint;
    }

    private static int utf8Length(final int codePoint) {
        return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    }

    private static void append(final StringBuilder text, final int codePoint) {
        switch (codePoint) {
            case '"' -> text.append("\\\"");
            case '\\' -> text.append("\\\\");
            case '\n' -> text.append("\\n");
            case '\r' -> text.append("\\r");
            case '\t' -> text.append("\\t");
            default -> {
                if (codePoint < 0x80 && (codePoint < 0x20 || codePoint == 0x7F)) {
                    hex(text, codePoint);
                } else if (isPrintable(codePoint)) {
                    text.appendCodePoint(codePoint);
                } else {
                    text.append(String.format("\\u%04x", codePoint));
                }
            }
        }
    }

    /** @return false for controls, format characters (bidirectional overrides among them), separators but the space. */
    private static boolean isPrintable(final int codePoint) {
        if (codePoint == ' ') {
            return true;
        }
        switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.PRIVATE_USE, Character.SURROGATE, Character.UNASSIGNED,
                 Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.SPACE_SEPARATOR -> {
                return false;
            }
            default -> {
                return true;
            }
        }
    }

    private static void hex(final StringBuilder text, final int value) {
        text.append("\\x").append(Character.forDigit(value >> 4, 16)).append(Character.forDigit(value & 0xF, 16));
    }
}
