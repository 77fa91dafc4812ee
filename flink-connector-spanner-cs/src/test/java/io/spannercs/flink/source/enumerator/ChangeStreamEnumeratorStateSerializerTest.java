package io.spannercs.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.source.split.PartitionPosition;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.PartitionSplitSerializer;
import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class ChangeStreamEnumeratorStateSerializerTest {
    private static final ChangeStreamEnumeratorStateSerializer SERIALIZER =
            ChangeStreamEnumeratorStateSerializer.INSTANCE;

    private static final PartitionSplit RESUME =
            new PartitionSplit(
                    "u",
                    300,
                    Long.MAX_VALUE,
                    List.of("p1", "p2"),
                    new PartitionPosition(350, List.of("D12/00000002", "E00000003"), null),
                    400,
                    List.of("s1"),
                    List.of(
                            new PartitionReport.MovedOut("u", 340, List.of("x")),
                            new PartitionReport.BarrierReached("u", 400, List.of("s1"))),
                    false);

    static ChangeStreamEnumeratorState sample() {
        Map<String, Long> pruned = new LinkedHashMap<>();
        pruned.put("old1", 90L);
        pruned.put("old2", 95L);
        return new ChangeStreamEnumeratorState(
                true,
                99,
                List.of(
                        new PartitionEntry(
                                "a",
                                100,
                                List.of(),
                                PartitionStatus.ASSIGNED,
                                2,
                                PartitionEntry.NOT_FINISHED,
                                150,
                                140,
                                PartitionEntry.NO_SUBTASK,
                                null),
                        new PartitionEntry(
                                "f",
                                100,
                                List.of(),
                                PartitionStatus.FINISHED,
                                0,
                                200,
                                199,
                                PartitionEntry.NO_MOVE_OUT,
                                1,
                                null),
                        new PartitionEntry(
                                "u",
                                300,
                                List.of("p1", "p2"),
                                PartitionStatus.UNASSIGNED,
                                PartitionEntry.NO_SUBTASK,
                                PartitionEntry.NOT_FINISHED,
                                350,
                                PartitionEntry.NO_MOVE_OUT,
                                0,
                                RESUME)),
                List.of(new BarrierEntry("a", 160, List.of("f", "u"))),
                pruned);
    }

    @Test
    void roundTrips() throws IOException {
        ChangeStreamEnumeratorState state = sample();
        byte[] bytes = SERIALIZER.serialize(state);
        assertThat(SERIALIZER.deserialize(SERIALIZER.getVersion(), bytes)).isEqualTo(state);
    }

    @Test
    void roundTripsTheInitialState() throws IOException {
        ChangeStreamEnumeratorState state = ChangeStreamEnumeratorState.initial();
        assertThat(SERIALIZER.deserialize(3, SERIALIZER.serialize(state))).isEqualTo(state);
    }

    @Test
    void roundTripsASnapshotInProgress() throws IOException {
        SnapshotSplit waiting =
                new SnapshotSplit(
                        "snapshot/Orders/1",
                        "Orders",
                        List.of("Id", "Amount"),
                        List.of("Id"),
                        500,
                        new SnapshotKey(List.of("INT64"), List.of("100")),
                        null,
                        new SnapshotKey(List.of("INT64"), List.of("150")),
                        50,
                        List.of(),
                        false);
        ChangeStreamEnumeratorState state =
                sample().withSnapshot(
                                new SnapshotState(
                                        SnapshotPhase.Status.READING,
                                        500,
                                        List.of(waiting),
                                        Map.of("snapshot/Orders/0", 1),
                                        List.of("snapshot/Orders/0", "snapshot/Orders/1"),
                                        3,
                                        300,
                                        100));
        assertThat(SERIALIZER.deserialize(3, SERIALIZER.serialize(state))).isEqualTo(state);
    }

    /**
     * Pins layout version 1, written field by field: its splits keep one record sequence, read as
     * "every record up to it" at the position's timestamp.
     */
    @Test
    void readsVersion1() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        writeStatePartitions(out);
        // The given-back split in the split layout of version 1.
        out.writeUTF("u");
        out.writeLong(300);
        out.writeLong(Long.MAX_VALUE);
        PartitionSplitSerializer.writeStrings(List.of("p1", "p2"), out);
        out.writeLong(350);
        out.writeBoolean(true);
        out.writeUTF("00000002");
        out.writeLong(400);
        PartitionSplitSerializer.writeStrings(List.of("s1"), out);
        out.writeInt(0); // reports
        out.writeBoolean(false);
        writeStateTail(out);

        ChangeStreamEnumeratorState restored = SERIALIZER.deserialize(1, out.getCopyOfBuffer());
        PartitionSplit split = restored.partitions().get(2).resumeSplit();
        assertThat(split.position().micros()).isEqualTo(350);
        assertThat(split.position().upToSequence()).isEqualTo("00000002");
        assertThat(split.position().handled()).isEmpty();
        assertThat(split.progressMicros()).isEqualTo(349);
        assertThat(split.barrierMicros()).isEqualTo(400);
        assertThat(restored.barriers()).isEqualTo(sample().barriers());
    }

    /** Pins layout version 2, written field by field, so that a change of layout is noticed. */
    @Test
    void readsVersion2() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        writeStatePartitions(out);
        PartitionSplitSerializer.write(RESUME, out);
        writeStateTail(out);

        assertThat(SERIALIZER.deserialize(2, out.getCopyOfBuffer())).isEqualTo(sample());
    }

    /** Version 3 is version 2 followed by the snapshot's state; pinned field by field. */
    @Test
    void writesVersion3() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        writeStatePartitions(out);
        PartitionSplitSerializer.write(RESUME, out);
        writeStateTail(out);
        out.writeByte(SnapshotPhase.Status.NONE.ordinal());
        out.writeLong(Long.MIN_VALUE);
        out.writeInt(0); // unassigned snapshot splits
        out.writeInt(0); // assigned
        PartitionSplitSerializer.writeStrings(List.of(), out); // unfinished
        out.writeInt(0);
        out.writeLong(0);
        out.writeLong(0);

        assertThat(SERIALIZER.getVersion()).isEqualTo(3);
        assertThat(SERIALIZER.serialize(sample())).isEqualTo(out.getCopyOfBuffer());
        assertThat(SERIALIZER.deserialize(3, out.getCopyOfBuffer())).isEqualTo(sample());
    }

    private static void writeStatePartitions(DataOutputSerializer out) throws IOException {
        out.writeBoolean(true); // root query done
        out.writeLong(99); // low watermark
        out.writeInt(3); // partitions
        writePartition(out, "a", 100, List.of(), 1, 2, Long.MIN_VALUE, 150, 140, -1);
        out.writeBoolean(false);
        writePartition(out, "f", 100, List.of(), 2, 0, 200, 199, Long.MIN_VALUE, 1);
        out.writeBoolean(false);
        writePartition(
                out, "u", 300, List.of("p1", "p2"), 0, -1, Long.MIN_VALUE, 350, Long.MIN_VALUE, 0);
        out.writeBoolean(true);
    }

    private static void writeStateTail(DataOutputSerializer out) throws IOException {
        out.writeInt(1); // barriers
        out.writeUTF("a");
        out.writeLong(160);
        PartitionSplitSerializer.writeStrings(List.of("f", "u"), out);
        out.writeInt(2); // pruned tokens
        out.writeUTF("old1");
        out.writeLong(90);
        out.writeUTF("old2");
        out.writeLong(95);
    }

    private static void writePartition(
            DataOutputSerializer out,
            String token,
            long start,
            List<String> parents,
            int status,
            int subtask,
            long end,
            long progress,
            long maxMoveOut,
            int discoverer)
            throws IOException {
        out.writeUTF(token);
        out.writeLong(start);
        PartitionSplitSerializer.writeStrings(parents, out);
        out.writeByte(status);
        out.writeInt(subtask);
        out.writeLong(end);
        out.writeLong(progress);
        out.writeLong(maxMoveOut);
        out.writeInt(discoverer);
    }

    @Test
    void rejectsUnknownVersions() throws IOException {
        byte[] bytes = SERIALIZER.serialize(sample());
        assertThatThrownBy(() -> SERIALIZER.deserialize(4, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 4")
                .hasMessageContaining("reads versions 1 to 3");
    }

    @Test
    void rejectsTrailingBytes() throws IOException {
        byte[] bytes = SERIALIZER.serialize(sample());
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> SERIALIZER.deserialize(3, longer)).isInstanceOf(IOException.class);
    }

    @Test
    void restoresTheGraphFromTheState() {
        PartitionGraph graph = PartitionGraph.restore(sample(), 0);
        assertThat(graph.snapshot()).isEqualTo(sample());
        assertThat(graph.barriers())
                .singleElement()
                .extracting(PendingBarrier::token)
                .isEqualTo("a");
    }
}
