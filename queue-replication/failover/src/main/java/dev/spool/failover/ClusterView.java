package dev.spool.failover;

import dev.spool.queue.SpoolException;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a node reads of the cluster from the cache of its znodes: the term, the promotions, the other nodes' states.
 * A znode that cannot be read is logged once and skipped; a missing term is an error naming its znode.
 */
final class ClusterView {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterView.class);

    private final NodeConfig config;
    private final Znodes znodes;
    private final String me;
    private final Set<String> unreadable = new HashSet<>();
    private CuratorCache cache;

    ClusterView(final NodeConfig config, final Znodes znodes) {
        this.config = config;
        this.znodes = znodes;
        this.me = config.nodeId();
    }

    void cache(final CuratorCache cache) {
        this.cache = cache;
    }

    /** @return the node's cache, or null before it has one. */
    CuratorCache cache() {
        return cache;
    }

    /** @return the cluster's term, as the cache holds it. */
    long currentTerm() {
        final Optional<ChildData> data = cache.get(znodes.term());
        if (data.isEmpty()) {
            throw new SpoolException("znode " + znodes.term() + " is missing: the cluster's term was removed from"
                    + " ZooKeeper by something other than Spool");
        }
        return termOf(data.get().getData());
    }

    /** @return the term in the data of the term's znode. */
    long termOf(final byte[] data) {
        final Map<String, String> fields = Znodes.decode(znodes.term(), data, Znodes.TERM_FORMAT, "term");
        return Znodes.number(znodes.term(), "term", fields.get("term"));
    }

    /** @return by term, the last index its primary held when promoted. */
    NavigableMap<Long, Long> promotedAt() {
        final NavigableMap<Long, Long> promoted = new TreeMap<>();
        final String prefix = znodes.terms() + "/";
        cache.stream().filter(data -> data.getPath().startsWith(prefix)).forEach(data -> {
            final String path = data.getPath();
            final Map<String, String> fields = readable(path, data.getData(), Znodes.PROMOTION_FORMAT, "lastIndex");
            if (fields != null) {
                promoted.put(Znodes.number(path, "term", path.substring(prefix.length())),
                        Znodes.number(path, "lastIndex", fields.get("lastIndex")));
            }
        });
        return promoted;
    }

    /** @return the state of every registered node, by id; a znode that is not a node's is logged and skipped. */
    Map<String, Map<String, String>> nodes() {
        final Map<String, Map<String, String>> nodes = new TreeMap<>();
        final String prefix = znodes.nodes() + "/";
        cache.stream().filter(data -> data.getPath().startsWith(prefix)).forEach(data -> {
            final Map<String, String> fields = readable(data.getPath(), data.getData(), Znodes.NODE_FORMAT, "node",
                    "state", "term", "lastIndex", "election");
            if (fields != null) {
                nodes.put(data.getPath().substring(prefix.length()), fields);
            }
        });
        return nodes;
    }

    private Map<String, String> readable(final String path, final byte[] data, final String format,
            final String... keys) {
        try {
            final Map<String, String> fields = Znodes.decode(path, data, format, keys);
            unreadable.remove(path);
            return fields;
        } catch (SpoolException e) {
            if (unreadable.add(path)) {
                LOG.error("node {} ignores {}", me, e.getMessage());
            }
            return null;
        }
    }

    /** @return the node whose znode says it is the primary of {@code current}, or null if none. */
    static String primaryOf(final Map<String, Map<String, String>> nodes, final long current) {
        for (final Map.Entry<String, Map<String, String>> node : nodes.entrySet()) {
            final Map<String, String> fields = node.getValue();
            if (NodeState.PRIMARY.name().equals(fields.get("state"))
                    && Long.toString(current).equals(fields.get("term"))) {
                return node.getKey();
            }
        }
        return null;
    }

    /** @return the other members standing, eligible, in the election after {@code current}. */
    List<Candidate> candidates(final Map<String, Map<String, String>> nodes, final long current) {
        final List<Candidate> candidates = new ArrayList<>();
        nodes.forEach((id, fields) -> {
            if (!id.equals(me) && NodeState.CANDIDATE.name().equals(fields.get("state"))
                    && Long.toString(current).equals(fields.get("election")) && isMember(id)
                    && !"false".equals(fields.get("eligible"))) {
                final String path = znodes.node(id);
                candidates.add(new Candidate(id, Znodes.number(path, "term", fields.get("term")),
                        Znodes.number(path, "lastIndex", fields.get("lastIndex"))));
            }
        });
        return candidates;
    }

    private boolean isMember(final String id) {
        for (final Member member : config.members()) {
            if (member.nodeId().equals(id)) {
                return true;
            }
        }
        return false;
    }
}
