/**
 * Not API: the inside of a {@link dev.spool.replication.ReplicationSink}. {@link
 * dev.spool.replication.sink.SinkSession} runs the sink's connections (accept, pending handshakes and their
 * deadlines, frames, owed acknowledgements, the source's liveness); {@code SinkHandshake} is one connection's
 * handshake; {@link dev.spool.replication.sink.ReplicaWriter} writes the replica queue and its schema files and says
 * what to acknowledge; {@code Refusal} is a reason to refuse a source. {@link dev.spool.replication.sink.SinkConfig}
 * is the sink's settings as its builder concluded them.
 * <p>
 * It uses {@code protocol} and {@code agent}, never {@code dev.spool.replication}. Public types here are public only
 * for {@code dev.spool.replication}.
 */
package dev.spool.replication.sink;
