/**
 * Not API: the inside of a {@link dev.spool.replication.ReplicationSource}. {@link
 * dev.spool.replication.source.SourceLinks} is its agent over N sinks: one {@code SourceAgent} per sink (back-off,
 * connect, {@code SourceHandshake} a step per pass, {@code SourceStream} for acknowledgements, SCHEMA and DATA frames
 * and heartbeats, {@code SourceSchemas} for the typed schema files a sink is owed) on a shared selector, stepped in
 * turn; {@link dev.spool.replication.source.ReplicaAcks} holds what each replica acknowledged and the quorum forms
 * over it. {@link dev.spool.replication.source.SourceConfig} is the source's settings as its builder concluded them,
 * the only thing read here.
 * <p>
 * It uses {@code protocol} and {@code agent}, never {@code dev.spool.replication}: the API's exception that stops a
 * sink comes through the config. Public types here are public only for {@code dev.spool.replication}.
 */
package dev.spool.replication.source;
