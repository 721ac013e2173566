/**
 * The {@code cluster} command, a three-node cluster on an embedded ZooKeeper server whose primary is killed, and the
 * {@code failover} experiment, which times many such failovers and compares a cluster node's publish latency with
 * the same replication without ZooKeeper. The nodes run in child JVMs ({@link dev.spool.benchmarks.cluster.NodeMain}).
 */
package dev.spool.benchmarks.cluster;
