package dev.spool.failover;

import dev.spool.queue.internal.LoggerDefaults;

/**
 * Quiets the INFO lines ZooKeeper's client and Curator write at each connection (the client's environment, the
 * socket, the session and every state change: about 40 lines per client) to WARN for slf4j-simple, where the user set
 * no level for them ({@link LoggerDefaults}); their warnings and errors, and Spool's own lines, still show. Called
 * before the first Curator client of a process is made, as a logger's level is read when it is made.
 */
final class ZooKeeperLogging {
    /** ZooKeeper's loggers. */
    static final String ZOOKEEPER = "org.apache.zookeeper";
    /** Curator's loggers. */
    static final String CURATOR = "org.apache.curator";

    private ZooKeeperLogging() {
    }

    static void quiet() {
        LoggerDefaults.quiet(ZOOKEEPER);
        LoggerDefaults.quiet(CURATOR);
    }
}
