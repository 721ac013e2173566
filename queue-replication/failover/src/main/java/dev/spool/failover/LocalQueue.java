package dev.spool.failover;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.SetAside;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The node's queue directory: created as a replica of the cluster's queue, checked, opened, set aside. */
final class LocalQueue {
    private LocalQueue() {
    }

    /**
     * Creates the queue as an empty replica of the cluster's queue if the directory holds none, and checks an
     * existing one is of the cluster's queue.
     *
     * @param config the node's settings.
     * @return the queue's roll cycle.
     * @throws SpoolException naming both ids, if the directory holds a queue of another id.
     */
    static RollCycle prepare(final NodeConfig config) {
        try (SpoolQueue queue = open(config)) {
            if (!queue.queueId().equals(config.queueId())) {
                throw new SpoolException("node " + config.nodeId() + ": directory " + config.directory()
                        + " holds queue " + queue.queueId() + ", but the cluster's queue is " + config.queueId()
                        + "; give the node a directory of its own");
            }
            return queue.rollCycle();
        }
    }

    /**
     * @param config the node's settings.
     * @return the node's queue, opened for writing; created as an empty replica of the cluster's queue, with
     * publisher ids, if absent.
     */
    static SpoolQueue open(final NodeConfig config) {
        final SpoolQueueBuilder builder = SpoolQueue.builder(config.directory());
        config.queueSettings().accept(builder);
        if (!exists(config.directory())) {
            // publisher ids: a client's re-send to the next primary after a failover is written once
            builder.replicaOf(config.queueId()).publisherIds(true);
        }
        return builder.openOrCreate();
    }

    /**
     * Renames the directory aside, keeping every file, so that the node can rebuild its queue from the primary.
     *
     * @param config the node's settings.
     * @param term   the term of the primary that refused it, for the name.
     * @return where the directory went.
     */
    static Path moveAside(final NodeConfig config, final long term) {
        try {
            return SetAside.move(config.directory(), "diverged-term-" + term);
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("node " + config.nodeId() + ": " + e.getMessage(), e.getCause());
        }
    }

    /**
     * @param config the node's settings.
     * @return true if the node's directory holds a queue (or anything).
     */
    static boolean exists(final NodeConfig config) {
        return exists(config.directory());
    }

    private static boolean exists(final Path directory) {
        if (!Files.isDirectory(directory)) {
            return false;
        }
        try (var files = Files.list(directory)) {
            return files.findAny().isPresent();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + directory, e);
        }
    }
}
