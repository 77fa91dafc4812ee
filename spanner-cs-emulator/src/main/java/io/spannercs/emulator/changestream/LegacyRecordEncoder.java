package io.spannercs.emulator.changestream;

import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.ChangeStreamRecord;
import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.storage.Timestamps;
import java.util.List;

/**
 * IMMUTABLE_KEY_RANGE rows: {@code ChangeRecord} is an {@code ARRAY<STRUCT<data_change_record,
 * heartbeat_record, child_partitions_record>>} with exactly one element whose one non-empty array
 * holds the record, field for field as Google's emulator returns it. Mod keys and values are JSON
 * objects keyed by column name; column types are JSON type descriptions.
 */
public final class LegacyRecordEncoder implements RecordEncoder {
    public static final LegacyRecordEncoder INSTANCE = new LegacyRecordEncoder();

    private static final Type STRING = SpannerTypes.of(TypeCode.STRING);
    private static final Type BOOL = SpannerTypes.of(TypeCode.BOOL);
    private static final Type INT64 = SpannerTypes.of(TypeCode.INT64);
    private static final Type JSON = SpannerTypes.of(TypeCode.JSON);
    private static final Type TIMESTAMP = SpannerTypes.of(TypeCode.TIMESTAMP);

    static final Type COLUMN_TYPE =
            struct(
                    field("name", STRING),
                    field("type", JSON),
                    field("is_primary_key", BOOL),
                    field("ordinal_position", INT64));
    static final Type MOD =
            struct(field("keys", JSON), field("new_values", JSON), field("old_values", JSON));
    static final Type DATA_CHANGE_RECORD =
            struct(
                    field("commit_timestamp", TIMESTAMP),
                    field("record_sequence", STRING),
                    field("server_transaction_id", STRING),
                    field("is_last_record_in_transaction_in_partition", BOOL),
                    field("table_name", STRING),
                    field("column_types", SpannerTypes.arrayOf(COLUMN_TYPE)),
                    field("mods", SpannerTypes.arrayOf(MOD)),
                    field("mod_type", STRING),
                    field("value_capture_type", STRING),
                    field("number_of_records_in_transaction", INT64),
                    field("number_of_partitions_in_transaction", INT64),
                    field("transaction_tag", STRING),
                    field("is_system_transaction", BOOL));
    static final Type HEARTBEAT_RECORD = struct(field("timestamp", TIMESTAMP));
    static final Type CHILD_PARTITION =
            struct(
                    field("token", STRING),
                    field("parent_partition_tokens", SpannerTypes.arrayOf(STRING)));
    static final Type CHILD_PARTITIONS_RECORD =
            struct(
                    field("start_timestamp", TIMESTAMP),
                    field("record_sequence", STRING),
                    field("child_partitions", SpannerTypes.arrayOf(CHILD_PARTITION)));
    static final Type CHANGE_RECORD =
            SpannerTypes.arrayOf(
                    struct(
                            field("data_change_record", SpannerTypes.arrayOf(DATA_CHANGE_RECORD)),
                            field("heartbeat_record", SpannerTypes.arrayOf(HEARTBEAT_RECORD)),
                            field(
                                    "child_partitions_record",
                                    SpannerTypes.arrayOf(CHILD_PARTITIONS_RECORD))));

    private static final StructType ROW_TYPE =
            StructType.newBuilder().addFields(field("ChangeRecord", CHANGE_RECORD)).build();

    private LegacyRecordEncoder() {}

    private static StructType.Field field(String name, Type type) {
        return StructType.Field.newBuilder().setName(name).setType(type).build();
    }

    private static Type struct(StructType.Field... fields) {
        return Type.newBuilder()
                .setCode(TypeCode.STRUCT)
                .setStructType(StructType.newBuilder().addAllFields(List.of(fields)))
                .build();
    }

    @Override
    public StructType rowType() {
        return ROW_TYPE;
    }

    @Override
    public Value encode(LogEntry entry) {
        return encode(entry, false);
    }

    @Override
    public Value heartbeat(long micros) {
        return heartbeat(micros, false);
    }

    @Override
    public boolean supportsNullStructElements() {
        return true;
    }

    @Override
    public Value encode(LogEntry entry, boolean nullElements) {
        Object payload = entry.payload();
        if (payload instanceof ChildPartitionsRecord) {
            return wrap(null, null, childPartitions((ChildPartitionsRecord) payload), nullElements);
        }
        ChangeStreamRecord record = (ChangeStreamRecord) payload;
        if (record.hasDataChangeRecord()) {
            return wrap(dataChange(record.getDataChangeRecord()), null, null, nullElements);
        }
        throw new IllegalStateException("Not a legacy-mode record: " + record.getRecordCase());
    }

    @Override
    public Value heartbeat(long micros, boolean nullElements) {
        return wrap(null, list(timestamp(micros)), null, nullElements);
    }

    /**
     * One element holding the record in its array; the other arrays are empty, or, with {@code
     * nullElements}, hold one struct whose fields are all NULL.
     */
    private static Value wrap(
            Value dataChange, Value heartbeat, Value childPartitions, boolean nullElements) {
        Value element =
                list(
                        unused(dataChange, DATA_CHANGE_RECORD, nullElements),
                        unused(heartbeat, HEARTBEAT_RECORD, nullElements),
                        unused(childPartitions, CHILD_PARTITIONS_RECORD, nullElements));
        return list(element);
    }

    private static Value unused(Value record, Type structType, boolean nullElements) {
        if (record != null) {
            return list(record);
        }
        if (!nullElements) {
            return emptyList();
        }
        ListValue.Builder fields = ListValue.newBuilder();
        for (int i = 0; i < structType.getStructType().getFieldsCount(); i++) {
            fields.addValues(nullValue());
        }
        return list(Value.newBuilder().setListValue(fields).build());
    }

    private static Value dataChange(DataChangeRecord r) {
        ListValue.Builder columns = ListValue.newBuilder();
        for (DataChangeRecord.ColumnMetadata c : r.getColumnMetadataList()) {
            columns.addValues(
                    list(
                            str(c.getName()),
                            str(LegacyJson.typeJson(c.getType())),
                            bool(c.getIsPrimaryKey()),
                            str(Long.toString(c.getOrdinalPosition()))));
        }
        ListValue.Builder mods = ListValue.newBuilder();
        for (DataChangeRecord.Mod m : r.getModsList()) {
            mods.addValues(
                    list(
                            str(LegacyJson.valuesJson(r, m.getKeysList())),
                            str(LegacyJson.valuesJson(r, m.getNewValuesList())),
                            str(LegacyJson.valuesJson(r, m.getOldValuesList()))));
        }
        return list(
                timestamp(Timestamps.toMicros(r.getCommitTimestamp())),
                str(r.getRecordSequence()),
                str(r.getServerTransactionId()),
                bool(r.getIsLastRecordInTransactionInPartition()),
                str(r.getTable()),
                Value.newBuilder().setListValue(columns).build(),
                Value.newBuilder().setListValue(mods).build(),
                str(modTypeName(r)),
                str(valueCaptureTypeName(r)),
                str(Integer.toString(r.getNumberOfRecordsInTransaction())),
                str(Integer.toString(r.getNumberOfPartitionsInTransaction())),
                str(r.getTransactionTag()),
                bool(r.getIsSystemTransaction()));
    }

    /** The mod type as legacy records spell it; an unknown one (edge case) as the future name. */
    static String modTypeName(DataChangeRecord r) {
        return r.getModType() == DataChangeRecord.ModType.UNRECOGNIZED
                ? EdgeCases.UNKNOWN_MOD_TYPE_NAME
                : r.getModType().name();
    }

    /** The value capture type as legacy records spell it; an unknown one as the future name. */
    static String valueCaptureTypeName(DataChangeRecord r) {
        return r.getValueCaptureType() == DataChangeRecord.ValueCaptureType.UNRECOGNIZED
                ? EdgeCases.UNKNOWN_VALUE_CAPTURE_TYPE_NAME
                : r.getValueCaptureType().name();
    }

    private static Value childPartitions(ChildPartitionsRecord r) {
        ListValue.Builder children = ListValue.newBuilder();
        for (ChildPartitionsRecord.Child c : r.children()) {
            ListValue.Builder parents = ListValue.newBuilder();
            c.parentTokens().forEach(p -> parents.addValues(str(p)));
            children.addValues(
                    list(str(c.token()), Value.newBuilder().setListValue(parents).build()));
        }
        return list(
                timestamp(r.startMicros()),
                str(ChangeStream.formatSequence(r.sequence())),
                Value.newBuilder().setListValue(children).build());
    }

    private static Value timestamp(long micros) {
        return str(SpannerTypes.formatTimestamp(Timestamps.toInstant(micros)));
    }

    private static Value str(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    private static Value bool(boolean b) {
        return Value.newBuilder().setBoolValue(b).build();
    }

    private static Value emptyList() {
        return Value.newBuilder().setListValue(ListValue.getDefaultInstance()).build();
    }

    private static Value list(Value... values) {
        return Value.newBuilder()
                .setListValue(ListValue.newBuilder().addAllValues(List.of(values)))
                .build();
    }

    static Value nullValue() {
        return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
    }
}
