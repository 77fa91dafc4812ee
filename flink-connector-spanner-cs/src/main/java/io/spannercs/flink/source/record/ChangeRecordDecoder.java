package io.spannercs.flink.source.record;

import com.google.cloud.spanner.StructReader;
import com.google.cloud.spanner.Type;
import java.util.List;
import org.apache.flink.annotation.Internal;

/** Decodes one row of a {@code READ_<stream>} query into records. */
@Internal
public interface ChangeRecordDecoder {

    /** The records in the current row of the result. */
    List<ChangeRecord> decode(StructReader row);

    /**
     * The decoder for the query's row type: a PROTO column (BYTES in PostgreSQL) is
     * MUTABLE_KEY_RANGE, an array of structs (JSONB in PostgreSQL) IMMUTABLE_KEY_RANGE.
     *
     * @throws IllegalStateException for any other shape, naming it
     */
    static ChangeRecordDecoder forColumnType(Type columnType) {
        switch (columnType.getCode()) {
            case PROTO:
                return MutableRecordDecoder.INSTANCE;
            case ARRAY:
                return LegacyRecordDecoder.INSTANCE;
            case BYTES: // PostgreSQL: spanner.read_proto_bytes_<stream>
                return MutableRecordDecoder.FROM_BYTES;
            case PG_JSONB: // PostgreSQL: spanner.read_json_<stream>
                return PgJsonRecordDecoder.INSTANCE;
            default:
                throw new IllegalStateException(
                        "Unexpected ChangeRecord column type "
                                + columnType
                                + ": expected PROTO or BYTES (MUTABLE_KEY_RANGE), ARRAY<STRUCT> or"
                                + " JSONB (IMMUTABLE_KEY_RANGE)");
        }
    }
}
