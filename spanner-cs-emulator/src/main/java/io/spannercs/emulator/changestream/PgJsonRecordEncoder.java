package io.spannercs.emulator.changestream;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.Value;
import com.google.spanner.v1.ChangeStreamRecord;
import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeAnnotationCode;
import io.spannercs.emulator.schema.Jsonb;
import io.spannercs.emulator.schema.PgTypes;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.storage.Timestamps;
import java.util.List;

/**
 * PostgreSQL IMMUTABLE_KEY_RANGE rows ({@code spanner.read_json_<stream>}): one {@code jsonb}
 * column, named after the function, holding an object with one key, {@code data_change_record},
 * {@code heartbeat_record} or {@code child_partitions_record}. The fields are those of the
 * GoogleSQL records, with JSON types: timestamps are strings, counts and positions numbers, mod
 * keys and values nested objects (values in Spanner's wire encoding), and column types objects that
 * carry PostgreSQL type annotations ({@code {"code":"NUMERIC","type_annotation":"PG_NUMERIC"}}).
 */
public final class PgJsonRecordEncoder implements RecordEncoder {
    private final StructType rowType;

    /**
     * @param columnName the result column's name: the function's name, as PostgreSQL names the
     *     column of a scalar function
     */
    public PgJsonRecordEncoder(String columnName) {
        this.rowType =
                StructType.newBuilder()
                        .addFields(
                                StructType.Field.newBuilder()
                                        .setName(columnName)
                                        .setType(PgTypes.JSONB))
                        .build();
    }

    @Override
    public StructType rowType() {
        return rowType;
    }

    @Override
    public Value encode(LogEntry entry) {
        Object payload = entry.payload();
        if (payload instanceof ChildPartitionsRecord children) {
            return wrap("child_partitions_record", childPartitions(children));
        }
        ChangeStreamRecord record = (ChangeStreamRecord) payload;
        if (record.hasDataChangeRecord()) {
            return wrap("data_change_record", dataChange(record.getDataChangeRecord()));
        }
        throw new IllegalStateException("Not a legacy-mode record: " + record.getRecordCase());
    }

    @Override
    public Value heartbeat(long micros) {
        JsonObject h = new JsonObject();
        h.addProperty("timestamp", timestamp(micros));
        return wrap("heartbeat_record", h);
    }

    private static Value wrap(String kind, JsonObject record) {
        JsonObject o = new JsonObject();
        o.add(kind, record);
        return SpannerTypes.str(Jsonb.write(o));
    }

    private static JsonObject dataChange(DataChangeRecord r) {
        JsonObject o = new JsonObject();
        o.addProperty("commit_timestamp", timestamp(Timestamps.toMicros(r.getCommitTimestamp())));
        o.addProperty("record_sequence", r.getRecordSequence());
        o.addProperty("server_transaction_id", r.getServerTransactionId());
        o.addProperty(
                "is_last_record_in_transaction_in_partition",
                r.getIsLastRecordInTransactionInPartition());
        o.addProperty("table_name", r.getTable());
        JsonArray columns = new JsonArray();
        for (DataChangeRecord.ColumnMetadata c : r.getColumnMetadataList()) {
            JsonObject col = new JsonObject();
            col.addProperty("name", c.getName());
            col.add("type", type(c.getType()));
            col.addProperty("is_primary_key", c.getIsPrimaryKey());
            col.addProperty("ordinal_position", c.getOrdinalPosition());
            columns.add(col);
        }
        o.add("column_types", columns);
        JsonArray mods = new JsonArray();
        for (DataChangeRecord.Mod m : r.getModsList()) {
            JsonObject mod = new JsonObject();
            mod.add("keys", values(r, m.getKeysList()));
            mod.add("new_values", values(r, m.getNewValuesList()));
            mod.add("old_values", values(r, m.getOldValuesList()));
            mods.add(mod);
        }
        o.add("mods", mods);
        o.addProperty("mod_type", LegacyRecordEncoder.modTypeName(r));
        o.addProperty("value_capture_type", LegacyRecordEncoder.valueCaptureTypeName(r));
        o.addProperty("number_of_records_in_transaction", r.getNumberOfRecordsInTransaction());
        o.addProperty(
                "number_of_partitions_in_transaction", r.getNumberOfPartitionsInTransaction());
        o.addProperty("transaction_tag", r.getTransactionTag());
        o.addProperty("is_system_transaction", r.getIsSystemTransaction());
        return o;
    }

    /** Spanner's {@code Type} as JSON, with the PostgreSQL annotation where there is one. */
    static JsonObject type(Type type) {
        JsonObject o = new JsonObject();
        o.addProperty("code", type.getCode().name());
        if (type.hasArrayElementType()) {
            o.add("array_element_type", type(type.getArrayElementType()));
        }
        if (type.getTypeAnnotation() != TypeAnnotationCode.TYPE_ANNOTATION_CODE_UNSPECIFIED) {
            o.addProperty("type_annotation", type.getTypeAnnotation().name());
        }
        return o;
    }

    private static JsonObject values(DataChangeRecord r, List<DataChangeRecord.ModValue> values) {
        JsonObject o = new JsonObject();
        for (DataChangeRecord.ModValue v : values) {
            o.add(r.getColumnMetadata(v.getColumnMetadataIndex()).getName(), json(v.getValue()));
        }
        return o;
    }

    /** A value in Spanner's wire encoding as JSON: strings stay strings (INT64, NUMERIC, ...). */
    static JsonElement json(Value v) {
        switch (v.getKindCase()) {
            case STRING_VALUE:
                return new JsonPrimitive(v.getStringValue());
            case NUMBER_VALUE:
                return Jsonb.number(v.getNumberValue());
            case BOOL_VALUE:
                return new JsonPrimitive(v.getBoolValue());
            case LIST_VALUE:
                {
                    JsonArray a = new JsonArray();
                    v.getListValue().getValuesList().forEach(e -> a.add(json(e)));
                    return a;
                }
            default:
                return JsonNull.INSTANCE;
        }
    }

    private static JsonObject childPartitions(ChildPartitionsRecord r) {
        JsonObject o = new JsonObject();
        o.addProperty("start_timestamp", timestamp(r.startMicros()));
        o.addProperty("record_sequence", ChangeStream.formatSequence(r.sequence()));
        JsonArray children = new JsonArray();
        for (ChildPartitionsRecord.Child c : r.children()) {
            JsonObject child = new JsonObject();
            child.addProperty("token", c.token());
            JsonArray parents = new JsonArray();
            c.parentTokens().forEach(parents::add);
            child.add("parent_partition_tokens", parents);
            children.add(child);
        }
        o.add("child_partitions", children);
        return o;
    }

    private static String timestamp(long micros) {
        return SpannerTypes.formatTimestamp(Timestamps.toInstant(micros));
    }
}
