package io.spannercs.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.source.event.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.PartitionSplitSerializer;
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
                    350,
                    "00000002",
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
        assertThat(SERIALIZER.deserialize(1, SERIALIZER.serialize(state))).isEqualTo(state);
    }

    /** Pins layout version 1, written field by field, so that a change of layout is noticed. */
    @Test
    void readsVersion1() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
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
        PartitionSplitSerializer.write(RESUME, out);
        out.writeInt(1); // barriers
        out.writeUTF("a");
        out.writeLong(160);
        PartitionSplitSerializer.writeStrings(List.of("f", "u"), out);
        out.writeInt(2); // pruned tokens
        out.writeUTF("old1");
        out.writeLong(90);
        out.writeUTF("old2");
        out.writeLong(95);

        assertThat(SERIALIZER.getVersion()).isEqualTo(1);
        assertThat(SERIALIZER.deserialize(1, out.getCopyOfBuffer())).isEqualTo(sample());
        assertThat(SERIALIZER.serialize(sample())).isEqualTo(out.getCopyOfBuffer());
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
        assertThatThrownBy(() -> SERIALIZER.deserialize(2, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 2")
                .hasMessageContaining("reads version 1");
    }

    @Test
    void rejectsTrailingBytes() throws IOException {
        byte[] bytes = SERIALIZER.serialize(sample());
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> SERIALIZER.deserialize(1, longer)).isInstanceOf(IOException.class);
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
