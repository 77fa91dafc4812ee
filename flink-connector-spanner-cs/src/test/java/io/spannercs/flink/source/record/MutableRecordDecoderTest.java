package io.spannercs.flink.source.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ByteArray;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Value;
import com.google.protobuf.Timestamp;
import com.google.spanner.v1.ChangeStreamRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class MutableRecordDecoderTest {
    private static final ChangeStreamRecord MOVE =
            ChangeStreamRecord.newBuilder()
                    .setPartitionEventRecord(
                            ChangeStreamRecord.PartitionEventRecord.newBuilder()
                                    .setCommitTimestamp(Timestamp.newBuilder().setSeconds(1_700))
                                    .setRecordSequence("00000002")
                                    .setPartitionToken("child")
                                    .addMoveInEvents(
                                            ChangeStreamRecord.PartitionEventRecord.MoveInEvent
                                                    .newBuilder()
                                                    .setSourcePartitionToken("source")))
                    .build();

    @Test
    void readsTheProtoColumnOfGoogleSql() {
        Struct row = Struct.newBuilder().set("ChangeRecord").to(Value.protoMessage(MOVE)).build();

        assertMove(MutableRecordDecoder.INSTANCE.decode(row));
    }

    @Test
    void readsTheBytesColumnOfPostgreSql() {
        assertMove(MutableRecordDecoder.FROM_BYTES.decode(bytesRow(MOVE.toByteArray())));
    }

    @Test
    void namesUnreadableBytes() {
        Struct row = bytesRow(new byte[] {(byte) 0xff, 0x01});

        assertThatThrownBy(() -> MutableRecordDecoder.INSTANCE.decode(row))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Unreadable ChangeStreamRecord bytes");
    }

    /** A PostgreSQL row: the record's bytes in {@code read_proto_bytes}. */
    private static Struct bytesRow(byte[] bytes) {
        return Struct.newBuilder().set("read_proto_bytes").to(ByteArray.copyFrom(bytes)).build();
    }

    private static void assertMove(List<ChangeRecord> records) {
        assertThat(records).hasSize(1);
        PartitionEventRecord move = (PartitionEventRecord) records.get(0);
        assertThat(move.partitionToken()).isEqualTo("child");
        assertThat(move.moveInSources()).containsExactly("source");
        assertThat(move.timestampMicros()).isEqualTo(1_700_000_000L);
    }
}
