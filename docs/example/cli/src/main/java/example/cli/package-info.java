/**
 * Recipe: reading a queue with the {@code spool} command line. A program writes typed fills, then runs
 * {@code spool tail}, {@code spool dump} and {@code spool verify} on the queue and checks what they print.
 */
package example.cli;
