package io.spannercs.benchmarks;

import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord;
import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord.ColumnMetadata;
import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord.ModValue;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.SpannerValues;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes a MUTABLE_KEY_RANGE data change record straight from the client's proto, as a careful
 * user of the official client would: one event per mod, values typed by their column's type. The
 * output is the same {@link ChangeEvent} the source emits, so both readers do the same work per
 * change.
 */
final class ProtoChangeEvents {
    private ProtoChangeEvents() {}

    static List<ChangeEvent> decode(DataChangeRecord d, String partitionToken) {
        List<ColumnMetadata> columns = d.getColumnMetadataList();
        Instant commit =
                Instant.ofEpochSecond(
                        d.getCommitTimestamp().getSeconds(), d.getCommitTimestamp().getNanos());
        ChangeType type = ChangeType.valueOf(d.getModType().name());
        List<ChangeEvent> out = new ArrayList<>(d.getModsCount());
        for (int i = 0; i < d.getModsCount(); i++) {
            DataChangeRecord.Mod m = d.getMods(i);
            out.add(
                    new ChangeEvent(
                            d.getTable(),
                            type,
                            typed(columns, m.getKeysList()),
                            typed(columns, m.getNewValuesList()),
                            typed(columns, m.getOldValuesList()),
                            commit,
                            d.getServerTransactionId(),
                            d.getRecordSequence(),
                            i,
                            d.getTransactionTag(),
                            d.getIsSystemTransaction(),
                            partitionToken,
                            d.getNumberOfRecordsInTransaction(),
                            d.getNumberOfPartitionsInTransaction(),
                            d.getValueCaptureType().name()));
        }
        return out;
    }

    private static Map<String, Object> typed(List<ColumnMetadata> columns, List<ModValue> values) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (ModValue v : values) {
            ColumnMetadata c = columns.get(v.getColumnMetadataIndex());
            out.put(c.getName(), SpannerValues.toJava(c.getType(), v.getValue()));
        }
        return out;
    }
}
