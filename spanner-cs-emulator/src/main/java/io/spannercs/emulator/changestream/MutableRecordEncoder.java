package io.spannercs.emulator.changestream;

import com.google.protobuf.Value;
import com.google.spanner.v1.ChangeStreamRecord;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.storage.Timestamps;
import java.util.Base64;

/**
 * MUTABLE_KEY_RANGE rows: {@code ChangeRecord} is a PROTO column holding a {@code
 * google.spanner.v1.ChangeStreamRecord}, sent base64-encoded as Spanner sends proto values.
 */
public final class MutableRecordEncoder implements RecordEncoder {
    public static final MutableRecordEncoder INSTANCE = new MutableRecordEncoder();

    private static final StructType ROW_TYPE =
            StructType.newBuilder()
                    .addFields(
                            StructType.Field.newBuilder()
                                    .setName("ChangeRecord")
                                    .setType(
                                            Type.newBuilder()
                                                    .setCode(TypeCode.PROTO)
                                                    .setProtoTypeFqn(
                                                            ChangeStreamRecord.getDescriptor()
                                                                    .getFullName())))
                    .build();

    private MutableRecordEncoder() {}

    @Override
    public StructType rowType() {
        return ROW_TYPE;
    }

    @Override
    public Value encode(LogEntry entry) {
        if (!(entry.payload() instanceof ChangeStreamRecord)) {
            throw new IllegalStateException("Not a mutable-mode record: " + entry.payload());
        }
        return toValue((ChangeStreamRecord) entry.payload());
    }

    @Override
    public Value heartbeat(long micros) {
        return toValue(
                ChangeStreamRecord.newBuilder()
                        .setHeartbeatRecord(
                                ChangeStreamRecord.HeartbeatRecord.newBuilder()
                                        .setTimestamp(Timestamps.toProto(micros)))
                        .build());
    }

    static Value toValue(ChangeStreamRecord record) {
        return Value.newBuilder()
                .setStringValue(Base64.getEncoder().encodeToString(record.toByteArray()))
                .build();
    }
}
