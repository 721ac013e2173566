package dev.spool.replication;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.SECRET;
import static dev.spool.replication.Replicas.message;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_WRITER_FENCED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A failed publish says what became of its message: it got no sequence and was never sent (safe to publish again), or
 * it got a sequence and is in doubt; the client tells the last sequence it gave.
 */
class PublishFailureTest extends SpoolTestBase {
    private static final int MAX_MESSAGE = 8192;

    private static long publish(final PublishClient client, final long message) {
        final byte[] bytes = message(message);
        return client.publish(bytes, 0, bytes.length, CommitStage.WRITTEN);
    }

    @Test
    void shouldSayThatAFencedClientsMessagesAreInDoubtOrNeverSent() {
        expectWarning("fenced by epoch 2");
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20)
                .publisherIds(true).openOrCreate();
             PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(SECRET).start();
             PublishClient first = PublishClient.builder(gateway.address(), MAX_MESSAGE).sharedSecret(SECRET)
                     .clientId(0xF1).connect()) {
            assertEquals(0, first.lastSequence());
            assertTrue(first.awaitCommit(publish(first, 1), 30, TimeUnit.SECONDS) >= 0);
            try (PublishClient second = PublishClient.builder(gateway.address(), MAX_MESSAGE).sharedSecret(SECRET)
                    .clientId(0xF1).connect()) {
                assertTrue(second.awaitCommit(publish(second, 2), 30, TimeUnit.SECONDS) >= 0);
                assertEquals(2, second.epoch());
                // the fence reaches the first client while it waits: the message it awaits is in doubt
                final long sent = publish(first, 3);
                final PublishException waiting = assertThrows(PublishException.class,
                        () -> first.awaitCommit(sent, 30, TimeUnit.SECONDS));
                assertEquals(sent, waiting.sequence());
                assertTrue(waiting.inDoubt());
                assertEquals(ERROR_WRITER_FENCED, waiting.errorCode());
                assertTrue(waiting.getMessage().contains("client id 0xf1 epoch 1 was fenced by epoch 2"),
                        waiting.getMessage());
                // a later publish gets no sequence: it is never sent
                final PublishException later = assertThrows(PublishException.class, () -> publish(first, 4));
                assertEquals(0, later.sequence());
                assertFalse(later.inDoubt());
                assertEquals(ERROR_WRITER_FENCED, later.errorCode());
                assertTrue(later.getMessage().endsWith("the message got no sequence and was not sent"),
                        later.getMessage());
                assertEquals(sent, first.lastSequence(), "the refused publish took no sequence");
            }
        }
    }

    @Test
    void shouldSayWhetherAPublishOfAClientWhoseGatewayWentAwayGotASequence() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20)
                .publisherIds(true).openOrCreate()) {
            final PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(SECRET).start();
            try (PublishClient client = PublishClient.builder(gateway.address(), MAX_MESSAGE).sharedSecret(SECRET)
                    .connect()) {
                assertTrue(client.awaitCommit(publish(client, 1), 30, TimeUnit.SECONDS) >= 0);
                gateway.close();
                assertThrows(UncheckedIOException.class, () -> {
                    while (true) {
                        client.awaitCommit(publish(client, 2), 30, TimeUnit.SECONDS);
                    }
                }, "the connection's loss is found");
                final long last = client.lastSequence();
                final PublishException never = assertThrows(PublishException.class, () -> publish(client, 3));
                assertEquals(0, never.sequence(), "a client with a fixed address does not reconnect: not sent");
                assertFalse(never.inDoubt());
                assertEquals(last, client.lastSequence());
            }
        }
    }
}
