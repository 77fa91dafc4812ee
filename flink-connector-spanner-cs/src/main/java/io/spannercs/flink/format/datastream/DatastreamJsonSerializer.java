package io.spannercs.flink.format.datastream;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventJsonWriter;
import io.spannercs.flink.format.ChangeType;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes a {@link ChangeEvent} as a Datastream event in JSON: generic metadata, {@code
 * source_metadata} with every field of Datastream's Spanner source (plus three Spanner fields it
 * lacks), {@code payload} and, if the context asks for them, {@code old_values}. See {@code
 * docs/formats.md}, "Datastream JSON", for each field.
 *
 * <p>Serializable and thread-safe; {@code read_timestamp} comes from the given clock.
 */
@PublicEvolving
public final class DatastreamJsonSerializer implements ChangeEventJsonWriter {
    private static final long serialVersionUID = 1L;

    /** Written as the type of every column of an undeclared table in its schema key. */
    static final String UNKNOWN_TYPE = "UNKNOWN";

    /** Longest record sequence written as a JSON number: 18 digits always fit a long. */
    private static final int MAX_NUMERIC_SEQUENCE_DIGITS = 18;

    private static final DateTimeFormatter MILLIS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    private final DatastreamContext context;
    private final Clock clock;

    /** Schema keys of declared tables, computed once each. */
    private transient Map<String, String> schemaKeys = new ConcurrentHashMap<>();

    /** Schema keys of column sets events carried, computed once each. */
    private transient Map<Map<String, String>, String> carriedSchemaKeys =
            new ConcurrentHashMap<>();

    /** Writes {@code read_timestamp} from the system clock. */
    public DatastreamJsonSerializer(DatastreamContext context) {
        this(context, Clock.systemUTC());
    }

    /**
     * @param clock gives {@code read_timestamp}; a fixed clock makes output reproducible in tests
     */
    public DatastreamJsonSerializer(DatastreamContext context, Clock clock) {
        this.context = context;
        this.clock = clock;
    }

    public DatastreamContext context() {
        return context;
    }

    /**
     * @throws IllegalArgumentException for a value with no JSON form (see the format's type table)
     */
    @Override
    public String toJson(ChangeEvent event) {
        try {
            return JsonValues.MAPPER.writeValueAsString(toTree(event));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a JSON tree", e);
        }
    }

    /** {@link #toJson} as UTF-8. */
    @Override
    public byte[] toJsonBytes(ChangeEvent event) {
        try {
            return JsonValues.MAPPER.writeValueAsBytes(toTree(event));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a JSON tree", e);
        }
    }

    /**
     * The row's primary key as a JSON object, UTF-8: the key columns in the table's key order, each
     * value as {@code payload} writes it (e.g. {@code {"OrderId":"7","Line":"a"}}). Equal keys give
     * equal bytes, whatever the change, so it serves as a message key that keeps a row in one
     * partition.
     *
     * @throws IllegalArgumentException for a value with no JSON form
     */
    public byte[] primaryKeyJsonBytes(ChangeEvent event) {
        ObjectNode key = JsonValues.MAPPER.createObjectNode();
        putValues(key, event.getKeys(), typesOf(event));
        try {
            return JsonValues.MAPPER.writeValueAsBytes(key);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a JSON tree", e);
        }
    }

    ObjectNode toTree(ChangeEvent e) {
        Map<String, String> types = typesOf(e);
        ObjectNode root = JsonValues.MAPPER.createObjectNode();
        root.put("stream_name", context.streamName());
        root.put("read_method", ReadMethods.of(e, context.readMethod()));
        root.put("object", e.getTable());
        root.put("schema_key", schemaKey(e, types));
        root.put("uuid", EventUuids.of(context.databasePath(), e).toString());
        root.put("read_timestamp", MILLIS.format(Instant.now(clock)));
        root.put("source_timestamp", MILLIS.format(e.getCommitTimestamp()));
        ArrayNode sortKeys = root.putArray("sort_keys");
        sortKeys.add(SortKeys.micros(e.getCommitTimestamp()));
        sortKeys.add(e.getServerTransactionId());
        sortKeys.add(SortKeys.recordSequenceKey(e.getRecordSequence()));
        sortKeys.add((long) e.getModNumber());
        sourceMetadata(e, root.putObject("source_metadata"));
        ObjectNode payload = root.putObject("payload");
        putValues(payload, e.getKeys(), types);
        // A delete's row is its old values, where the capture type records them; else its keys.
        putValues(
                payload,
                e.getChangeType() == ChangeType.DELETE ? e.getOldValues() : e.getNewValues(),
                types);
        if (context.includeOldValues()) {
            putValues(root.putObject("old_values"), e.getOldValues(), types);
        }
        return root;
    }

    private void sourceMetadata(ChangeEvent e, ObjectNode m) {
        String table = e.getTable();
        int dot = table.lastIndexOf('.');
        m.put("commit_timestamp", MICROS.format(e.getCommitTimestamp()));
        m.put("snapshot", e.isSnapshot());
        m.put("project_id", context.projectId());
        m.put("instance_id", context.instanceId());
        m.put("database_id", context.databaseId());
        m.put("schema", dot < 0 ? "" : table.substring(0, dot));
        m.put("table", dot < 0 ? table : table.substring(dot + 1));
        m.put("change_stream_name", context.changeStreamName());
        m.put("server_transaction_id", e.getServerTransactionId());
        String sequence = e.getRecordSequence();
        if (isNumericSequence(sequence)) {
            m.put("record_sequence", Long.parseLong(sequence)); // as Datastream's legacy streams
        } else {
            m.put("record_sequence", sequence);
        }
        m.put("mod_number", (long) e.getModNumber());
        m.put("transaction_tag", e.getTransactionTag());
        m.put("number_of_records_in_transaction", e.getNumberOfRecordsInTransaction());
        m.put("value_capture_type", e.getValueCaptureType());
        m.put("change_type", e.getRawChangeType());
        ArrayNode keys = m.putArray("primary_keys");
        e.getKeys().keySet().forEach(keys::add);
        m.put("is_deleted", e.getChangeType() == ChangeType.DELETE);
        // Not in Datastream's table; written so that a change event can be rebuilt exactly.
        m.put("number_of_partitions_in_transaction", e.getNumberOfPartitionsInTransaction());
        m.put("is_system_transaction", e.isSystemTransaction());
        m.put("partition_token", e.getPartitionToken());
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        schemaKeys = new ConcurrentHashMap<>();
        carriedSchemaKeys = new ConcurrentHashMap<>();
    }

    static boolean isNumericSequence(String sequence) {
        return !sequence.isEmpty()
                && sequence.length() <= MAX_NUMERIC_SEQUENCE_DIGITS
                && sequence.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    private static void putValues(
            ObjectNode target, Map<String, Object> values, Map<String, String> types) {
        values.forEach(
                (column, value) -> {
                    try {
                        target.set(
                                column,
                                JsonValues.write(value, types == null ? null : types.get(column)));
                    } catch (IllegalArgumentException ex) {
                        throw new IllegalArgumentException(
                                "Column " + column + ": " + ex.getMessage(), ex);
                    }
                });
    }

    /**
     * Column types declared in the context for the table, else those the event carries (from its
     * change record; for an UPDATE under NEW_VALUES or OLD_AND_NEW_VALUES only the written
     * columns), else null.
     */
    private Map<String, String> typesOf(ChangeEvent e) {
        Map<String, String> declared = context.columnTypes(e.getTable());
        if (declared != null || e.getColumnTypes().isEmpty()) {
            return declared;
        }
        Map<String, String> carried = new LinkedHashMap<>();
        e.getColumnTypes().forEach((c, t) -> carried.put(c, CanonicalTypeNames.canonical(t)));
        return carried;
    }

    private String schemaKey(ChangeEvent e, Map<String, String> types) {
        if (context.columnTypes(e.getTable()) == null && types != null) {
            return carriedSchemaKeys.computeIfAbsent(types, SchemaKey::of);
        }
        if (types == null) {
            Map<String, String> carried = new LinkedHashMap<>();
            e.getKeys().keySet().forEach(c -> carried.put(c, UNKNOWN_TYPE));
            e.getNewValues().keySet().forEach(c -> carried.put(c, UNKNOWN_TYPE));
            e.getOldValues().keySet().forEach(c -> carried.put(c, UNKNOWN_TYPE));
            return SchemaKey.of(carried);
        }
        return schemaKeys.computeIfAbsent(e.getTable(), t -> SchemaKey.of(types));
    }
}
