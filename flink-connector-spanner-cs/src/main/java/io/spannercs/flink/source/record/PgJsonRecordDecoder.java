package io.spannercs.flink.source.record;

import com.google.cloud.spanner.StructReader;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import com.google.protobuf.util.Timestamps;
import com.google.spanner.v1.Type;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * Decodes IMMUTABLE_KEY_RANGE rows of PostgreSQL databases ({@code spanner.read_json_<stream>}):
 * one JSONB object per row with one key, {@code data_change_record}, {@code heartbeat_record} or
 * {@code child_partitions_record}, holding the fields of the GoogleSQL records. Mod keys and values
 * are nested objects whose members are already in Spanner's wire encoding.
 */
@Internal
public final class PgJsonRecordDecoder implements ChangeRecordDecoder {
    public static final PgJsonRecordDecoder INSTANCE = new PgJsonRecordDecoder();

    private PgJsonRecordDecoder() {}

    @Override
    public List<ChangeRecord> decode(StructReader row) {
        return decode(row.getPgJsonb(0));
    }

    /** The records of one JSONB row. */
    public static List<ChangeRecord> decode(String json) {
        Struct record = parse(json);
        List<ChangeRecord> out = new ArrayList<>(1);
        for (Map.Entry<String, Value> e : record.getFieldsMap().entrySet()) {
            if (e.getValue().hasNullValue()) {
                continue;
            }
            Struct r = e.getValue().getStructValue();
            if (!hasTimestamp(r, e.getKey())) {
                continue; // an element with NULL fields is no record
            }
            switch (e.getKey()) {
                case "data_change_record":
                    out.add(dataChange(r));
                    break;
                case "heartbeat_record":
                    out.add(new HeartbeatRecord(micros(r, "timestamp")));
                    break;
                case "child_partitions_record":
                    out.add(childPartitions(r));
                    break;
                default:
                    throw new IllegalStateException(
                            "Unknown change record kind '" + e.getKey() + "' in " + json);
            }
        }
        return out;
    }

    private static boolean hasTimestamp(Struct r, String kind) {
        String field =
                switch (kind) {
                    case "data_change_record" -> "commit_timestamp";
                    case "heartbeat_record" -> "timestamp";
                    case "child_partitions_record" -> "start_timestamp";
                    default -> null;
                };
        if (field == null) {
            return true; // unknown kinds fail below, naming the kind
        }
        Value v = r.getFieldsOrDefault(field, Value.getDefaultInstance());
        return v.hasStringValue();
    }

    private static DataChangeRecord dataChange(Struct d) {
        List<ColumnInfo> columns = new ArrayList<>();
        for (Value v : list(d, "column_types")) {
            Struct c = v.getStructValue();
            columns.add(
                    new ColumnInfo(
                            text(c, "name"),
                            type(c.getFieldsOrThrow("type")),
                            c.getFieldsOrThrow("is_primary_key").getBoolValue(),
                            number(c, "ordinal_position")));
        }
        List<ModRecord> mods = new ArrayList<>();
        for (Value v : list(d, "mods")) {
            Struct m = v.getStructValue();
            mods.add(
                    new ModRecord(
                            values(m, "keys"), values(m, "new_values"), values(m, "old_values")));
        }
        Value tag = d.getFieldsOrDefault("transaction_tag", Value.getDefaultInstance());
        return new DataChangeRecord(
                micros(d, "commit_timestamp"),
                text(d, "record_sequence"),
                text(d, "server_transaction_id"),
                d.getFieldsOrThrow("is_last_record_in_transaction_in_partition").getBoolValue(),
                text(d, "table_name"),
                List.copyOf(columns),
                List.copyOf(mods),
                text(d, "mod_type"),
                text(d, "value_capture_type"),
                number(d, "number_of_records_in_transaction"),
                number(d, "number_of_partitions_in_transaction"),
                tag.hasStringValue() ? tag.getStringValue() : "",
                d.getFieldsOrThrow("is_system_transaction").getBoolValue());
    }

    private static ChildPartitionsRecord childPartitions(Struct c) {
        List<ChildPartitionsRecord.ChildPartition> children = new ArrayList<>();
        for (Value v : list(c, "child_partitions")) {
            Struct child = v.getStructValue();
            List<String> parents = new ArrayList<>();
            for (Value p : list(child, "parent_partition_tokens")) {
                parents.add(p.getStringValue());
            }
            children.add(
                    new ChildPartitionsRecord.ChildPartition(
                            text(child, "token"), List.copyOf(parents)));
        }
        return new ChildPartitionsRecord(
                micros(c, "start_timestamp"), text(c, "record_sequence"), List.copyOf(children));
    }

    private static Struct parse(String json) {
        Struct.Builder b = Struct.newBuilder();
        try {
            JsonFormat.parser().merge(json, b);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("Unreadable change record: " + json, e);
        }
        return b.build();
    }

    private static Type type(Value json) {
        Type.Builder b = Type.newBuilder();
        try {
            JsonFormat.parser().ignoringUnknownFields().merge(JsonFormat.printer().print(json), b);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("Unreadable column type in change record: " + json, e);
        }
        return b.build();
    }

    private static Map<String, Value> values(Struct mod, String field) {
        Value v = mod.getFieldsOrDefault(field, Value.getDefaultInstance());
        return v.hasStructValue()
                ? new LinkedHashMap<>(v.getStructValue().getFieldsMap())
                : Map.of();
    }

    private static List<Value> list(Struct s, String field) {
        Value v = s.getFieldsOrDefault(field, Value.getDefaultInstance());
        return v.hasListValue() ? v.getListValue().getValuesList() : List.of();
    }

    private static String text(Struct s, String field) {
        return s.getFieldsOrThrow(field).getStringValue();
    }

    private static long number(Struct s, String field) {
        Value v = s.getFieldsOrThrow(field);
        return v.hasStringValue() ? Long.parseLong(v.getStringValue()) : (long) v.getNumberValue();
    }

    private static long micros(Struct s, String field) {
        String text = text(s, field);
        try {
            com.google.protobuf.Timestamp t = Timestamps.parse(text);
            return t.getSeconds() * 1_000_000L + t.getNanos() / 1000;
        } catch (ParseException e) {
            throw new IllegalStateException("Unreadable " + field + " '" + text + "'", e);
        }
    }
}
