/**
 * Not API: what the ring-buffer and replication modules need from queue-core and users do not, with no promise of
 * compatibility between versions. {@link dev.spool.queue.internal.QueueInternals}, which a module gets as
 * {@code queue.unwrap(QueueInternals.class)}, gives a queue's role, term and {@link
 * dev.spool.queue.internal.TermHistory} (which term wrote which indices), acknowledgements, doorbells, promotion and
 * fencing, its clocks, error handler and thread factory, and its
 * {@link dev.spool.queue.internal.IndexedAppender} that writes at given indices, and, for the publish gateway, its
 * {@link dev.spool.queue.internal.PublisherAppender} that stores each publish's client id and sequence and the
 * {@link dev.spool.queue.internal.PublisherReader} they are read back to; {@link
 * dev.spool.queue.internal.ProcessSlots} claims a slot per live process through byte-range locks; {@link
 * dev.spool.queue.internal.SchemaFiles} stores and lists the typed schema files of a queue directory and counts them
 * in the metadata's schema generation, for the method writers and replication; {@link
 * dev.spool.queue.internal.AgentHost} runs every background duty, on its own thread or invoked, under one error
 * policy (counted, logged without flooding, visible in JMX); {@link dev.spool.queue.internal.MappingGuard} keeps a
 * queue's or a ring's memory mapped while another thread's view reads it, and refuses such reads once closed. Two
 * contracts of the API with the engine live here too, so that neither names the other's classes: {@link
 * dev.spool.queue.internal.QueueConfig}, the builder's concluded settings, and {@link
 * dev.spool.queue.internal.SyncTrigger}, a sync policy's evaluation; and {@link
 * dev.spool.queue.internal.ReplicaRepair}, the repair from a replica over the network that queue-replication provides
 * to the CLI. Nothing here refers to the engine or to {@code
 * SpoolQueue}.
 */
package dev.spool.queue.internal;
