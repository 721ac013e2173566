/**
 * Recipe: the ring buffer in front of a queue. Producers append into a ring on tmpfs and return at once; a drainer
 * copies the records into the queue; an async tailer reads them, with their queue indices, before they are drained.
 */
package example.ring;
