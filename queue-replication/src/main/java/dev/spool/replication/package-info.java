/**
 * TCP replication of a queue to a replica at the same indices. {@link dev.spool.replication.ReplicationSource}
 * tails a primary queue and ships its excerpts in batches; {@link dev.spool.replication.ReplicationSink} writes
 * them into a replica queue and acknowledges them; {@link dev.spool.replication.CommitWaiter} lets a writer wait
 * for the {@link dev.spool.replication.CommitStage} it chose for each message; a sink's
 * {@link dev.spool.replication.ReplicationSink#promote()} turns the replica into the primary of a new term, which
 * fences the old one. The frame layout is drawn in the package-private {@code FrameDescriptor}.
 */
package dev.spool.replication;
