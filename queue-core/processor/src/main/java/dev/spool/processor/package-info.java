/**
 * The annotation processor of Spool's typed messages: for every interface annotated
 * {@code dev.spool.queue.typed.Events} it checks that each method can be encoded (failing the build with the method
 * and the reason if not) and generates, with Palantir's JavaPoet, a method writer ({@code <Name>SpoolWriter}), a
 * method reader ({@code <Name>SpoolReader}), the schema text {@code dump} and {@code tail} print with, and the GraalVM
 * native-image reflection metadata that creating the writer and reader needs. It refers
 * to queue-core's types by name only and does not depend on it, so queue-core's own tests can use it.
 */
package dev.spool.processor;
