/**
 * The asynchronous ring buffer on tmpfs that sits in front of a queue and is drained into it by its own thread.
 * Not built yet: see the queue-ringbuffer issue.
 */
package dev.spool.ringbuffer;
