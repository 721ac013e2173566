package dev.spool.queue;

import dev.spool.queue.internal.QueueInternals;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnwrapTest extends SpoolTestBase {
    @Test
    void shouldGiveTheSiblingModulesTheQueuesInternals() {
        try (SpoolQueue queue = SpoolQueue.openOrCreate(tempDir.resolve("q"))) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            assertEquals(queue.checksums(), internals.checksums());
            assertSame(internals, queue.unwrap(QueueInternals.class), "one view per queue, nothing made per call");
            assertSame(queue, queue.unwrap(SpoolQueue.class));
        }
    }

    @Test
    void shouldRefuseATypeTheQueueDoesNotImplementNamingIt() {
        try (SpoolQueue queue = SpoolQueue.openOrCreate(tempDir.resolve("q"))) {
            final SpoolException refused = assertThrows(SpoolException.class, () -> queue.unwrap(Runnable.class));
            assertTrue(refused.getMessage().contains("java.lang.Runnable"), refused.getMessage());
            final SpoolException engine = assertThrows(SpoolException.class,
                    () -> queue.unwrap(dev.spool.queue.engine.QueueEngine.class), "the engine's class is no view");
            assertTrue(engine.getMessage().contains("QueueEngine"), engine.getMessage());
        }
    }
}
