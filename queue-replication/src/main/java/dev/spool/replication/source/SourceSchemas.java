package dev.spool.replication.source;

import dev.spool.queue.internal.SchemaFiles;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.SchemaFlyweight;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static dev.spool.replication.protocol.FrameDescriptor.TYPE_SCHEMA;

/**
 * What one sink is owed of the source queue's typed schema files: all of them after each handshake, then each one
 * new or changed. It learns of changes from the metadata's schema generation, which every schema file written
 * raises: {@link #due()} compares it with the generation it last read, one volatile read of mapped memory and no
 * allocation per duty cycle, and reads the directory only when it differs. A file that is no schema (a hand-made
 * one, too long or not UTF-8) is logged once and not sent, as the sink would refuse it. Used by the source's
 * {@link SourceStream} for that sink, on its thread; allocates only when the generation changed.
 */
final class SourceSchemas {
    private static final Logger LOG = LoggerFactory.getLogger(SourceConfig.LOGGER);

    private final SchemaFiles files;
    private final SchemaFlyweight schema = new SchemaFlyweight();
    /** The content last sent (or found invalid) under each name on this connection. */
    private final Map<String, byte[]> sent = new HashMap<>();
    private final ArrayDeque<Map.Entry<String, byte[]>> pending = new ArrayDeque<>();
    private long generation;

    /** @param files the source queue's schema files. */
    SourceSchemas(final SchemaFiles files) {
        this.files = files;
    }

    /** A new connection: every schema file is owed again. */
    void resume() {
        sent.clear();
        pending.clear();
        rescan();
    }

    /** @return true if a schema file waits to be sent: then {@link #sendNext(Connection)} builds its frame. */
    boolean due() {
        if (pending.isEmpty()) {
            if (!stale()) {
                return false;
            }
            rescan();
        }
        return !pending.isEmpty();
    }

    /**
     * @return true if the queue counted a schema file written since the directory was last read: one volatile read
     * of mapped memory. A writer stores its schema file before it appends, so an excerpt read before this returns
     * false needs no file that was not read then.
     */
    boolean stale() {
        return files.generation() != generation;
    }

    /** Builds the SCHEMA frame of the next file owed at the connection's send end, which must be idle. */
    void sendNext(final Connection connection) {
        final Map.Entry<String, byte[]> file = pending.poll();
        final int offset = connection.beginFrame(TYPE_SCHEMA);
        final int length = schema.wrap(connection.send(), offset)
                .put(file.getKey().getBytes(StandardCharsets.UTF_8), file.getValue());
        connection.endFrame(offset, length);
        sent.put(file.getKey(), file.getValue());
    }

    private void rescan() {
        // read before the listing: a file stored after the listing raises it again, and the next pass sees that
        generation = files.generation();
        for (final Map.Entry<String, byte[]> file : files.read().entrySet()) {
            final String name = file.getKey();
            final byte[] content = file.getValue();
            if (Arrays.equals(sent.get(name), content)) {
                continue;
            }
            final String problem = SchemaFiles.contentProblem(content);
            if (problem != null) {
                LOG.warn("replication source of {}: not sending the typed schema file {}: {}", files.directory(),
                        name, problem);
                sent.put(name, content);
                continue;
            }
            pending.removeIf(owed -> owed.getKey().equals(name));
            pending.add(file);
        }
    }
}
