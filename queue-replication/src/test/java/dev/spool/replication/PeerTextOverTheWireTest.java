package dev.spool.replication;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.HelloFlyweight;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.spool.replication.Replicas.*;
import static dev.spool.replication.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Text from a peer that proved nothing reaches an error message or a log line only quoted, escaped, cut and named as
 * the peer's, over real sockets: a fake sink's ERROR, a HELLO's zone that is not UTF-8.
 */
class PeerTextOverTheWireTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    /** Words a fake sink chooses: a forged log line, a terminal escape, a misleading instruction, and 3,000 bytes. */
    private static final String FORGED = "refused this source's proof\n12:00:00 main: check this source's secret"
            + "\u001b[2J\r" + "y".repeat(3000);

    @Test
    void shouldQuoteAFakeSinksErrorInTheSourcesFailureAndNameItAsThePeers() throws Exception {
        expectWarning("refused this source's proof");
        expectWarning("insecure()");
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ServerSocket fake = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             ReplicationSource source = ReplicationSource.builder(primary, (InetSocketAddress) fake.getLocalSocketAddress())
                     .insecure().heartbeatInterval(HEARTBEAT).reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
                     .start()) {
            final Thread sink = fakeSink(fake, ERROR_AUTHENTICATION, new AtomicInteger());
            await(() -> source.failure(0) != null, "the refusals are reported");
            final String failure = source.failure(0).getMessage();

            assertTrue(failure.contains("the peer at " + fake.getLocalSocketAddress() + " (not authenticated) said: \""
                    + "refused this source's proof\\n12:00:00 main: check this source's secret\\x1b[2J\\r"),
                    failure);
            assertFalse(failure.chars().anyMatch(c -> c < 0x20), "no control character of the peer's: " + failure);
            assertTrue(failure.length() < 1500, "the peer's text is cut: " + failure.length() + " characters");
            assertTrue(failure.contains("(" + FORGED.getBytes(StandardCharsets.UTF_8).length + " bytes in all"), failure);
            fake.close();
            sink.join();
        }
    }

    @Test
    void shouldNotBlameThisSourcesSecretForAnErrorFromASinkThatProvedNothing() throws Exception {
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ServerSocket fake = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             ReplicationSource source = ReplicationSource.builder(primary, (InetSocketAddress) fake.getLocalSocketAddress())
                     .sharedSecret(SECRET).heartbeatInterval(HEARTBEAT)
                     .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(50)).start()) {
            final AtomicInteger answered = new AtomicInteger();
            final Thread sink = fakeSink(fake, ERROR_AUTHENTICATION, answered);
            await(() -> answered.get() >= 6, "the source tried again and again");

            assertNull(source.failure(0), "an ERROR before the sink proved the secret blames nothing, is retried");
            assertEquals(0, countLogged("check this source's secret, it differs"), "Spool's own words blame nothing");
            fake.close();
            sink.join();
        }
    }

    @Test
    void shouldEscapeAZoneThatIsNotUtf8InTheSinksAnswerAndLog() throws IOException, CharacterCodingException {
        expectWarning("is not UTF-8");
        try (SpoolQueue primary = open(tempDir.resolve("primary"));
             ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).heartbeatInterval(HEARTBEAT).start();
             Socket attacker = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
            final ByteBuffer hello = Wire.hello(primary, primary.queueId());
            new HelloFlyweight().wrap(hello, 0).features(MetadataDescriptor.FEATURE_ZONED_ROLL)
                    .roll(LocalTime.of(17, 0), ZoneId.of("Etc/UTC"));
            hello.put(HELLO_ROLL_ZONE_OFFSET, new byte[] {(byte) 0xC3, '\n', (byte) 0xFF, 0x1B});
            Wire.write(attacker, hello);

            final ByteBuffer error = Wire.read(attacker);
            assertEquals(TYPE_ERROR, Wire.type(error));
            final int length = error.getInt(ERROR_MESSAGE_LENGTH_OFFSET);
            final byte[] raw = new byte[length];
            error.get(ERROR_MESSAGE_OFFSET, raw);
            // valid UTF-8 all through, with the peer's bytes escaped
            final String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(raw)).toString();
            assertTrue(text.contains("zone \"\\xc3\\n\\xff\\x1bUTC\" is not UTF-8"), text);
            assertFalse(text.chars().anyMatch(c -> c < 0x20), text);
            assertEquals(ERROR_PROTOCOL, new ErrorFlyweight().wrap(error, 0).code());
            Wire.awaitClosed(attacker);
        }
        assertTrue(logged("zone \"\\xc3\\n\\xff\\x1bUTC\" is not UTF-8"), "the sink's log line escapes it too");
    }

    /** Answers every connection's HELLO with an ERROR of {@code code} carrying {@link #FORGED}, until closed. */
    private static Thread fakeSink(final ServerSocket fake, final int code, final AtomicInteger answered) {
        final Thread thread = new Thread(() -> {
            final byte[] text = FORGED.getBytes(StandardCharsets.UTF_8);
            while (!fake.isClosed()) {
                try (Socket socket = fake.accept()) {
                    assertEquals(TYPE_HELLO, Wire.type(Wire.read(socket)));
                    final ByteBuffer error = Wire.frame(ErrorFlyweight.frameLength(text.length), TYPE_ERROR);
                    new ErrorFlyweight().wrap(error, 0).code(code).term(0).message(text, text.length);
                    Wire.write(socket, error);
                    answered.incrementAndGet();
                } catch (IOException e) {
                    // closed: the test is over
                }
            }
        }, "fake-sink");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
