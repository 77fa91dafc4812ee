package io.spannercs.emulator.testing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonToken;
import com.google.cloud.Timestamp;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Value;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decodes the {@code jsonb} rows of PostgreSQL's {@code spanner.read_json_<stream>} into {@link
 * ReadRecord}s, the same model the GoogleSQL readers produce, so tests compare both dialects with
 * one set of checks.
 */
final class PgJsonRecords {
    private static final Set<String> KINDS =
            Set.of("data_change_record", "heartbeat_record", "child_partitions_record");

    private PgJsonRecords() {}

    static ReadRecord fromJson(String token, String json) {
        JsonObject row = parse(json).getAsJsonObject();
        if (row.size() != 1 || !KINDS.contains(row.keySet().iterator().next())) {
            throw new IllegalStateException("Expected one record kind per row, got " + json);
        }
        if (row.has("heartbeat_record")) {
            JsonObject h = row.getAsJsonObject("heartbeat_record");
            return ClientChangeStreamReader.simple(
                    ReadRecord.Kind.HEARTBEAT, token, micros(h.get("timestamp")), "");
        }
        if (row.has("child_partitions_record")) {
            return childPartitions(token, row.getAsJsonObject("child_partitions_record"));
        }
        return dataChange(token, row.getAsJsonObject("data_change_record"));
    }

    private static ReadRecord childPartitions(String token, JsonObject c) {
        List<String> tokens = new ArrayList<>();
        List<List<String>> parents = new ArrayList<>();
        for (JsonElement e : c.getAsJsonArray("child_partitions")) {
            JsonObject child = e.getAsJsonObject();
            tokens.add(child.get("token").getAsString());
            List<String> p = new ArrayList<>();
            child.getAsJsonArray("parent_partition_tokens").forEach(t -> p.add(t.getAsString()));
            parents.add(p);
        }
        return new ReadRecord(
                ReadRecord.Kind.CHILD_PARTITIONS,
                token,
                micros(c.get("start_timestamp")),
                c.get("record_sequence").getAsString(),
                null,
                tokens,
                parents,
                List.of(),
                List.of());
    }

    private static ReadRecord dataChange(String token, JsonObject d) {
        List<ReadRecord.Column> columns = new ArrayList<>();
        for (JsonElement e : d.getAsJsonArray("column_types")) {
            JsonObject c = e.getAsJsonObject();
            com.google.spanner.v1.Type type =
                    ClientChangeStreamReader.type(c.getAsJsonObject("type").toString());
            columns.add(
                    new ReadRecord.Column(
                            c.get("name").getAsString(),
                            type.getCode().name(),
                            c.get("is_primary_key").getAsBoolean(),
                            c.get("ordinal_position").getAsLong(),
                            type.getTypeAnnotation().name()));
        }
        List<ReadRecord.Mod> mods = new ArrayList<>();
        JsonArray modArray = d.getAsJsonArray("mods");
        for (JsonElement e : modArray) {
            JsonObject m = e.getAsJsonObject();
            mods.add(
                    new ReadRecord.Mod(
                            values(m.getAsJsonObject("keys")),
                            values(m.getAsJsonObject("new_values")),
                            values(m.getAsJsonObject("old_values"))));
        }
        ReadRecord.Data data =
                new ReadRecord.Data(
                        d.get("server_transaction_id").getAsString(),
                        d.get("is_last_record_in_transaction_in_partition").getAsBoolean(),
                        d.get("table_name").getAsString(),
                        columns,
                        mods,
                        d.get("mod_type").getAsString(),
                        d.get("value_capture_type").getAsString(),
                        d.get("number_of_records_in_transaction").getAsLong(),
                        d.get("number_of_partitions_in_transaction").getAsLong(),
                        d.get("transaction_tag").getAsString(),
                        d.get("is_system_transaction").getAsBoolean());
        return new ReadRecord(
                ReadRecord.Kind.DATA,
                token,
                micros(d.get("commit_timestamp")),
                d.get("record_sequence").getAsString(),
                data,
                List.of(),
                List.of(),
                List.of(),
                List.of());
    }

    /**
     * Parses with Jackson, not Gson: jsonb writes numbers without exponent (a FLOAT64 1e300 has 301
     * digits), and Gson reads integers that long as strings.
     */
    static JsonElement parse(String json) {
        try (com.fasterxml.jackson.core.JsonParser p = new JsonFactory().createParser(json)) {
            p.nextToken();
            JsonElement e = read(p);
            if (p.nextToken() != null) {
                throw new IllegalStateException("Text after the JSON value: " + json);
            }
            return e;
        } catch (IOException e) {
            throw new IllegalStateException("Bad JSON " + json, e);
        }
    }

    private static JsonElement read(com.fasterxml.jackson.core.JsonParser p) throws IOException {
        switch (p.currentToken()) {
            case START_OBJECT:
                {
                    JsonObject o = new JsonObject();
                    while (p.nextToken() != JsonToken.END_OBJECT) {
                        String name = p.currentName();
                        p.nextToken();
                        o.add(name, read(p));
                    }
                    return o;
                }
            case START_ARRAY:
                {
                    JsonArray a = new JsonArray();
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        a.add(read(p));
                    }
                    return a;
                }
            case VALUE_STRING:
                return new JsonPrimitive(p.getText());
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return new JsonPrimitive(new BigDecimal(p.getText()));
            case VALUE_TRUE:
            case VALUE_FALSE:
                return new JsonPrimitive(p.getBooleanValue());
            case VALUE_NULL:
                return JsonNull.INSTANCE;
            default:
                throw new IllegalStateException("Unexpected JSON token " + p.currentToken());
        }
    }

    /**
     * Column values in Spanner's wire encoding: numbers are FLOAT64/FLOAT32 values, strings carry
     * INT64, NUMERIC, BYTES, dates, timestamps and jsonb text.
     */
    private static Map<String, Value> values(JsonObject o) {
        Map<String, Value> out = new LinkedHashMap<>();
        o.entrySet().forEach(e -> out.put(e.getKey(), value(e.getValue())));
        return out;
    }

    private static Value value(JsonElement e) {
        if (e.isJsonNull()) {
            return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
        }
        if (e.isJsonArray()) {
            ListValue.Builder list = ListValue.newBuilder();
            e.getAsJsonArray().forEach(x -> list.addValues(value(x)));
            return Value.newBuilder().setListValue(list).build();
        }
        JsonPrimitive p = e.getAsJsonPrimitive();
        if (p.isBoolean()) {
            return Value.newBuilder().setBoolValue(p.getAsBoolean()).build();
        }
        if (p.isNumber()) {
            return Value.newBuilder().setNumberValue(Double.parseDouble(p.getAsString())).build();
        }
        return Value.newBuilder().setStringValue(p.getAsString()).build();
    }

    /** Timestamps are RFC 3339 strings in PostgreSQL records. */
    private static long micros(JsonElement e) {
        return ClientChangeStreamReader.micros(Timestamp.parseTimestamp(e.getAsString()));
    }
}
