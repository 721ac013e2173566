package dev.spool.replication;

import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.Arrays;

/**
 * The gateway's table of the writer state of each client id, on a queue with publisher ids: the id's current writer
 * epoch, the highest sequence of that epoch appended, and for each of its last {@value PublishClient#WINDOW}
 * sequences the index, length and CRC-32C of the payload appended (a client has at most that many publishes awaiting
 * their commits, so a re-send is among them), and the connection that publishes under the id. Filled at the gateway's
 * start from the queue's last excerpts, then by each IDENTIFY and append. A writer's slots grow, by doubling, to what
 * its window in flight needs, and are then reused: a publish allocates nothing. Holds the slots of at most
 * {@code limit} ids; past it, the id that published least recently is forgotten but for its epoch and last sequence
 * (16 bytes), so that a later instance of it still gets a later epoch and a re-send of it is known to be in doubt.
 * The gateway's thread only.
 */
final class Writers {
    private static final int FIRST_CAPACITY = 16;
    /**
     * No forgotten id: all ones, which as a forgotten id's state is epoch 65535 with sequence 2^48 - 1, an id that
     * can publish nothing more; taken for none, a new instance of it starts again at epoch 1.
     */
    private static final long NONE = -1;
    private final Long2ObjectHashMap<Writer> byId = new Long2ObjectHashMap<>();
    /** Each forgotten id's epoch and last sequence, packed as the queue stores them. */
    private final Long2LongHashMap forgotten = new Long2LongHashMap(NONE);
    private final int limit;
    /** Counts the publishes recorded, to tell which id published least recently. */
    private long clock;

    /** @param limit the most client ids whose slots are held. */
    Writers(final int limit) {
        this.limit = limit;
    }

    /** @return the writer state of the client id, or null if the table holds its slots no longer, or never did. */
    Writer find(final long clientId) {
        return byId.get(clientId);
    }

    /** @return the epoch and last sequence, packed, of a client id forgotten past the limit; {@link #NONE} if not. */
    long forgotten(final long clientId) {
        return forgotten.get(clientId);
    }

    /** @return true if {@code packed}, from {@link #forgotten}, names a forgotten id. */
    static boolean isForgotten(final long packed) {
        return packed != NONE;
    }

    /** @return how many client ids the table holds the slots of. */
    int size() {
        return byId.size();
    }

    /** @return how many client ids were forgotten but for their epoch and last sequence. */
    int forgottenCount() {
        return forgotten.size();
    }

    /** @return the client id's writer state, a new one at epoch 0 if the table holds none, forgetting another's. */
    Writer open(final long clientId) {
        Writer writer = byId.get(clientId);
        if (writer == null) {
            if (byId.size() >= limit) {
                forgetLeastRecent();
            }
            writer = new Writer(clientId);
            byId.put(clientId, writer);
            forgotten.remove(clientId);
        }
        writer.recordedAt = ++clock;
        return writer;
    }

    /** Marks the writer as the one that published last. */
    void touch(final Writer writer) {
        writer.recordedAt = ++clock;
    }

    private void forgetLeastRecent() {
        long oldestId = 0;
        long oldest = Long.MAX_VALUE;
        final Long2ObjectHashMap<Writer>.EntryIterator entries = byId.entrySet().iterator();
        while (entries.hasNext()) {
            entries.next();
            final Writer writer = entries.getValue();
            if (writer.recordedAt < oldest) {
                oldest = writer.recordedAt;
                oldestId = entries.getLongKey();
            }
        }
        final Writer writer = byId.remove(oldestId);
        writer.forgotten = true;
        forgotten.put(oldestId, (long) writer.epoch << WriterFence.EPOCH_SHIFT | writer.last);
    }

    /** One client id's writer state. */
    static final class Writer {
        final long clientId;
        /** The sequence held in each slot, a sequence modulo the capacity; 0 for none. */
        private long[] sequences = new long[FIRST_CAPACITY];
        private long[] indices = new long[FIRST_CAPACITY];
        private int[] lengths = new int[FIRST_CAPACITY];
        private int[] checksums = new int[FIRST_CAPACITY];
        /** The id's current writer epoch; 0 before any. */
        int epoch;
        /** The highest sequence of the epoch appended (or committed to the client elsewhere); 0 for none. */
        long last;
        /** The lowest sequence of the epoch whose slot may be held: a re-send of one below it is in doubt. */
        long heldFrom = 1;
        /** True once the table dropped this entry past its limit: a connection holding it looks it up again. */
        boolean forgotten;
        private long recordedAt;
        /** The connection that publishes under the id; null after the table was filled at start. */
        GatewayClient client;

        Writer(final long clientId) {
            this.clientId = clientId;
        }

        /** A new epoch: nothing of it appended yet. */
        void begin(final int epoch, final long last) {
            this.epoch = epoch;
            this.last = last;
            this.heldFrom = last + 1;
            Arrays.fill(sequences, 0);
        }

        /** @return the slot of {@code sequence} if held, else -1. */
        int slotOf(final long sequence) {
            final int slot = (int) (sequence & (sequences.length - 1));
            return sequence >= heldFrom && sequences[slot] == sequence ? slot : -1;
        }

        long index(final int slot) {
            return indices[slot];
        }

        int length(final int slot) {
            return lengths[slot];
        }

        int checksum(final int slot) {
            return checksums[slot];
        }

        /** Records that {@code sequence}, of {@code length} bytes and CRC-32C {@code checksum}, is at {@code index}. */
        void record(final long sequence, final long index, final int length, final int checksum) {
            int slot = (int) (sequence & (sequences.length - 1));
            // the slot's sequence is still one a client may send again: more slots, up to the whole window, first
            while (sequences.length < PublishClient.WINDOW && sequences[slot] != 0 && sequences[slot] != sequence
                    && sequences[slot] > sequence - PublishClient.WINDOW) {
                grow();
                slot = (int) (sequence & (sequences.length - 1));
            }
            sequences[slot] = sequence;
            indices[slot] = index;
            lengths[slot] = length;
            checksums[slot] = checksum;
            if (sequence > last) {
                last = sequence;
            }
        }

        /** Doubles the slots; where two old sequences meet in one, the later one is kept, the one still needed. */
        private void grow() {
            final long[] oldSequences = sequences;
            final long[] oldIndices = indices;
            final int[] oldLengths = lengths;
            final int[] oldChecksums = checksums;
            final int capacity = 2 * oldSequences.length;
            sequences = new long[capacity];
            indices = new long[capacity];
            lengths = new int[capacity];
            checksums = new int[capacity];
            for (int i = 0; i < oldSequences.length; i++) {
                final long sequence = oldSequences[i];
                final int slot = (int) (sequence & (capacity - 1));
                if (sequence != 0 && sequences[slot] < sequence) {
                    sequences[slot] = sequence;
                    indices[slot] = oldIndices[i];
                    lengths[slot] = oldLengths[i];
                    checksums[slot] = oldChecksums[i];
                }
            }
        }
    }
}
