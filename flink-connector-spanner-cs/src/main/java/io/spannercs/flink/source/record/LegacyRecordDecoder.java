package io.spannercs.flink.source.record;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.StructReader;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import com.google.spanner.v1.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * Decodes IMMUTABLE_KEY_RANGE rows: {@code ARRAY<STRUCT<data_change_record, heartbeat_record,
 * child_partitions_record>>}, with mod keys and values as JSON objects and column types as JSON
 * type descriptions.
 */
@Internal
public final class LegacyRecordDecoder implements ChangeRecordDecoder {
    public static final LegacyRecordDecoder INSTANCE = new LegacyRecordDecoder();

    private LegacyRecordDecoder() {}

    /**
     * The records of one row. Spanner may fill the arrays a row does not use with one element whose
     * fields are all NULL; such elements (recognised by their NULL timestamp, as Beam, Debezium and
     * Google's samples do) are no records and are skipped.
     */
    @Override
    public List<ChangeRecord> decode(StructReader row) {
        List<ChangeRecord> out = new ArrayList<>(1);
        if (row.isNull(0)) {
            return out;
        }
        for (Struct element : row.getStructList(0)) {
            if (element == null) {
                continue;
            }
            for (Struct d : present(element, "data_change_record", "commit_timestamp")) {
                out.add(dataChange(d));
            }
            for (Struct h : present(element, "heartbeat_record", "timestamp")) {
                out.add(new HeartbeatRecord(micros(h.getTimestamp("timestamp"))));
            }
            for (Struct c : present(element, "child_partitions_record", "start_timestamp")) {
                List<ChildPartitionsRecord.ChildPartition> children = new ArrayList<>();
                for (Struct child : c.getStructList("child_partitions")) {
                    children.add(
                            new ChildPartitionsRecord.ChildPartition(
                                    child.getString("token"),
                                    List.copyOf(child.getStringList("parent_partition_tokens"))));
                }
                out.add(
                        new ChildPartitionsRecord(
                                micros(c.getTimestamp("start_timestamp")),
                                c.getString("record_sequence"),
                                List.copyOf(children)));
            }
        }
        return out;
    }

    /** The elements of an array field that are records: not NULL and with their timestamp set. */
    private static List<Struct> present(Struct element, String field, String timestampField) {
        if (element.isNull(field)) {
            return List.of();
        }
        List<Struct> all = element.getStructList(field);
        List<Struct> out = new ArrayList<>(all.size());
        for (Struct s : all) {
            if (s != null && !s.isNull(timestampField)) {
                out.add(s);
            }
        }
        return out;
    }

    private static DataChangeRecord dataChange(Struct d) {
        List<ColumnInfo> columns = new ArrayList<>();
        for (Struct c : d.getStructList("column_types")) {
            columns.add(
                    new ColumnInfo(
                            c.getString("name"),
                            parseType(c.getJson("type")),
                            c.getBoolean("is_primary_key"),
                            c.getLong("ordinal_position")));
        }
        List<ModRecord> mods = new ArrayList<>();
        for (Struct m : d.getStructList("mods")) {
            mods.add(
                    new ModRecord(
                            parseObject(m, "keys"),
                            parseObject(m, "new_values"),
                            parseObject(m, "old_values")));
        }
        return new DataChangeRecord(
                micros(d.getTimestamp("commit_timestamp")),
                d.getString("record_sequence"),
                d.getString("server_transaction_id"),
                d.getBoolean("is_last_record_in_transaction_in_partition"),
                d.getString("table_name"),
                List.copyOf(columns),
                List.copyOf(mods),
                d.getString("mod_type"),
                d.getString("value_capture_type"),
                d.getLong("number_of_records_in_transaction"),
                d.getLong("number_of_partitions_in_transaction"),
                d.isNull("transaction_tag") ? "" : d.getString("transaction_tag"),
                d.getBoolean("is_system_transaction"));
    }

    private static Type parseType(String json) {
        Type.Builder b = Type.newBuilder();
        try {
            JsonFormat.parser().ignoringUnknownFields().merge(json, b);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("Unreadable column type in change record: " + json, e);
        }
        return b.build();
    }

    private static Map<String, Value> parseObject(Struct mod, String field) {
        if (mod.isNull(field)) {
            return Map.of();
        }
        String json = mod.getJson(field);
        if (json.isBlank() || json.trim().equals("null")) {
            // Google's emulator sends JSON null (not SQL NULL) for a key-only update's old values.
            return Map.of();
        }
        com.google.protobuf.Struct.Builder b = com.google.protobuf.Struct.newBuilder();
        try {
            JsonFormat.parser().merge(json, b);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(
                    "Unreadable mod " + field + " in change record: " + json, e);
        }
        return new LinkedHashMap<>(b.getFieldsMap());
    }

    private static long micros(Timestamp t) {
        return t.getSeconds() * 1_000_000L + t.getNanos() / 1000;
    }
}
