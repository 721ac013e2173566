package dev.spool.queue;

import dev.spool.queue.internal.QueueInternals;

import org.agrona.ErrorHandler;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The builder's conclude step: every option checked, and the instance's own settings reach the duties. */
class QueueConfigTest extends SpoolTestBase {
    @Test
    void shouldStartTheQueuesDutiesOnTheBuildersThreadFactory() throws Exception {
        final List<Thread> made = new CopyOnWriteArrayList<>();
        final ThreadFactory factory = runnable -> {
            final Thread thread = new Thread(runnable);
            thread.setDaemon(true);
            made.add(thread);
            return thread;
        };
        final ErrorHandler errors = failure -> { };
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).threadFactory(factory)
                .errorHandler(errors).openOrCreate()) {
            try (GroupCommit groupCommit = queue.startGroupCommit()) {
                assertEquals(1, made.size(), "the group commit's thread comes from the builder's factory");
                assertEquals("spool-group-commit", made.get(0).getName());
            }
            made.get(0).join();
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            assertSame(factory, internals.threadFactory(), "the sibling modules' duties take the same factory");
            assertSame(errors, internals.errorHandler(), "and the same error handler");
        }
    }

    @Test
    void shouldRefuseAMissingClockOrIdleStrategyNamingTheOption() {
        final SpoolException clock = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(tempDir.resolve("q")).nanoClock(null).openOrCreate());
        assertTrue(clock.getMessage().contains("nanoClock=null must not be null"), clock.getMessage());
        final SpoolException idle = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(tempDir.resolve("q")).idleStrategy(null).openOrCreate());
        assertTrue(idle.getMessage().contains("idleStrategy=null must not be null"), idle.getMessage());
    }
}
