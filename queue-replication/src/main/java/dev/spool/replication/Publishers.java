package dev.spool.replication;

import org.agrona.collections.Long2ObjectHashMap;

/**
 * The gateway's table of what each client id published last, on a queue with publisher ids: the highest sequence
 * appended, and the index of each of its last {@value PublishClient#WINDOW} sequences (a client has at most that many
 * publishes awaiting their commits, so a re-send is always among them), and the connection that published last under
 * the id. Filled at the gateway's start from the queue's last excerpts, then by each append. A client's pairs grow,
 * by doubling, to what its window in flight needs, and are then reused: a publish allocates nothing. Holds at most
 * {@code limit} ids, forgetting the one that published least recently for a new one. The gateway's thread only.
 */
final class Publishers {
    private static final int FIRST_CAPACITY = 16;
    private final Long2ObjectHashMap<Publisher> byId = new Long2ObjectHashMap<>();
    private final int limit;
    /** Counts the publishes recorded, to tell which id published least recently. */
    private long clock;

    /** @param limit the most client ids held. */
    Publishers(final int limit) {
        this.limit = limit;
    }

    /** @return what the client id published last, or null if the table holds nothing of it. */
    Publisher find(final long clientId) {
        return byId.get(clientId);
    }

    /** @return how many client ids the table holds. */
    int size() {
        return byId.size();
    }

    /**
     * Records that the client's {@code sequence} is at {@code index}.
     *
     * @return the client's entry.
     */
    Publisher record(final long clientId, final long sequence, final long index) {
        Publisher publisher = byId.get(clientId);
        if (publisher == null) {
            if (byId.size() >= limit) {
                forgetLeastRecent();
            }
            publisher = new Publisher();
            byId.put(clientId, publisher);
        }
        publisher.record(sequence, index);
        publisher.recordedAt = ++clock;
        return publisher;
    }

    private void forgetLeastRecent() {
        long oldestId = 0;
        long oldest = Long.MAX_VALUE;
        final Long2ObjectHashMap<Publisher>.EntryIterator entries = byId.entrySet().iterator();
        while (entries.hasNext()) {
            entries.next();
            final Publisher publisher = entries.getValue();
            if (publisher.recordedAt < oldest) {
                oldest = publisher.recordedAt;
                oldestId = entries.getLongKey();
            }
        }
        byId.remove(oldestId);
    }

    /** One client id's entry. */
    static final class Publisher {
        /** The sequence held in each slot, a sequence modulo the capacity; 0 for none. */
        private long[] sequences = new long[FIRST_CAPACITY];
        private long[] indices = new long[FIRST_CAPACITY];
        private long last;
        private long recordedAt;
        /** The connection that published last under the id; null after the table was filled at start. */
        GatewayClient client;

        /** @return the highest sequence appended. */
        long last() {
            return last;
        }

        /** @return the index of {@code sequence}, or -1 if it is older than the sequences held. */
        long indexOf(final long sequence) {
            final int slot = (int) (sequence & (sequences.length - 1));
            return sequences[slot] == sequence ? indices[slot] : -1;
        }

        void record(final long sequence, final long index) {
            int slot = (int) (sequence & (sequences.length - 1));
            // the slot's sequence is still one a client may send again: more slots, up to the whole window, first
            while (sequences.length < PublishClient.WINDOW && sequences[slot] != 0 && sequences[slot] != sequence
                    && sequences[slot] > sequence - PublishClient.WINDOW) {
                grow();
                slot = (int) (sequence & (sequences.length - 1));
            }
            sequences[slot] = sequence;
            indices[slot] = index;
            if (sequence > last) {
                last = sequence;
            }
        }

        /** Doubles the slots; where two old sequences meet in one, the later one is kept, the one still needed. */
        private void grow() {
            final long[] oldSequences = sequences;
            final long[] oldIndices = indices;
            final int capacity = 2 * oldSequences.length;
            sequences = new long[capacity];
            indices = new long[capacity];
            for (int i = 0; i < oldSequences.length; i++) {
                final long sequence = oldSequences[i];
                final int slot = (int) (sequence & (capacity - 1));
                if (sequence != 0 && sequences[slot] < sequence) {
                    sequences[slot] = sequence;
                    indices[slot] = oldIndices[i];
                }
            }
        }
    }
}
