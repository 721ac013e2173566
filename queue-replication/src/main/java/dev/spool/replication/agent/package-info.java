/**
 * Not API: how a replication service idles and logs, on queue-core's agent host (which runs a service's agent on its
 * own thread or invoked, and counts and logs its errors): {@link dev.spool.replication.agent.SelectorIdleStrategy} spins, yields, arms the doorbell and sleeps in the
 * service's selector, in the phases of {@link dev.spool.replication.agent.IdleBackoff}, which a commit waiter shares;
 * {@link dev.spool.replication.agent.RepeatedLog} logs a line a peer may repeat at will once, then with a count.
 * <p>
 * It uses only {@code protocol} (a selector's ignored key). Public types here are public only for the sibling
 * packages.
 */
package dev.spool.replication.agent;
