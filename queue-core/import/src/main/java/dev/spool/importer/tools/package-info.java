/**
 * The command line of {@code queue-import-VERSION-cli.jar}: {@code spool import} and {@code spool bridge}, over the
 * API of {@link dev.spool.importer}. Not API.
 */
package dev.spool.importer.tools;
