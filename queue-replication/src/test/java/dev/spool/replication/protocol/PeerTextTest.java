package dev.spool.replication.protocol;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A peer's text in a message: quoted, every unprintable character and every byte that is not UTF-8 escaped, cut. */
class PeerTextTest {

    @Test
    void shouldQuoteAndEscapeControlCharactersQuotesAndBackslashes() {
        assertEquals("\"fenced\"", PeerText.quote("fenced"));
        assertEquals("\"a\\nb\\r\\tc \\\"d\\\" \\\\e \\x00\\x1b[31m\\x7f\"", PeerText.quote("a\nb\r\tc \"d\" \\e \0\u001b[31m\u007f"));
    }

    @Test
    void shouldEscapeEveryByteThatIsNotUtf8AndKeepWellFormedCharacters() {
        final byte[] bytes = {'z', (byte) 0xC3, '(', (byte) 0xE2, (byte) 0x82, (byte) 0xAC, (byte) 0xC0, (byte) 0x80,
            (byte) 0xED, (byte) 0xA0, (byte) 0x80, (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80, (byte) 0xE2};
        // z, a lead without its continuation, the euro sign, an overlong NUL, a surrogate, an emoji, a cut sequence
        assertEquals("\"z\\xc3(\u20ac\\xc0\\x80\\xed\\xa0\\x80\uD83D\uDE00\\xe2\"", PeerText.quote(bytes));
    }

    @Test
    void shouldEscapeInvisibleAndReorderingCharacters() {
        // a right-to-left override, a line separator, a no-break space and a zero-width space
        assertEquals("\"a\\u202eb\\u2028c\\u00a0d\\u200be\"", PeerText.quote("a\u202Eb\u2028c\u00A0d\u200Be"));
    }

    @Test
    void shouldCutLongTextAndSayHowLongItWas() {
        final String quoted = PeerText.quote("x".repeat(5000));
        assertEquals("\"" + "x".repeat(PeerText.MAX_CHARACTERS) + "\"... (5000 bytes in all, the first "
                + PeerText.MAX_CHARACTERS + " characters shown)", quoted);
    }

    @Test
    void shouldReadOnlyTheGivenRangeOfABuffer() {
        final ByteBuffer buffer = ByteBuffer.wrap("..said this..".getBytes(StandardCharsets.UTF_8));
        assertEquals("\"said this\"", PeerText.quote(buffer, 2, 9));
        assertEquals(0, buffer.position());
        assertTrue(PeerText.said("h:1", PeerText.quote("x")).startsWith("the peer at h:1 (not authenticated) said: \"x\""));
    }
}
