/**
 * What queue-replication adds to the {@code spool} command line of its cli jar: {@code spool repair --replica},
 * the repair of a queue from a replica over the network ({@link dev.spool.replication.QueueRepair}), found by the
 * CLI through {@link java.util.ServiceLoader}.
 */
package dev.spool.replication.tools;
