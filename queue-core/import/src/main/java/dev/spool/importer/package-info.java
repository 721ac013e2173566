/**
 * API: from Chronicle Queue to Spool. {@link dev.spool.importer.ChronicleImport} reads a Chronicle Queue directory
 * with Chronicle Queue's own reader, opened read-only, and writes every data document, in order and byte for byte,
 * into a Spool queue: once, as an import that ends with an {@link dev.spool.importer.ImportReport}, or live, as a
 * {@link dev.spool.importer.ChronicleBridge} that follows a Chronicle Queue another process still appends to, with
 * its progress and lag in JMX ({@link dev.spool.importer.BridgeMXBean}). Both resume from the Spool queue's own
 * content, so a run killed at any point and started again writes nothing twice and skips nothing. This is the one
 * module of Spool that depends on Chronicle Queue.
 */
package dev.spool.importer;
