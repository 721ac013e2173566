/**
 * TCP replication of a queue to a peer at the same indices, with acknowledgements and commit stages.
 * Not built yet: see the queue-replication issue.
 */
package dev.spool.replication;
