package dev.spool.queue.engine;

import dev.spool.queue.SpoolQueue;

import java.lang.reflect.Field;

/** Reaches the store behind a queue's facade, for tests of the engine: the facade has no accessor for it. */
final class Stores {
    private Stores() {
    }

    static Store of(final SpoolQueue queue) {
        try {
            final Field engine = SpoolQueue.class.getDeclaredField("engine");
            engine.setAccessible(true);
            return ((QueueEngine) engine.get(queue)).store();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("SpoolQueue has no engine field", e);
        }
    }
}
