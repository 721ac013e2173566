package dev.spool.replication.protocol;

import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.format.TermHistoryDescriptor;
import dev.spool.queue.format.TypedExcerptDescriptor;

/**
 * Layout of a replication frame, little-endian. Every frame starts with the same header; the type says what
 * follows. A frame is at most the receiver's frame length limit; a frame whose length, version or type is wrong,
 * or whose body does not match its type, closes the connection before anything in it is applied. The frame codec
 * ({@link FrameHeader} and one flyweight per frame type) is the only code that reads or writes these offsets.
 * <p>
 * The HELLO's magic is 'SPLF', the protocol version {@value #VERSION}. A peer of another version, or whose HELLO
 * carries the ring file's magic 'SPLR' as the first Spool's did, is refused at its first frame, with an error naming
 * the peer and the version or magic found and expected.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                Frame length, header included                  |  0
 *  +-------------------------------+-------------------------------+
 *  |             Type              |       Protocol version        |  4
 *  +-------------------------------+-------------------------------+
 *  |                           Body ...                            |  8
 * </pre>
 * HELLO, source to sink, opens the handshake:
 * <pre>
 *  |                        Magic 'SPLF'                           |  8
 *  |                       Roll cycle id                           | 12
 *  |              Queue id, 128 bits (2 longs)                     | 16
 *  |              Epoch (ms since 1970, long)                      | 32
 *  |                        Term (long)                            | 40
 *  |           Source's last index (long, -1 = empty)              | 48
 *  |                  Maximum message length                       | 56
 *  |        Frame limit: the source's DATA frames are at most       | 60
 *  |        this long, unless one excerpt alone is longer           |
 *  |                   Source nonce (16 bytes)                     | 64
 * </pre>
 * WELCOME, sink to source, proves the sink and challenges the source; it says nothing of the replica:
 * <pre>
 *  |                    Sink nonce (16 bytes)                      |  8
 *  |       HMAC-SHA256 under the secret of "spool-sink", the       | 24
 *  |       HELLO and this frame before the MAC (32 bytes)          |
 * </pre>
 * START, source to sink, proves the source and carries the source queue's term history (which term wrote which
 * indices, see {@code TermHistoryDescriptor}), 1 to {@link #MAX_TERM_ENTRIES} entries, each a term and its first
 * index; the sink takes it over once the source accepted the replica:
 * <pre>
 *  |                  Term entry count (int)                       |  8
 *  |                        Reserved                               | 12
 *  |        Entries: term (long), first index of the term (long)   | 16 ...
 *  |      HMAC-SHA256 under the secret of "spool-source", the      | 16 + 16 x count
 *  |  HELLO, the WELCOME and this frame before the MAC (32 bytes)  |
 * </pre>
 * RESUME, sink to source, once START proved the secret: where the stream resumes, and the replica's term history.
 * The source finds the first index at which the two histories give different terms, and refuses as diverged a sink
 * whose last index reaches it (or passes the source's last); it checks that the sink's last excerpt is its own at
 * that index too, then starts the session with a HEARTBEAT, or ends it with an ERROR; the sink then receives DATA
 * from the index after its last:
 * <pre>
 *  |            Sink's last index (long, -1 = empty)               |  8
 *  |      CRC-32C of the sink's last excerpt's payload (long)      | 16
 *  |                     Sink's term (long)                        | 24
 *  |                  Term entry count (int)                       | 32
 *  |                        Reserved                               | 36
 *  |        Entries: term (long), first index of the term (long)   | 40 ...
 *  |   HMAC-SHA256 under the secret of "spool-sink-resume", the    | 40 + 16 x count
 *  |  HELLO, WELCOME, START, this frame before the MAC (32 bytes)  |
 * </pre>
 * Each side's MAC covers every handshake frame so far, as its sender sent or received it (both nonces, the queue's
 * identity and settings, the terms, the indices), so neither a recorded handshake nor one altered on the way proves
 * anything. Before START proved the secret, a sink sends nothing but WELCOME, or an ERROR that names no more than
 * the peer and the frame it sent (a malformed HELLO, a wrong START), and does no work that grows with the replica's
 * data. Its refusals after START (another queue, frames too large, another source streaming) carry a MAC under
 * {@link Handshake#refusalKey}, of the secret and the HELLO, WELCOME and START: a source acts on a refusal that
 * passes it, which no relay can forge or replay to another connection, and retries any other. The MACs are all zero
 * on an {@code insecure()} sink or source, which checks none.
 * <p>
 * Authenticated session: once a secret is configured, every frame after RESUME, both ways, carries a {@link FrameMac#TAG_LENGTH}-byte MAC after its body, included in its length: the
 * first 16 bytes of HMAC-SHA256 under the direction's session key ({@link Handshake#sessionKey}, from the secret
 * and both nonces) of the frame's sequence number in that direction (a long from 0, not sent) and the frame's bytes
 * before the MAC. A replayed, reordered, dropped, altered or injected frame fails it and closes the connection:
 * <pre>
 *  |             Header: length (MAC included), type, version      |  0
 *  |                         Body ...                              |  8
 *  |   HMAC-SHA256(session key; sequence, header, body), 16 bytes  | length - 16
 * </pre>
 * DATA, source to sink, one batch of excerpts in index order:
 * <pre>
 *  |                         Entry count                           |  8
 *  |     Flags: bit 0 = DATA_FLAG_CRC32C, every other bit 0        | 12
 *  |  Entry: index (long), payload length (int), payload, unpadded | 16 ...
 * </pre>
 * Each entry's payload is the excerpt's body as the queue stores it, and its length counts all of it: in a queue with
 * checksums ({@link #DATA_FLAG_CRC32C}) the CRC32C then the payload; in a queue with publisher ids, the CRC32C field
 * (0 without checksums), the publisher id and sequence, then the payload. The sink checks every entry's checksum
 * before it writes any, and writes the bodies verbatim, so the replica's files equal the primary's.
 * SCHEMA, source to sink, one typed schema file of the source's queue directory, sent after
 * START and whenever the source's queue counts a new schema file; the sink checks the name and content and writes
 * the file into the replica's directory, as the writer did into the primary's:
 * <pre>
 *  |                  Name length (int, bytes)                     |  8
 *  |                 Content length (int, bytes)                   | 12
 *  |    Name, UTF-8: {@code <interface canonical name>.spool-schema}       | 16
 *  |    Content, UTF-8, its first line "spool-schema 1" ...        | 16 + name length
 * </pre>
 * ACK, sink to source: {@code | Highest index written (or synced, if the sink is so configured), long | 8};
 * HEARTBEAT, either way, has no body; ERROR, either way, ends the connection; it carries the sender's term, so a
 * source of an older term learns it is fenced even from a sink that is busy with another source:
 * <pre>
 *  |                        Error code                             |  8
 *  |                   Message length (bytes)                      | 12
 *  |              Term of the sender's queue (long)                | 16
 *  |                     Message, UTF-8 ...                        | 24
 * </pre>
 * The publish gateway speaks the same header on its own port. With a secret, a client first proves it, and the
 * gateway too, in three frames; READY, PUBLISH and COMMIT then carry a MAC each as above (keys "spool-client-frames"
 * and "spool-gateway-frames"). CLIENT_HELLO, client to gateway: {@code | Client nonce (16 bytes) | 8}. CHALLENGE,
 * gateway to client, and PROOF, client to gateway:
 * <pre>
 *  |                  Gateway nonce (16 bytes)                     |  8
 *  |   HMAC-SHA256 under the secret of "spool-gateway", the        | 24
 *  |   CLIENT_HELLO and this frame before the MAC (32 bytes)       |
 *
 *  |   HMAC-SHA256 under the secret of "spool-client", the         |  8
 *  |   CLIENT_HELLO, the CHALLENGE and this frame before the MAC   |
 * </pre>
 * Once open, the gateway and the client each send a HEARTBEAT when they have sent the other nothing for their
 * heartbeat interval; a client declares a gateway that sent nothing (no READY, COMMIT or HEARTBEAT) for its liveness
 * timeout dead, as a frozen gateway keeps its socket open, and a gateway closes a client silent for its idle timeout.
 * READY, gateway to client, the first frame of a connection once it is open (after PROOF, or at once on an insecure
 * gateway): whether the gateway writes a publish sent again only once, and its queue's term:
 * <pre>
 *  |    Flags: bit 0 = READY_FLAG_DEDUPLICATES, every other bit 0  |  8
 *  |                          Reserved                             | 12
 *  |                 Term of the gateway's queue (long)            | 16
 * </pre>
 * IDENTIFY, client to gateway, the first frame a client sends once the connection is open: its id, the writer epoch
 * it holds (0 for a new instance of the client, which asks for one), the highest sequence whose commit it holds
 * with every one below it (0 for none), and the highest sequence it sent (0 for none): what it sends again lies
 * between the two. The gateway answers GRANT with the epoch the connection publishes under: a
 * new one for a new instance, which fences the id's earlier epochs, or the one held, unless a later one was granted
 * since (then ERROR {@link #ERROR_WRITER_FENCED}). Every PUBLISH of the connection belongs to that (id, epoch):
 * <pre>
 *  |                      Client id (long)                         |  8
 *  |        Writer epoch held (int), 0 = a new instance            | 16
 *  |                          Reserved                             | 20
 *  |      Highest sequence committed with all below it (long)      | 24
 *  |              Highest sequence sent (long)                     | 32
 *
 *  GRANT:
 *  |                      Client id (long)                         |  8
 *  |        Writer epoch granted (int), 1 to 65535                 | 16
 *  |                          Reserved                             | 20
 * </pre>
 * PUBLISH, client to gateway. The client id is the client's own, random unless chosen, and never 0 from a
 * {@code PublishClient}; the sequence numbers the publishes of the client's epoch 1, 2, 3... (at most
 * {@code 2^48 - 1}), and a publish sent again, on another connection of the same epoch to this gateway or to the
 * gateway of a promoted replica, keeps its sequence and its bytes:
 * <pre>
 *  |                      Client id (long)                         |  8
 *  |             Sequence (long), from 1, echoed in COMMIT         | 16
 *  |          Commit stage wanted ({@code CommitStage} ordinal)     | 24
 *  |                          Reserved                             | 28
 *  |                       Payload ...                             | 32
 * </pre>
 * COMMIT, gateway to client, once the message reached the stage the client asked for; for a publish the gateway
 * recognised as sent again, the index the original was written at:
 * <pre>
 *  |                      Sequence (long)                          |  8
 *  |                Index of the message (long)                    | 16
 * </pre>
 * A repairer (a queue fetching excerpts to repair from a replica) connects to the replica's sink port and opens
 * with CLIENT_HELLO, answered by CHALLENGE and PROOF as a publish client's, under labels of its own
 * ("spool-repair-sink", "spool-repairer", and the "-frames" keys), so no frame of one kind's session passes in
 * another's. Then FETCH, repairer to sink, asks for the stored bodies of consecutive indices of one cycle, at most
 * {@value #MAX_FETCH_EXCERPTS}; the sink answers each FETCH with one DATA frame (flag crc32c) of the bodies from
 * {@code from} on, at most {@value #FETCH_FRAME_LIMIT} bytes or one excerpt alone, and the repairer asks for the
 * rest. A replica's source is never busy to a repairer: it is another kind of peer.
 * <pre>
 *  |                 First index wanted (long)                     |  8
 *  |            Last index wanted, inclusive (long)                | 16
 *  |         Queue id of the repairer's queue, most bits (long)    | 24
 *  |         Queue id of the repairer's queue, least bits (long)   | 32
 * </pre>
 * A sink answers only a FETCH whose queue id is its replica's: a repairer never takes another queue's bytes.
 */
public final class FrameDescriptor {
    /** 'SPLF' in little-endian: the HELLO's magic. */
    public static final int MAGIC = 0x464C5053;
    /**
     * Protocol version, in every frame's header; a frame with another one closes the connection, with an error naming
     * the peer and both versions. Both peers and every frame are authenticated, and the source proves the secret
     * before the sink says anything of its replica: WELCOME carries only the sink's proof, and RESUME, after START,
     * the replica's last index, checksum, term and term history; START carries the source's term history. A publish
     * carries its client's id and sequence, and a gateway opens each connection with READY; a client identifies
     * itself with IDENTIFY and publishes under the writer epoch GRANT names. A repairer fetches a replica's excerpts
     * with FETCH on the sink's port. The gateway and its clients exchange HEARTBEATs, which a gateway or client of
     * version 7 would refuse.
     */
    public static final short VERSION = 8;
    /**
     * 'SPLR' in little-endian, the ring file's magic, which the first Spool's HELLO carried: recognised only to tell
     * such a peer that it runs an older Spool.
     */
    public static final int VERSION_1_MAGIC = 0x524C5053;

    public static final int LENGTH_OFFSET = 0;
    public static final int TYPE_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    public static final int VERSION_OFFSET = TYPE_OFFSET + Short.BYTES;
    public static final int HEADER_LENGTH = VERSION_OFFSET + Short.BYTES;

    public static final short TYPE_HELLO = 1;
    public static final short TYPE_WELCOME = 2;
    public static final short TYPE_START = 3;
    public static final short TYPE_DATA = 4;
    public static final short TYPE_ACK = 5;
    public static final short TYPE_HEARTBEAT = 6;
    public static final short TYPE_ERROR = 7;
    public static final short TYPE_PUBLISH = 8;
    public static final short TYPE_COMMIT = 9;
    public static final short TYPE_CLIENT_HELLO = 10;
    public static final short TYPE_CHALLENGE = 11;
    public static final short TYPE_PROOF = 12;
    public static final short TYPE_SCHEMA = 13;
    public static final short TYPE_RESUME = 14;
    public static final short TYPE_READY = 15;
    public static final short TYPE_FETCH = 16;
    public static final short TYPE_IDENTIFY = 17;
    public static final short TYPE_GRANT = 18;
    /** The highest type this build knows. */
    public static final short TYPE_LAST = TYPE_GRANT;

    public static final int NONCE_LENGTH = 16;
    public static final int MAC_LENGTH = 32;

    public static final int HELLO_MAGIC_OFFSET = HEADER_LENGTH;
    public static final int HELLO_ROLL_CYCLE_OFFSET = HELLO_MAGIC_OFFSET + Integer.BYTES;
    public static final int HELLO_QUEUE_ID_MOST_OFFSET = HELLO_ROLL_CYCLE_OFFSET + Integer.BYTES;
    public static final int HELLO_QUEUE_ID_LEAST_OFFSET = HELLO_QUEUE_ID_MOST_OFFSET + Long.BYTES;
    public static final int HELLO_EPOCH_OFFSET = HELLO_QUEUE_ID_LEAST_OFFSET + Long.BYTES;
    public static final int HELLO_TERM_OFFSET = HELLO_EPOCH_OFFSET + Long.BYTES;
    public static final int HELLO_LAST_INDEX_OFFSET = HELLO_TERM_OFFSET + Long.BYTES;
    public static final int HELLO_MAX_MESSAGE_LENGTH_OFFSET = HELLO_LAST_INDEX_OFFSET + Long.BYTES;
    public static final int HELLO_FRAME_LIMIT_OFFSET = HELLO_MAX_MESSAGE_LENGTH_OFFSET + Integer.BYTES;
    /** The source queue's features (metadata's bit set: checksums, index times, zoned roll). */
    public static final int HELLO_FEATURES_OFFSET = HELLO_FRAME_LIMIT_OFFSET + Integer.BYTES;
    /** With the zoned-roll feature: the minute of the day cycles start; else 0. */
    public static final int HELLO_ROLL_MINUTE_OFFSET = HELLO_FEATURES_OFFSET + Integer.BYTES;
    /** With the zoned-roll feature: the length of the zone id; else 0. */
    public static final int HELLO_ROLL_ZONE_LENGTH_OFFSET = HELLO_ROLL_MINUTE_OFFSET + Integer.BYTES;
    /** The zone id, UTF-8, in a field of {@link #HELLO_ROLL_ZONE_MAX_LENGTH} bytes. */
    public static final int HELLO_ROLL_ZONE_OFFSET = HELLO_ROLL_ZONE_LENGTH_OFFSET + Integer.BYTES;
    /** The longest zone id, as the metadata stores it. */
    public static final int HELLO_ROLL_ZONE_MAX_LENGTH = MetadataDescriptor.ROLL_ZONE_MAX_LENGTH;
    public static final int HELLO_NONCE_OFFSET = HELLO_ROLL_ZONE_OFFSET + HELLO_ROLL_ZONE_MAX_LENGTH;
    public static final int HELLO_LENGTH = HELLO_NONCE_OFFSET + NONCE_LENGTH;

    public static final int WELCOME_NONCE_OFFSET = HEADER_LENGTH;
    public static final int WELCOME_MAC_OFFSET = WELCOME_NONCE_OFFSET + NONCE_LENGTH;
    public static final int WELCOME_LENGTH = WELCOME_MAC_OFFSET + MAC_LENGTH;

    /** A term history's entry, in START and RESUME: the term. */
    public static final int TERM_ENTRY_TERM_OFFSET = 0;
    /** A term history's entry, in START and RESUME: the first index of the term. */
    public static final int TERM_ENTRY_START_INDEX_OFFSET = TERM_ENTRY_TERM_OFFSET + Long.BYTES;
    public static final int TERM_ENTRY_LENGTH = TERM_ENTRY_START_INDEX_OFFSET + Long.BYTES;
    /**
     * The most entries of a term history in START or RESUME, as many as a queue keeps: it bounds both frames, which
     * each side reads before it checks the MAC.
     */
    public static final int MAX_TERM_ENTRIES = TermHistoryDescriptor.MAX_ENTRIES;

    public static final int START_TERM_COUNT_OFFSET = HEADER_LENGTH;
    public static final int START_RESERVED_OFFSET = START_TERM_COUNT_OFFSET + Integer.BYTES;
    public static final int START_TERMS_OFFSET = START_RESERVED_OFFSET + Integer.BYTES;

    public static final int RESUME_LAST_INDEX_OFFSET = HEADER_LENGTH;
    public static final int RESUME_CHECKSUM_OFFSET = RESUME_LAST_INDEX_OFFSET + Long.BYTES;
    public static final int RESUME_TERM_OFFSET = RESUME_CHECKSUM_OFFSET + Long.BYTES;
    public static final int RESUME_TERM_COUNT_OFFSET = RESUME_TERM_OFFSET + Long.BYTES;
    public static final int RESUME_RESERVED_OFFSET = RESUME_TERM_COUNT_OFFSET + Integer.BYTES;
    public static final int RESUME_TERMS_OFFSET = RESUME_RESERVED_OFFSET + Integer.BYTES;

    public static final int DATA_COUNT_OFFSET = HEADER_LENGTH;
    public static final int DATA_FLAGS_OFFSET = DATA_COUNT_OFFSET + Integer.BYTES;
    public static final int DATA_ENTRIES_OFFSET = DATA_FLAGS_OFFSET + Integer.BYTES;
    /** DATA flag: each entry holds the excerpt's stored body, its CRC32C then its payload. */
    public static final int DATA_FLAG_CRC32C = 1;
    public static final int ENTRY_INDEX_OFFSET = 0;
    public static final int ENTRY_LENGTH_OFFSET = ENTRY_INDEX_OFFSET + Long.BYTES;
    public static final int ENTRY_HEADER_LENGTH = ENTRY_LENGTH_OFFSET + Integer.BYTES;

    public static final int SCHEMA_NAME_LENGTH_OFFSET = HEADER_LENGTH;
    public static final int SCHEMA_CONTENT_LENGTH_OFFSET = SCHEMA_NAME_LENGTH_OFFSET + Integer.BYTES;
    public static final int SCHEMA_NAME_OFFSET = SCHEMA_CONTENT_LENGTH_OFFSET + Integer.BYTES;
    /** The longest SCHEMA frame, before its MAC: the longest name and content a schema file may have. */
    public static final int SCHEMA_MAX_FRAME_LENGTH = SCHEMA_NAME_OFFSET + TypedExcerptDescriptor.SCHEMA_FILE_NAME_MAX_LENGTH
            + TypedExcerptDescriptor.SCHEMA_MAX_LENGTH;

    public static final int ACK_INDEX_OFFSET = HEADER_LENGTH;
    public static final int ACK_LENGTH = ACK_INDEX_OFFSET + Long.BYTES;

    public static final int HEARTBEAT_LENGTH = HEADER_LENGTH;

    public static final int READY_FLAGS_OFFSET = HEADER_LENGTH;
    public static final int READY_RESERVED_OFFSET = READY_FLAGS_OFFSET + Integer.BYTES;
    public static final int READY_TERM_OFFSET = READY_RESERVED_OFFSET + Integer.BYTES;
    public static final int READY_LENGTH = READY_TERM_OFFSET + Long.BYTES;
    /**
     * READY flag: the gateway's queue has publisher ids, so a publish sent again (same client id and sequence) is
     * written once and answered with the original's index; without it, every publish is written.
     */
    public static final int READY_FLAG_DEDUPLICATES = 1;

    public static final int PUBLISH_CLIENT_ID_OFFSET = HEADER_LENGTH;
    public static final int PUBLISH_SEQUENCE_OFFSET = PUBLISH_CLIENT_ID_OFFSET + Long.BYTES;
    public static final int PUBLISH_STAGE_OFFSET = PUBLISH_SEQUENCE_OFFSET + Long.BYTES;
    public static final int PUBLISH_RESERVED_OFFSET = PUBLISH_STAGE_OFFSET + Integer.BYTES;
    /** The highest sequence a publish of one writer epoch may carry: 48 bits, stored with the epoch in 64. */
    public static final long MAX_PUBLISH_SEQUENCE = (1L << 48) - 1;
    /** The highest writer epoch of one client id: 16 bits. */
    public static final int MAX_WRITER_EPOCH = 0xFFFF;
    /**
     * Commit stages a PUBLISH frame may ask for: the ordinals of {@code dev.spool.replication.CommitStage}, 0 to this
     * minus 1, which only ever grow at the end.
     */
    public static final int PUBLISH_STAGE_COUNT = 9;
    public static final int PUBLISH_PAYLOAD_OFFSET = PUBLISH_RESERVED_OFFSET + Integer.BYTES;

    public static final int IDENTIFY_CLIENT_ID_OFFSET = HEADER_LENGTH;
    public static final int IDENTIFY_EPOCH_OFFSET = IDENTIFY_CLIENT_ID_OFFSET + Long.BYTES;
    public static final int IDENTIFY_RESERVED_OFFSET = IDENTIFY_EPOCH_OFFSET + Integer.BYTES;
    public static final int IDENTIFY_COMMITTED_OFFSET = IDENTIFY_RESERVED_OFFSET + Integer.BYTES;
    public static final int IDENTIFY_SENT_OFFSET = IDENTIFY_COMMITTED_OFFSET + Long.BYTES;
    public static final int IDENTIFY_LENGTH = IDENTIFY_SENT_OFFSET + Long.BYTES;

    public static final int GRANT_CLIENT_ID_OFFSET = HEADER_LENGTH;
    public static final int GRANT_EPOCH_OFFSET = GRANT_CLIENT_ID_OFFSET + Long.BYTES;
    public static final int GRANT_RESERVED_OFFSET = GRANT_EPOCH_OFFSET + Integer.BYTES;
    public static final int GRANT_LENGTH = GRANT_RESERVED_OFFSET + Integer.BYTES;

    public static final int FETCH_FROM_OFFSET = HEADER_LENGTH;
    public static final int FETCH_TO_OFFSET = FETCH_FROM_OFFSET + Long.BYTES;
    public static final int FETCH_QUEUE_ID_MOST_OFFSET = FETCH_TO_OFFSET + Long.BYTES;
    public static final int FETCH_QUEUE_ID_LEAST_OFFSET = FETCH_QUEUE_ID_MOST_OFFSET + Long.BYTES;
    public static final int FETCH_LENGTH = FETCH_QUEUE_ID_LEAST_OFFSET + Long.BYTES;
    /** The most indices one FETCH may name: a repairer asks for a longer range in parts. */
    public static final int MAX_FETCH_EXCERPTS = 1 << 16;
    /** The longest DATA frame answering a FETCH, before its MAC, unless it holds one excerpt alone. */
    public static final int FETCH_FRAME_LIMIT = 64 * 1024;

    public static final int COMMIT_SEQUENCE_OFFSET = HEADER_LENGTH;
    public static final int COMMIT_INDEX_OFFSET = COMMIT_SEQUENCE_OFFSET + Long.BYTES;
    public static final int COMMIT_LENGTH = COMMIT_INDEX_OFFSET + Long.BYTES;

    public static final int CLIENT_HELLO_NONCE_OFFSET = HEADER_LENGTH;
    public static final int CLIENT_HELLO_LENGTH = CLIENT_HELLO_NONCE_OFFSET + NONCE_LENGTH;

    public static final int CHALLENGE_NONCE_OFFSET = HEADER_LENGTH;
    public static final int CHALLENGE_MAC_OFFSET = CHALLENGE_NONCE_OFFSET + NONCE_LENGTH;
    public static final int CHALLENGE_LENGTH = CHALLENGE_MAC_OFFSET + MAC_LENGTH;

    public static final int PROOF_MAC_OFFSET = HEADER_LENGTH;
    public static final int PROOF_LENGTH = PROOF_MAC_OFFSET + MAC_LENGTH;

    public static final int ERROR_CODE_OFFSET = HEADER_LENGTH;
    public static final int ERROR_MESSAGE_LENGTH_OFFSET = ERROR_CODE_OFFSET + Integer.BYTES;
    public static final int ERROR_TERM_OFFSET = ERROR_MESSAGE_LENGTH_OFFSET + Integer.BYTES;
    public static final int ERROR_MESSAGE_OFFSET = ERROR_TERM_OFFSET + Long.BYTES;
    /** Longest error message sent; longer ones are cut. */
    public static final int MAX_ERROR_MESSAGE_LENGTH = 1024;

    /** The peer broke the protocol: bad frame, unexpected type. */
    public static final int ERROR_PROTOCOL = 1;
    /** The shared-secret check failed. */
    public static final int ERROR_AUTHENTICATION = 2;
    /** Another queue: identity, roll cycle, epoch or message length differ. */
    public static final int ERROR_QUEUE_MISMATCH = 3;
    /** The sink holds excerpts the source does not, or different ones at the same index. */
    public static final int ERROR_DIVERGED = 4;
    /** The source's term is older than the sink's: a later primary exists. */
    public static final int ERROR_FENCED = 5;
    /** The sink could not write an excerpt. */
    public static final int ERROR_WRITE_FAILED = 6;
    /** The sink is streaming from another source, or serving one's handshake; try again later. */
    public static final int ERROR_BUSY = 7;
    /**
     * A publish's sequence is not the next of its client id's epoch (a gap, 0, negative or past {@code 2^48 - 1}), or
     * it is sent again with other bytes than the original's; the message names the id, the epoch and the sequences.
     * Also an IDENTIFY of an id whose every epoch was used.
     */
    public static final int ERROR_SEQUENCE = 8;
    /**
     * The sink's last index is below the source's oldest cycle: retention deleted the excerpts after it, which the
     * sink needs next. Unlike {@link #ERROR_DIVERGED}, the sink holds nothing the source contradicts; it sets its
     * replica aside and rebuilds it from the source's oldest excerpt.
     */
    public static final int ERROR_BEHIND_RETENTION = 9;
    /**
     * A FETCH the replica cannot answer: of another queue, a range it does not hold, not of one cycle, or of more than
     * {@link #MAX_FETCH_EXCERPTS} indices; or its copy of the range cannot be read.
     */
    public static final int ERROR_FETCH = 10;
    /**
     * A publish client's writer epoch was fenced: a later instance of its client id was granted a later epoch. The
     * message names the id and both epochs; the client's later publishes are refused.
     */
    public static final int ERROR_WRITER_FENCED = 11;
    /**
     * A publish sent again whose original the gateway no longer holds the state of (its client id was forgotten past
     * the gateway's most publishers, or the sequence is older than the ones it keeps): it may or may not be in the
     * queue; not written, so never written twice.
     */
    public static final int ERROR_IN_DOUBT = 12;

    private FrameDescriptor() {
    }

    /**
     * @param termCount the entries of the source's term history.
     * @return the offset of a START frame's MAC.
     */
    public static int startMacOffset(final int termCount) {
        return START_TERMS_OFFSET + termCount * TERM_ENTRY_LENGTH;
    }

    /**
     * @param termCount the entries of the source's term history.
     * @return the length of a START frame, before any session MAC.
     */
    public static int startLength(final int termCount) {
        return startMacOffset(termCount) + MAC_LENGTH;
    }

    /**
     * @param termCount the entries of the sink's term history.
     * @return the offset of a RESUME frame's MAC.
     */
    public static int resumeMacOffset(final int termCount) {
        return RESUME_TERMS_OFFSET + termCount * TERM_ENTRY_LENGTH;
    }

    /**
     * @param termCount the entries of the sink's term history.
     * @return the length of a RESUME frame.
     */
    public static int resumeLength(final int termCount) {
        return resumeMacOffset(termCount) + MAC_LENGTH;
    }

    /** @return the frame type's name, for error messages. */
    public static String typeName(final int type) {
        switch (type) {
            case TYPE_HELLO:
                return "HELLO";
            case TYPE_WELCOME:
                return "WELCOME";
            case TYPE_START:
                return "START";
            case TYPE_DATA:
                return "DATA";
            case TYPE_ACK:
                return "ACK";
            case TYPE_HEARTBEAT:
                return "HEARTBEAT";
            case TYPE_ERROR:
                return "ERROR";
            case TYPE_PUBLISH:
                return "PUBLISH";
            case TYPE_COMMIT:
                return "COMMIT";
            case TYPE_CLIENT_HELLO:
                return "CLIENT_HELLO";
            case TYPE_CHALLENGE:
                return "CHALLENGE";
            case TYPE_PROOF:
                return "PROOF";
            case TYPE_SCHEMA:
                return "SCHEMA";
            case TYPE_RESUME:
                return "RESUME";
            case TYPE_READY:
                return "READY";
            case TYPE_FETCH:
                return "FETCH";
            case TYPE_IDENTIFY:
                return "IDENTIFY";
            case TYPE_GRANT:
                return "GRANT";
            default:
                return "unknown type " + type;
        }
    }

    /**
     * @return the fewest bytes a frame of {@code type} whose length varies must have: its header and fixed fields,
     * which its flyweight reads before it knows the rest; {@link #HEADER_LENGTH} for another type.
     */
    public static int minLength(final int type) {
        switch (type) {
            case TYPE_DATA:
                return DATA_ENTRIES_OFFSET;
            case TYPE_SCHEMA:
                return SCHEMA_NAME_OFFSET;
            case TYPE_ERROR:
                return ERROR_MESSAGE_OFFSET;
            case TYPE_PUBLISH:
                return PUBLISH_PAYLOAD_OFFSET;
            case TYPE_START:
                return startLength(1);
            case TYPE_RESUME:
                return resumeLength(1);
            default:
                return HEADER_LENGTH;
        }
    }

    /** @return the length a frame of {@code type} must have, or -1 if its length varies. */
    public static int fixedLength(final int type) {
        switch (type) {
            case TYPE_HELLO:
                return HELLO_LENGTH;
            case TYPE_WELCOME:
                return WELCOME_LENGTH;
            case TYPE_ACK:
                return ACK_LENGTH;
            case TYPE_HEARTBEAT:
                return HEARTBEAT_LENGTH;
            case TYPE_COMMIT:
                return COMMIT_LENGTH;
            case TYPE_READY:
                return READY_LENGTH;
            case TYPE_FETCH:
                return FETCH_LENGTH;
            case TYPE_IDENTIFY:
                return IDENTIFY_LENGTH;
            case TYPE_GRANT:
                return GRANT_LENGTH;
            case TYPE_CLIENT_HELLO:
                return CLIENT_HELLO_LENGTH;
            case TYPE_CHALLENGE:
                return CHALLENGE_LENGTH;
            case TYPE_PROOF:
                return PROOF_LENGTH;
            default:
                return -1;
        }
    }
}
