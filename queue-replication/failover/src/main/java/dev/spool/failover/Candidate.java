package dev.spool.failover;

/**
 * What one node tells the others when the primary is gone: how far its replica goes, so that the election can pick
 * the node that holds everything an ack quorum acknowledged.
 *
 * @param nodeId    the node's id.
 * @param term      the term the node's queue last took: of the primary it followed, or its own as a primary.
 * @param lastIndex the last index in its queue, -1 if empty.
 */
record Candidate(String nodeId, long term, long lastIndex) {
}
