/**
 * Automatic failover of a replicated queue on ZooKeeper, through Apache Curator: the public {@code ClusterNode}, its
 * {@code Member}s, {@code NodeState} and {@code ClusterNodeMXBean}; inside, the node's role machine (pure decisions
 * on a snapshot), its duty (the I/O that gathers the snapshot and carries out each action) and the election rule.
 */
package dev.spool.failover;
