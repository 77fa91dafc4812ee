package io.spannercs.flink.format.datastream;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.io.IOException;
import java.io.Serializable;
import java.time.Instant;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads the Datastream JSON that {@link DatastreamJsonSerializer} writes back into the {@link
 * ChangeEvent} it was written from.
 *
 * <p>The event comes back equal to the original (byte arrays by content) when the context declares
 * the table's column types and the JSON carries {@code old_values} or no update had old values;
 * without declared types, values come back by their JSON form (INT64 as a String, for one). Record
 * sequences written as numbers come back zero-padded to 8 digits, as Spanner writes them in
 * IMMUTABLE_KEY_RANGE streams. JSON column values come back as compact JSON text: the same text
 * when it was compact, with no exponent in numbers and no needless escapes (as Spanner normalizes
 * JSON), an equal JSON document otherwise. A JSON column holding the JSON literal {@code null}
 * comes back as SQL NULL.
 *
 * <p>Serializable and thread-safe.
 */
@PublicEvolving
public final class DatastreamJsonDeserializer implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Width of IMMUTABLE_KEY_RANGE record sequences, which Datastream writes as numbers. */
    private static final int LEGACY_SEQUENCE_WIDTH = 8;

    private final DatastreamContext context;

    /**
     * @param context gives the tables' column types; its other settings do not matter here
     */
    public DatastreamJsonDeserializer(DatastreamContext context) {
        this.context = context;
    }

    /**
     * @throws IllegalArgumentException for JSON that is not a Datastream event of a Spanner change,
     *     naming the field
     */
    public ChangeEvent fromJson(String json) {
        try {
            return fromTree(JsonValues.parse(json));
        } catch (IOException e) {
            throw new IllegalArgumentException("Not JSON: " + e.getMessage(), e);
        }
    }

    /** {@link #fromJson(String)} for UTF-8 bytes. */
    public ChangeEvent fromJson(byte[] json) {
        try {
            return fromTree(JsonValues.parse(json));
        } catch (IOException e) {
            throw new IllegalArgumentException("Not JSON: " + e.getMessage(), e);
        }
    }

    ChangeEvent fromTree(JsonNode root) {
        JsonNode m = required(root, "source_metadata");
        String schema = text(m, "schema");
        String table = schema.isEmpty() ? text(m, "table") : schema + "." + text(m, "table");
        String rawChangeType = text(m, "change_type");
        ChangeType changeType = changeType(rawChangeType);
        Map<String, String> types = context.columnTypes(table);

        Set<String> keyNames = new HashSet<>();
        Map<String, Object> keys = new LinkedHashMap<>();
        JsonNode payload = required(root, "payload");
        for (JsonNode k : required(m, "primary_keys")) {
            String name = k.textValue();
            keyNames.add(name);
            if (!payload.has(name)) {
                throw new IllegalArgumentException("payload has no key column " + name);
            }
            keys.put(name, value(payload.get(name), name, types)); // key columns may be NULL
        }
        Map<String, Object> rowValues = values(payload, keyNames, types);
        Map<String, Object> oldValues =
                root.has("old_values")
                        ? values(root.get("old_values"), Set.of(), types)
                        : changeType == ChangeType.DELETE ? rowValues : Map.of();
        JsonNode tag = m.get("transaction_tag");
        JsonNode token = m.get("partition_token");
        return ChangeEvent.builder()
                .table(table)
                .changeType(changeType)
                .rawChangeType(rawChangeType)
                .keys(keys)
                .newValues(changeType == ChangeType.DELETE ? Map.of() : rowValues)
                .oldValues(oldValues)
                .commitTimestamp(Instant.parse(text(m, "commit_timestamp")))
                .serverTransactionId(text(m, "server_transaction_id"))
                .recordSequence(recordSequence(required(m, "record_sequence")))
                .modNumber(required(m, "mod_number").intValue())
                .transactionTag(tag == null || tag.isNull() ? null : tag.textValue())
                .systemTransaction(m.path("is_system_transaction").booleanValue())
                .partitionToken(token == null || token.isNull() ? null : token.textValue())
                .numberOfRecordsInTransaction(
                        required(m, "number_of_records_in_transaction").longValue())
                .numberOfPartitionsInTransaction(
                        m.path("number_of_partitions_in_transaction").longValue())
                .valueCaptureType(text(m, "value_capture_type"))
                .snapshot(m.path("snapshot").booleanValue())
                .build();
    }

    /** A change type by name; a name this connector does not know is {@link ChangeType#UNKNOWN}. */
    private static ChangeType changeType(String name) {
        for (ChangeType t : ChangeType.values()) {
            if (t != ChangeType.UNKNOWN && t.name().equals(name)) {
                return t;
            }
        }
        return ChangeType.UNKNOWN;
    }

    private static String recordSequence(JsonNode n) {
        if (n.isIntegralNumber()) {
            String digits = n.asText();
            return "0".repeat(Math.max(0, LEGACY_SEQUENCE_WIDTH - digits.length())) + digits;
        }
        return n.textValue();
    }

    private static Map<String, Object> values(
            JsonNode object, Set<String> skip, Map<String, String> types) {
        Map<String, Object> out = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            if (!skip.contains(f.getKey())) {
                out.put(f.getKey(), value(f.getValue(), f.getKey(), types));
            }
        }
        return out;
    }

    private static Object value(JsonNode node, String column, Map<String, String> types) {
        try {
            return JsonValues.read(node, types == null ? null : types.get(column));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Column " + column + ": " + e.getMessage(), e);
        }
    }

    private static JsonNode required(JsonNode parent, String field) {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            throw new IllegalArgumentException("Datastream event has no " + field);
        }
        return n;
    }

    private static String text(JsonNode parent, String field) {
        JsonNode n = required(parent, field);
        if (!n.isTextual()) {
            throw new IllegalArgumentException(field + " is not a string: " + n);
        }
        return n.textValue();
    }
}
