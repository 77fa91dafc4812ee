package io.spannercs.emulator.changestream;

import com.google.protobuf.Value;
import com.google.spanner.v1.ChangeStreamRecord;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.schema.SpannerTypes;

/**
 * PostgreSQL MUTABLE_KEY_RANGE rows ({@code spanner.read_proto_bytes_<stream>}): one {@code bytea}
 * column, named after the function, holding a serialized {@code
 * google.spanner.v1.ChangeStreamRecord} (PostgreSQL has no PROTO type). The records are the same as
 * the GoogleSQL PROTO column's.
 */
public final class PgBytesRecordEncoder implements RecordEncoder {
    private final StructType rowType;

    /**
     * @param columnName the result column's name: the function's name
     */
    public PgBytesRecordEncoder(String columnName) {
        this.rowType =
                StructType.newBuilder()
                        .addFields(
                                StructType.Field.newBuilder()
                                        .setName(columnName)
                                        .setType(SpannerTypes.of(TypeCode.BYTES)))
                        .build();
    }

    @Override
    public StructType rowType() {
        return rowType;
    }

    @Override
    public Value encode(LogEntry entry) {
        if (!(entry.payload() instanceof ChangeStreamRecord)) {
            throw new IllegalStateException("Not a mutable-mode record: " + entry.payload());
        }
        // BYTES travel base64-encoded, the same text as the PROTO column's value.
        return MutableRecordEncoder.toValue((ChangeStreamRecord) entry.payload());
    }

    @Override
    public Value heartbeat(long micros) {
        return MutableRecordEncoder.INSTANCE.heartbeat(micros);
    }
}
