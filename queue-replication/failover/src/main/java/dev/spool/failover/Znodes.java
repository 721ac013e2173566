package dev.spool.failover;

import dev.spool.queue.SpoolException;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/**
 * The znodes of one replicated queue, under {@code <root>/<queue id>}, and the text each holds: lines of
 * {@code key=value}, the first naming the format, so that a znode written by something else is refused with its
 * path rather than misread.
 * <pre>
 *   config        persistent: the members and the ack quorum, written by the first node, checked by the others
 *   term          persistent: the current term; a promotion sets it by compare-and-set on its version
 *   terms/&lt;n&gt;     persistent: the last index the primary of term n held when it was promoted
 *   leader        Curator's LeaderLatch: the primary holds it; only the chosen candidate joins it
 *   nodes/&lt;id&gt;    ephemeral: one per live node, its state (follower, candidate, primary), term, last index and
 *                 addresses; a candidate's last index is the one it stands with, others' is written again when it
 *                 moved, at most once a second (NodeStatus)
 *   rebuilding/&lt;id&gt; persistent while a node rebuilds its queue from the primary (it was set aside, or the node
 *                 joined with an empty directory after the cluster had a history): it stands in no election until
 *                 it holds what the primary held when it connected
 * </pre>
 */
final class Znodes {
    static final String CONFIG_FORMAT = "spool-cluster-1";
    static final String TERM_FORMAT = "spool-term-1";
    static final String NODE_FORMAT = "spool-node-1";
    static final String PROMOTION_FORMAT = "spool-promotion-1";
    static final String REBUILDING_FORMAT = "spool-rebuilding-1";

    private final String base;

    /**
     * @param root    the root path of Spool's znodes, such as {@code /spool}.
     * @param queueId the replicated queue's id.
     */
    Znodes(final String root, final UUID queueId) {
        this.base = (root.endsWith("/") ? root.substring(0, root.length() - 1) : root) + "/" + queueId;
    }

    String base() {
        return base;
    }

    String config() {
        return base + "/config";
    }

    String term() {
        return base + "/term";
    }

    String terms() {
        return base + "/terms";
    }

    String termOf(final long term) {
        return terms() + "/" + term;
    }

    String leader() {
        return base + "/leader";
    }

    String nodes() {
        return base + "/nodes";
    }

    String node(final String nodeId) {
        return nodes() + "/" + nodeId;
    }

    String rebuildings() {
        return base + "/rebuilding";
    }

    String rebuilding(final String nodeId) {
        return rebuildings() + "/" + nodeId;
    }

    /**
     * @param format the format line's value.
     * @param fields the fields, in order.
     * @return the znode's bytes.
     */
    static byte[] encode(final String format, final Map<String, String> fields) {
        final StringBuilder text = new StringBuilder("format=").append(format).append('\n');
        fields.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param path   the znode's path, for the message.
     * @param data   its bytes.
     * @param format the format it must have.
     * @param keys   the keys it must hold.
     * @return its fields, the format line excluded.
     * @throws SpoolException naming the path, if the znode was not written by Spool in that format.
     */
    static Map<String, String> decode(final String path, final byte[] data, final String format, final String... keys) {
        final Properties properties = new Properties();
        try {
            properties.load(new StringReader(data == null ? "" : new String(data, StandardCharsets.UTF_8)));
        } catch (IOException | IllegalArgumentException e) {
            throw notOurs(path, format, "it is not key=value text: " + e.getMessage());
        }
        if (!format.equals(properties.getProperty("format"))) {
            throw notOurs(path, format, "its format is " + properties.getProperty("format"));
        }
        final Map<String, String> fields = new LinkedHashMap<>();
        for (final String key : keys) {
            final String value = properties.getProperty(key);
            if (value == null) {
                throw notOurs(path, format, "it has no " + key);
            }
            fields.put(key, value);
        }
        return fields;
    }

    /**
     * @param path  the znode's path.
     * @param key   the field's key.
     * @param value its text.
     * @return the value as a long.
     * @throws SpoolException naming the path and the field, if it is not a number.
     */
    static long number(final String path, final String key, final String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new SpoolException("znode " + path + " was not written by Spool: its " + key + "=" + value
                    + " is not a number; remove it, or give the cluster another root path");
        }
    }

    private static SpoolException notOurs(final String path, final String format, final String why) {
        return new SpoolException("znode " + path + " was not written by Spool (" + format + "): " + why
                + "; remove it, or give the cluster another root path");
    }
}
