package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.typed.Events;
import dev.spool.queue.typed.MethodReader;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.spool.replication.Replicas.await;
import static dev.spool.replication.Replicas.open;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Replication carries typed excerpts unchanged: the replica's method reader reads what the primary's writer wrote. */
class TypedReplicationTest extends SpoolTestBase {
    /** A message with a nested string. */
    static final class Fill {
        long orderId;
        StringBuilder venue = new StringBuilder();
        double price;
    }

    @Events
    interface Fills {
        void fill(Fill fill);
    }

    @Test
    void shouldReadOnTheReplicaTheTypedCallsWrittenOnThePrimary() {
        final Duration heartbeat = Duration.ofMillis(200);
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(1 << 20))
                     .heartbeatInterval(heartbeat).start();
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).heartbeatInterval(heartbeat)
                     .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100)).start()) {
            final Fills writer = appender.methodWriter(Fills.class);
            final Fill fill = new Fill();
            fill.venue.append("XLON");
            for (int i = 0; i < 100; i++) {
                fill.orderId = i;
                fill.price = 100.25 + i;
                writer.fill(fill);
            }
            final long last = primary.lastIndex();
            await(() -> sink.lastIndex() == last, "index " + last + " is replicated");
        }
        final List<String> read = new ArrayList<>();
        try (SpoolQueue replica = open(tempDir.resolve("replica")); ExcerptTailer tailer = replica.createTailer()) {
            final MethodReader reader = tailer.methodReader((Fills) f -> read.add(f.orderId + "@" + f.price + " " + f.venue));
            while (reader.readOne()) {
                assertEquals(0, reader.unknownMethods());
            }
        }
        assertEquals(100, read.size());
        assertEquals("0@100.25 XLON", read.get(0));
        assertEquals("99@199.25 XLON", read.get(99));
    }
}
