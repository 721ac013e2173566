package dev.spool.queue.internal;

import dev.spool.queue.SpoolException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MappingGuardTest {

    @Test
    void shouldWaitForTheReaderInsideBeforeClosingAndRefuseEveryReaderAfter() throws Exception {
        final MappingGuard guard = new MappingGuard("ring /dev/shm/test.ring");
        guard.enter();
        final CountDownLatch closing = new CountDownLatch(1);
        final AtomicBoolean closed = new AtomicBoolean();
        final Thread closer = new Thread(() -> {
            closing.countDown();
            closed.set(guard.close());
        });
        closer.start();
        assertTrue(closing.await(10, TimeUnit.SECONDS));
        while (!guard.isClosed()) {
            Thread.onSpinWait();
        }
        final SpoolException refused = assertThrows(SpoolException.class, guard::enter);
        assertEquals("ring /dev/shm/test.ring is closed", refused.getMessage());
        closer.join(200);
        assertTrue(closer.isAlive(), "close waits while a reader is inside");
        guard.exit();
        closer.join(10_000);
        assertFalse(closer.isAlive(), "close returns once the reader exited");
        assertTrue(closed.get(), "the first close closes");
        assertFalse(guard.close(), "a second close finds it closed");
        assertThrows(SpoolException.class, guard::checkOpen);
    }
}
