/**
 * Automatic failover of a replicated queue on ZooKeeper, through Apache Curator.
 */
package dev.spool.failover;
