package dev.spool.queue.format;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The offsets are computed from lengths and alignments; these are the positions files on disk have always had.
 * A failure here is a format change, not a refactoring.
 */
class DescriptorLayoutTest {
    @Test
    void shouldKeepTheMetadataFileLayout() {
        final int[][] expected = {
                {MetadataDescriptor.MAGIC_OFFSET, 0},
                {MetadataDescriptor.VERSION_OFFSET, 4},
                {MetadataDescriptor.ROLL_CYCLE_OFFSET, 8},
                {MetadataDescriptor.INDEX_SPACING_OFFSET, 12},
                {MetadataDescriptor.EPOCH_OFFSET, 16},
                {MetadataDescriptor.QUEUE_ID_OFFSET, 24},
                {MetadataDescriptor.CREATED_OFFSET, 40},
                {MetadataDescriptor.INDEX_BLOCK_ENTRIES_OFFSET, 48},
                {MetadataDescriptor.MAX_MESSAGE_LENGTH_OFFSET, 52},
                {MetadataDescriptor.CHUNK_LENGTH_OFFSET, 56},
                {MetadataDescriptor.WRITE_LOCK_OFFSET, 64},
                {MetadataDescriptor.WRITE_FENCE_OFFSET, 72},
                {MetadataDescriptor.HIGHEST_CYCLE_OFFSET, 128},
                {MetadataDescriptor.LOWEST_CYCLE_OFFSET, 136},
                {MetadataDescriptor.LAST_SYNCED_INDEX_OFFSET, 192},
                {MetadataDescriptor.LAST_ACKED_INDEX_OFFSET, 256},
                {MetadataDescriptor.TERM_OFFSET, 264},
                {MetadataDescriptor.ROLE_OFFSET, 272},
                {MetadataDescriptor.FENCED_BY_TERM_OFFSET, 280},
                {MetadataDescriptor.FEATURES_OFFSET, 320},
                {MetadataDescriptor.ROLL_TIME_OFFSET, 328},
                {MetadataDescriptor.ROLL_ZONE_LENGTH_OFFSET, 332},
                {MetadataDescriptor.ROLL_ZONE_OFFSET, 336},
                {MetadataDescriptor.QUORUM_ACKED_INDEX_OFFSET, 448},
                {MetadataDescriptor.SCHEMA_GENERATION_OFFSET, 512},
                {MetadataDescriptor.PROCESS_SLOTS_OFFSET, 1024},
                {MetadataDescriptor.PROCESS_SLOT_SESSION_OFFSET, 0},
                {MetadataDescriptor.PROCESS_SLOT_PID_OFFSET, 8},
                {MetadataDescriptor.PROCESS_SLOT_LENGTH, 16},
                {MetadataDescriptor.NAMED_TAILERS_OFFSET, 8192},
                {MetadataDescriptor.NAMED_TAILER_NAME_LENGTH_OFFSET, 0},
                {MetadataDescriptor.NAMED_TAILER_INDEX_OFFSET, 8},
                {MetadataDescriptor.NAMED_TAILER_NAME_OFFSET, 16},
                {MetadataDescriptor.NAMED_TAILER_LENGTH, 64},
                {MetadataDescriptor.FILE_LENGTH, 65536},
        };
        assertLayout(expected);
        assertEquals(0x4D4C5053, MetadataDescriptor.MAGIC);
        assertEquals(1, MetadataDescriptor.VERSION);
    }

    @Test
    void shouldKeepTheCycleFileLayout() {
        final int[][] expected = {
                {CycleDescriptor.MAGIC_OFFSET, 0},
                {CycleDescriptor.VERSION_OFFSET, 4},
                {CycleDescriptor.CYCLE_OFFSET, 8},
                {CycleDescriptor.ROLL_CYCLE_OFFSET, 16},
                {CycleDescriptor.INDEX_SPACING_OFFSET, 20},
                {CycleDescriptor.INDEX_BLOCK_ENTRIES_OFFSET, 24},
                {CycleDescriptor.ROOT_ENTRIES_OFFSET, 28},
                {CycleDescriptor.FEATURES_OFFSET, 32},
                {CycleDescriptor.WRITE_POSITION_OFFSET, 64},
                {CycleDescriptor.WRITE_SEQUENCE_OFFSET, 72},
                {CycleDescriptor.HEADER_LENGTH, 4096},
                {CycleDescriptor.ROOT_OFFSET, 4096},
                {CycleDescriptor.ROOT_LENGTH, 262144},
                {CycleDescriptor.DATA_OFFSET, 266240},
                {CycleDescriptor.BLOCK_TYPE_OFFSET, 4},
                {CycleDescriptor.BLOCK_ENTRIES_OFFSET, 8},
        };
        assertLayout(expected);
        assertEquals(0x434C5053, CycleDescriptor.MAGIC);
        assertEquals(1, CycleDescriptor.VERSION);
        assertEquals(4096 + 8 * 3, CycleDescriptor.rootEntryPosition(3));
        assertEquals(1000 + 8 + 8 * 5, CycleDescriptor.indexEntryPosition(1000, 5));
        assertEquals(4 + 8 * 16, CycleDescriptor.blockPayloadLength(16, 0));
        assertEquals(4 + 8 * 16 * 2, CycleDescriptor.blockPayloadLength(16, MetadataDescriptor.FEATURE_INDEX_TIMES));
        assertEquals(1000 + 8 + 8 * 16 + 8 * 5, CycleDescriptor.indexTimePosition(1000, 16, 5));
    }

    @Test
    void shouldKeepTheExcerptLayout() {
        final int[][] expected = {
                {ExcerptDescriptor.HEADER_LENGTH, 4},
                {ExcerptDescriptor.METADATA_TYPE_OFFSET, 0},
                {ExcerptDescriptor.SYNC_MARKER_INDEX_OFFSET, 8},
                {ExcerptDescriptor.SYNC_MARKER_TIME_OFFSET, 16},
                {ExcerptDescriptor.SYNC_MARKER_LENGTH, 20},
                {ExcerptDescriptor.CHECKSUM_OFFSET, 4},
                {ExcerptDescriptor.CHECKSUM_LENGTH, 4},
                {ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET, 8},
                {MetadataDescriptor.FEATURE_CRC32C, 1},
                {MetadataDescriptor.KNOWN_FEATURES & MetadataDescriptor.FEATURE_CRC32C, 1},
                {ExcerptDescriptor.PUBLISHER_ID_OFFSET, 8},
                {ExcerptDescriptor.PUBLISHER_SEQUENCE_OFFSET, 16},
                {ExcerptDescriptor.PUBLISHED_PAYLOAD_OFFSET, 24},
                {MetadataDescriptor.FEATURE_PUBLISHER_IDS, 8},
                {MetadataDescriptor.KNOWN_FEATURES & MetadataDescriptor.FEATURE_PUBLISHER_IDS, 8},
                {ExcerptDescriptor.bodyPrefixLength(0), 0},
                {ExcerptDescriptor.bodyPrefixLength(MetadataDescriptor.FEATURE_CRC32C), 4},
                {ExcerptDescriptor.bodyPrefixLength(MetadataDescriptor.FEATURE_PUBLISHER_IDS), 20},
                {ExcerptDescriptor.bodyPrefixLength(MetadataDescriptor.FEATURE_PUBLISHER_IDS
                        | MetadataDescriptor.FEATURE_CRC32C), 20},
        };
        assertLayout(expected);
    }

    private static void assertLayout(final int[][] expected) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i][1], expected[i][0], "layout constant #" + i);
        }
    }
}
