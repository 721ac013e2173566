/**
 * Recipe: a primary and a replica in two processes. The replica's process starts the primary as a child JVM, which
 * replicates every order and waits until the replica acknowledges it; then the replica's process kills the primary
 * with SIGKILL, promotes the replica and finds every acknowledged order in it.
 */
package example.replication;
