package dev.spool.replication.protocol;

import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.replication.CommitStage;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.UUID;

import static dev.spool.replication.protocol.FrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/** The frame codec: each flyweight reads what it wrote, and its decoder refuses what a peer must not send. */
class FrameCodecTest {
    private static final String PEER = "/10.0.0.7:4000";
    /** Frames start off the buffer's start, as they do in a connection's buffers. */
    private static final int AT = 24;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(1024).order(ByteOrder.LITTLE_ENDIAN);

    @Test
    void shouldAcceptEveryCommitStageInAPublishFrameAndNoOther() throws FrameException {
        assertEquals(CommitStage.values().length, PUBLISH_STAGE_COUNT, "a stage added to the API travels in PUBLISH");
        final byte[] text = {1};
        final PublishFlyweight publish = new PublishFlyweight().wrap(buffer, AT).clientId(7).sequence(1)
                .stage(CommitStage.values().length - 1).payload(text, 0, text.length);
        assertEquals(text.length, publish.checkedPayloadLength(PEER, PublishFlyweight.frameLength(text.length)));
        publish.stage(PUBLISH_STAGE_COUNT);
        assertThrows(FrameException.class, () -> publish.checkedPayloadLength(PEER, PublishFlyweight.frameLength(1)));
    }

    @Test
    void shouldGiveFramesTheirOwnMagicAndVersionSix() {
        assertEquals(0x464C5053, MAGIC);
        assertEquals("SPLF", new String(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(MAGIC).array(),
                StandardCharsets.US_ASCII));
        assertNotEquals(VERSION_1_MAGIC, MAGIC, "the ring buffer file's magic is no longer the frames'");
        assertEquals(8, VERSION);
    }

    @Test
    void shouldEncodeAndCheckAHeader() throws FrameException {
        final FrameHeader header = new FrameHeader().wrap(buffer, AT).encode(TYPE_ACK).frameLength(ACK_LENGTH);
        assertEquals(TYPE_ACK, header.type());
        assertEquals(VERSION, header.version());
        assertEquals(ACK_LENGTH, header.check(PEER, 4096, 0));
    }

    @Test
    void shouldRefuseAHeaderOfAnOlderSpoolNamingPeerTypeAndVersions() {
        new FrameHeader().wrap(buffer, AT).encode(TYPE_HELLO).version(1).frameLength(HELLO_LENGTH);
        final FrameException e = assertThrows(FrameException.class, () -> new FrameHeader().wrap(buffer, AT).check(PEER, 4096, 0));
        assertEquals("HELLO frame from " + PEER + ": protocol version=1, this build speaks 8: the peer runs an older Spool",
                e.getMessage());
    }

    @Test
    void shouldRefuseAHeaderOfBadLengthOrType() {
        final FrameHeader header = new FrameHeader().wrap(buffer, AT).encode(TYPE_DATA).frameLength(5000);
        assertEquals("DATA frame from " + PEER + ": length=5000 outside [8, 4096]",
                assertThrows(FrameException.class, () -> header.check(PEER, 4096, 0)).getMessage());
        header.encode(TYPE_ACK).frameLength(ACK_LENGTH + 1);
        assertEquals("ACK frame from " + PEER + ": length=17, expected 16",
                assertThrows(FrameException.class, () -> header.check(PEER, 4096, 0)).getMessage());
        header.encode(99).frameLength(HEADER_LENGTH);
        assertEquals("frame of unknown type 99 from " + PEER,
                assertThrows(FrameException.class, () -> header.check(PEER, 4096, 0)).getMessage());
    }

    @Test
    void shouldRoundTripAHelloAndRefuseTheOldMagic() throws FrameException {
        final UUID queueId = UUID.randomUUID();
        final byte[] nonce = new byte[NONCE_LENGTH];
        nonce[3] = 7;
        final HelloFlyweight hello = new HelloFlyweight().wrap(buffer, AT).magic(MAGIC).rollCycleId(3).queueId(queueId)
                .epochMillis(1234).term(5).lastIndex(-1).maxMessageLength(1024).frameLimit(4096).nonce(nonce);
        hello.check(PEER);
        assertEquals(3, hello.rollCycleId());
        assertEquals(queueId, hello.queueId());
        assertEquals(1234, hello.epochMillis());
        assertEquals(5, hello.term());
        assertEquals(-1, hello.lastIndex());
        assertEquals(1024, hello.maxMessageLength());
        assertEquals(4096, hello.frameLimit());
        assertArrayEquals(nonce, hello.nonce());
        hello.magic(VERSION_1_MAGIC);
        assertEquals("HELLO frame from " + PEER + ": magic=0x524c5053, protocol version 1's (the peer runs an older"
                + " Spool), expected 0x464c5053 of version 8",
                assertThrows(FrameException.class, () -> hello.check(PEER)).getMessage());
        hello.magic(MAGIC).frameLimit(8);
        assertTrue(assertThrows(FrameException.class, () -> hello.check(PEER)).getMessage().contains("frameLimit=8"));
        hello.frameLimit(4096).features(MetadataDescriptor.FEATURE_ZONED_ROLL | MetadataDescriptor.FEATURE_CRC32C)
                .roll(LocalTime.of(17, 0), ZoneId.of("America/New_York"));
        hello.check(PEER);
        assertEquals(LocalTime.of(17, 0), hello.rollTime());
        assertEquals(ZoneId.of("America/New_York"), hello.rollZone());
        hello.features(0x100);
        assertEquals("HELLO frame from " + PEER + ": features=0x100 include 0x100, which this build does not know: the"
                + " source runs a newer Spool", assertThrows(FrameException.class, () -> hello.check(PEER)).getMessage());
        hello.features(MetadataDescriptor.FEATURE_ZONED_ROLL).roll(LocalTime.of(17, 0), ZoneId.of("Etc/UTC"));
        buffer.putInt(AT + HELLO_ROLL_ZONE_OFFSET, 0x2f2f2f2f);
        assertTrue(assertThrows(FrameException.class, () -> hello.check(PEER)).getMessage().contains("zone is not a time zone"));
        hello.features(0);
        assertTrue(assertThrows(FrameException.class, () -> hello.check(PEER)).getMessage()
                .contains("without the zoned-roll feature"));
    }

    @Test
    void shouldRoundTripTheHandshakeReplies() throws FrameException {
        final byte[] nonce = new byte[NONCE_LENGTH];
        final byte[] mac = new byte[MAC_LENGTH];
        mac[31] = 1;
        final WelcomeFlyweight welcome = new WelcomeFlyweight().wrap(buffer, AT).nonce(nonce).mac(mac);
        assertArrayEquals(nonce, welcome.nonce());
        assertArrayEquals(mac, welcome.mac());
        final StartFlyweight start = new StartFlyweight().wrap(buffer, AT).mac(mac);
        assertArrayEquals(mac, start.mac());
        final ResumeFlyweight resume = new ResumeFlyweight().wrap(buffer, AT).lastIndex(41).checksum(0xFFFF_FFFFL)
                .term(2).mac(mac);
        resume.check(PEER);
        assertEquals(41, resume.lastIndex());
        assertEquals(0xFFFF_FFFFL, resume.checksum());
        assertEquals(2, resume.term());
        assertArrayEquals(mac, resume.mac());
        resume.checksum(1L << 32);
        assertTrue(assertThrows(FrameException.class, () -> resume.check(PEER)).getMessage().contains("checksum="));
        resume.checksum(-1).term(Long.MAX_VALUE);
        assertTrue(assertThrows(FrameException.class, () -> resume.check(PEER)).getMessage()
                .contains("term=" + Long.MAX_VALUE + " outside"));
    }

    @Test
    void shouldWriteAndCheckTheEntriesOfADataFrame() throws FrameException {
        final DataFlyweight data = new DataFlyweight().wrap(buffer, AT).count(2);
        final int first = data.firstEntry();
        final int second = data.putEntry(first, 10, 3);
        final int end = data.putEntry(second, 11, 5);
        data.check(PEER, end - AT, 9);
        assertEquals(10, data.entryIndex(first));
        assertEquals(3, data.entryLength(first));
        assertEquals(second, data.nextEntry(first));
        assertEquals(first + 12, data.entryPayload(first));
        assertEquals(DataFlyweight.frameLength(3) + 12 + 5, end - AT);
        assertEquals("DATA frame from " + PEER + ": entry 0 has index 0xa, not after 0xa",
                assertThrows(FrameException.class, () -> data.check(PEER, end - AT, 10)).getMessage());
        assertEquals("DATA frame from " + PEER + ": entry 1 at index 0xb has length 5, 4 bytes are left",
                assertThrows(FrameException.class, () -> data.check(PEER, end - AT - 1, 9)).getMessage());
        data.count(0);
        assertTrue(assertThrows(FrameException.class, () -> data.check(PEER, end - AT, 9)).getMessage()
                .contains("holds 0 entries"));
    }

    @Test
    void shouldRoundTripAcksErrorsPublishesAndCommits() throws FrameException {
        final AckFlyweight ack = new AckFlyweight().wrap(buffer, AT).index(7);
        assertEquals(7, ack.checkedIndex(PEER, 7));
        assertEquals("ACK frame from " + PEER + ": index 0x7 is beyond the last index sent, 0x6",
                assertThrows(FrameException.class, () -> ack.checkedIndex(PEER, 6)).getMessage());

        final byte[] text = "fenced".getBytes(StandardCharsets.UTF_8);
        final ErrorFlyweight error = new ErrorFlyweight().wrap(buffer, AT).code(ERROR_FENCED).term(3)
                .message(text, text.length);
        assertEquals(ERROR_FENCED, error.code());
        assertEquals(3, error.term());
        assertEquals("fenced", error.message(ErrorFlyweight.frameLength(text.length)));
        assertEquals("(malformed error message of length 6)", error.message(ErrorFlyweight.frameLength(text.length) + 1));

        final PublishFlyweight publish = new PublishFlyweight().wrap(buffer, AT).clientId(-5).sequence(9)
                .stage(CommitStage.ACKED.ordinal()).payload(text, 0, text.length);
        assertEquals(text.length, publish.checkedPayloadLength(PEER, PublishFlyweight.frameLength(text.length)));
        assertEquals(-5, publish.clientId());
        assertEquals(9, publish.sequence());
        assertEquals(CommitStage.ACKED.ordinal(), publish.stage());
        assertEquals('f', buffer.get(publish.payloadOffset()));
        assertThrows(FrameException.class, () -> publish.checkedPayloadLength(PEER, PublishFlyweight.frameLength(0)));

        publish.sequence(0);
        final FrameException noSequence = assertThrows(FrameException.class,
                () -> publish.checkedPayloadLength(PEER, PublishFlyweight.frameLength(text.length)));
        assertTrue(noSequence.getMessage().contains("sequence=0 (from 1)"), noSequence.getMessage());

        final CommitFlyweight commit = new CommitFlyweight().wrap(buffer, AT).sequence(9).index(-2);
        assertEquals(9, commit.sequence());
        assertThrows(FrameException.class, () -> commit.check(PEER));
        commit.index(70).check(PEER);
        assertEquals(70, commit.index());

        final ReadyFlyweight ready = new ReadyFlyweight().wrap(buffer, AT).flags(READY_FLAG_DEDUPLICATES).term(4);
        ready.check(PEER);
        assertEquals(READY_FLAG_DEDUPLICATES, ready.flags());
        assertEquals(4, ready.term());
        assertEquals(READY_LENGTH, FrameDescriptor.fixedLength(FrameDescriptor.TYPE_READY));
        ready.flags(2);
        final FrameException unknown = assertThrows(FrameException.class, () -> ready.check(PEER));
        assertTrue(unknown.getMessage().contains("flags=0x2"), unknown.getMessage());
    }
}
