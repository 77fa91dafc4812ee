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
     * The decoder for the query's row type: a PROTO column is MUTABLE_KEY_RANGE, an array of
     * structs IMMUTABLE_KEY_RANGE.
     *
     * @throws IllegalStateException for any other shape, naming it
     */
    static ChangeRecordDecoder forColumnType(Type columnType) {
        switch (columnType.getCode()) {
            case PROTO:
                return MutableRecordDecoder.INSTANCE;
            case ARRAY:
                return LegacyRecordDecoder.INSTANCE;
            default:
                throw new IllegalStateException(
                        "Unexpected ChangeRecord column type "
                                + columnType
                                + ": expected PROTO (MUTABLE_KEY_RANGE) or ARRAY<STRUCT>"
                                + " (IMMUTABLE_KEY_RANGE)");
        }
    }
}
