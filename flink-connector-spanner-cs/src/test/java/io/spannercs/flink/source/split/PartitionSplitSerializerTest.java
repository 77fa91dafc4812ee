package io.spannercs.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class PartitionSplitSerializerTest {
    private static final PartitionSplitSerializer SERIALIZER = PartitionSplitSerializer.INSTANCE;

    private static final PartitionSplit SPLIT =
            new PartitionSplit(
                    "t",
                    100,
                    Long.MAX_VALUE,
                    List.of("p"),
                    new PartitionPosition(150, List.of("D9/00000001", "H"), null),
                    170,
                    List.of("s"),
                    List.of(new PartitionReport.Finished("t", 160)),
                    false);

    @Test
    void roundTrips() throws IOException {
        assertThat(SERIALIZER.deserialize(2, SERIALIZER.serialize(SPLIT))).isEqualTo(SPLIT);
        PartitionSplit fresh = PartitionSplit.fresh("n", 5, 9, List.of());
        assertThat(SERIALIZER.deserialize(2, SERIALIZER.serialize(fresh))).isEqualTo(fresh);
    }

    /** Pins layout version 2, field by field. */
    @Test
    void writesVersion2() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        out.writeUTF("t");
        out.writeLong(100);
        out.writeLong(Long.MAX_VALUE);
        PartitionSplitSerializer.writeStrings(List.of("p"), out);
        out.writeLong(150);
        PartitionSplitSerializer.writeStrings(List.of("D9/00000001", "H"), out);
        out.writeBoolean(false); // no version 1 sequence
        out.writeLong(170);
        PartitionSplitSerializer.writeStrings(List.of("s"), out);
        out.writeInt(1);
        out.writeByte(2); // Finished
        out.writeUTF("t");
        out.writeLong(160);
        out.writeBoolean(false);

        assertThat(SERIALIZER.getVersion()).isEqualTo(2);
        assertThat(SERIALIZER.serialize(SPLIT)).isEqualTo(out.getCopyOfBuffer());
    }

    @Test
    void readsVersion1() throws IOException {
        assertThat(readV1(150, "00000004").position())
                .satisfies(
                        p -> {
                            assertThat(p.micros()).isEqualTo(150);
                            assertThat(p.upToSequence()).isEqualTo("00000004");
                            assertThat(p.restartMicros()).isEqualTo(150);
                        });
        PartitionSplit afterHeartbeat = readV1(150, null);
        assertThat(afterHeartbeat.position().restartMicros()).isEqualTo(151);
        assertThat(afterHeartbeat.progressMicros()).isEqualTo(150);
    }

    private static PartitionSplit readV1(long micros, String sequence) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        out.writeUTF("t");
        out.writeLong(100);
        out.writeLong(Long.MAX_VALUE);
        PartitionSplitSerializer.writeStrings(List.of(), out);
        out.writeLong(micros);
        out.writeBoolean(sequence != null);
        if (sequence != null) {
            out.writeUTF(sequence);
        }
        out.writeLong(PartitionSplit.NO_BARRIER);
        PartitionSplitSerializer.writeStrings(List.of(), out);
        out.writeInt(0);
        out.writeBoolean(false);
        return SERIALIZER.deserialize(1, out.getCopyOfBuffer());
    }

    @Test
    void rejectsUnknownVersions() {
        assertThatThrownBy(() -> SERIALIZER.deserialize(3, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 3");
    }
}
