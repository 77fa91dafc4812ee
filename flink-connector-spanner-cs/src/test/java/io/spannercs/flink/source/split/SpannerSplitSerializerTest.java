package io.spannercs.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpannerSplitSerializerTest {
    private static final SpannerSplitSerializer SERIALIZER = SpannerSplitSerializer.INSTANCE;

    private static final SnapshotKey LOWER =
            new SnapshotKey(List.of("INT64", "STRING"), List.of("100", "a"));
    private static final SnapshotKey UPPER =
            new SnapshotKey(List.of("INT64", "STRING"), Arrays.asList("200", null));

    private static SnapshotSplit snapshot(SnapshotKey last, boolean finished) {
        return new SnapshotSplit(
                "snapshot/Lines/1",
                "Lines",
                List.of("OrderId", "Line", "Qty"),
                List.of("OrderId", "Line"),
                1_700_000_000_000_000L,
                LOWER,
                UPPER,
                last,
                last == null ? 0 : 42,
                finished
                        ? List.of(new PartitionReport.SnapshotFinished("snapshot/Lines/1", 42))
                        : List.of(),
                finished);
    }

    @Test
    void roundTripsBothKindsOfSplit() throws IOException {
        PartitionSplit partition = PartitionSplit.fresh("p", 5, 9, List.of("parent"));
        SnapshotSplit fresh = snapshot(null, false);
        SnapshotSplit done =
                snapshot(new SnapshotKey(List.of("INT64", "STRING"), List.of("150", "x")), true);
        for (SpannerSplit split : List.of(partition, fresh, done)) {
            assertThat(SERIALIZER.deserialize(3, SERIALIZER.serialize(split))).isEqualTo(split);
        }
        assertThat(SERIALIZER.getVersion()).isEqualTo(3);
    }

    @Test
    void readsPartitionSplitsOfVersion2() throws IOException {
        PartitionSplit split = PartitionSplit.fresh("p", 5, 9, List.of());
        byte[] v2 = PartitionSplitSerializer.INSTANCE.serialize(split);
        assertThat(SERIALIZER.deserialize(2, v2)).isEqualTo(split);
    }

    @Test
    void rejectsNewerVersionsSayingWhy() {
        assertThatThrownBy(() -> SERIALIZER.deserialize(4, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 4")
                .hasMessageContaining("newer connector");
    }

    @Test
    void keysOfEveryKindSurviveCheckpointsExactly() throws IOException {
        SnapshotKey key =
                new SnapshotKey(
                        List.of(
                                "INT64",
                                "FLOAT64",
                                "BOOL",
                                "NUMERIC",
                                "BYTES",
                                "DATE",
                                "TIMESTAMP"),
                        Arrays.asList(
                                "-7",
                                Long.toString(Double.doubleToRawLongBits(0.1)),
                                "true",
                                "12345678901234567890.123456789",
                                "AAE=",
                                "2026-12-03",
                                "2026-12-03T04:00:00.123456000Z"));
        SnapshotSplit split =
                new SnapshotSplit(
                        "s",
                        "T",
                        List.of("a"),
                        List.of("a"),
                        1,
                        key,
                        null,
                        key,
                        1,
                        List.of(),
                        false);
        SnapshotSplit back = (SnapshotSplit) SERIALIZER.deserialize(3, SERIALIZER.serialize(split));
        assertThat(back.lowerInclusive()).isEqualTo(key);
        assertThat(back.lowerInclusive().toKey()).isEqualTo(key.toKey());
    }

    @Test
    void remainingKeysStartAfterTheLastRowEmitted() {
        SnapshotSplit split = snapshot(null, false);
        assertThat(split.remaining(null))
                .isEqualTo(
                        KeySet.range(KeyRange.closedOpen(Key.of(100L, "a"), Key.of(200L, null))));
        SnapshotKey last = new SnapshotKey(List.of("INT64", "STRING"), List.of("150", "x"));
        assertThat(split.remaining(last))
                .isEqualTo(KeySet.range(KeyRange.openOpen(Key.of(150L, "x"), Key.of(200L, null))));
        SnapshotSplit whole =
                new SnapshotSplit(
                        "s",
                        "T",
                        List.of("a"),
                        List.of("a"),
                        1,
                        null,
                        null,
                        null,
                        0,
                        List.of(),
                        false);
        assertThat(whole.remaining(null)).isEqualTo(KeySet.all());
        SnapshotKey lastOfTable = new SnapshotKey(List.of("INT64"), List.of("9"));
        assertThat(whole.remaining(lastOfTable))
                .isEqualTo(KeySet.range(KeyRange.openClosed(Key.of(9L), Key.of())));
    }
}
