package io.spannercs.flink.format.avro;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.datastream.EventUuids;
import io.spannercs.flink.format.datastream.ReadMethods;
import java.io.Serializable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Turns a {@link ChangeEvent} into a {@link GenericRecord} of its table's schema ({@link
 * SpannerAvroSchemas}).
 *
 * <p>Fields: {@code object} is the table name; {@code read_method} and {@code uuid} are those of
 * the JSON format, from the same code ({@link ReadMethods}, {@link EventUuids}), so one change
 * carries the same ones in both formats: {@code spanner-cdc-change-stream} ({@code
 * spanner-backfill} for a snapshot row), and a name-based UUID of database, server transaction id,
 * record sequence and mod number, so reading a change again (after a failure, or by another job)
 * gives the same uuid; {@code read_timestamp} is the conversion's wall clock time; {@code
 * source_timestamp} and {@code commit_timestamp} the commit timestamp; {@code sort_keys} are commit
 * timestamp (microseconds), server transaction id, record sequence and mod number; {@code
 * record_sequence} is always a string, in both partition modes; {@code primary_keys} lists the key
 * columns in table order.
 *
 * <p>{@code payload} is the row after the change; for a DELETE, the row before it, where the stream
 * captures old values, else the key with NULL in every other column. {@code old_values}, set for
 * UPDATE and DELETE where the stream captures old values, is the whole row before the change:
 * Spanner reports old values of the written columns only, so an unwritten column, which kept its
 * value, shows its new value there. A converter made with {@code includeOldValues} false leaves
 * {@code old_values} null on every record (the payload of a DELETE is still the row before it).
 *
 * <p>Schemas are derived once per table and column set and kept (at most {@value #MAX_SCHEMAS}).
 */
@PublicEvolving
public final class ChangeEventAvroConverter implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The value of {@code read_method} for changes: {@link ReadMethods#CHANGE_STREAM}. */
    public static final String READ_METHOD = ReadMethods.CHANGE_STREAM;

    /** The value of {@code read_method} for snapshot rows: {@link ReadMethods#BACKFILL}. */
    public static final String SNAPSHOT_READ_METHOD = ReadMethods.BACKFILL;

    static final int MAX_SCHEMAS = 10_000;

    private final StreamIdentity stream;
    private final Clock clock;

    /** Negated so that a converter serialized before the field existed reads back as including. */
    private final boolean omitOldValues;

    private transient Map<SchemaId, Derived> schemas;

    public ChangeEventAvroConverter(StreamIdentity stream) {
        this(stream, Clock.systemUTC());
    }

    /**
     * @param clock gives {@code read_timestamp}; a serializable clock (the system and fixed clocks
     *     are)
     */
    public ChangeEventAvroConverter(StreamIdentity stream, Clock clock) {
        this(stream, clock, true);
    }

    /**
     * @param clock gives {@code read_timestamp}; a serializable clock (the system and fixed clocks
     *     are)
     * @param includeOldValues whether {@code old_values} holds the row before the change where the
     *     stream captures it (the default), or is null on every record
     */
    public ChangeEventAvroConverter(StreamIdentity stream, Clock clock, boolean includeOldValues) {
        this.stream = stream;
        this.clock = clock;
        this.omitOldValues = !includeOldValues;
    }

    /** The schema of the event's table and column set (derived once, then kept). */
    public Schema schemaOf(ChangeEvent event) {
        return derived(event).schema();
    }

    private Derived derived(ChangeEvent event) {
        if (schemas == null) {
            schemas = boundedMap();
        }
        SchemaId id =
                new SchemaId(
                        event.getTable(),
                        event.getColumnTypes(),
                        new ArrayList<>(event.getKeys().keySet()));
        Derived d = schemas.get(id);
        if (d == null) {
            Schema schema = SpannerAvroSchemas.forEvent(event);
            d = new Derived(schema, SpannerAvroSchemas.schemaKey(schema));
            schemas.put(id, d);
        }
        return d;
    }

    /**
     * @throws IllegalArgumentException when a value does not fit its column's Avro type (e.g. a
     *     NULL key column) or the event has no column types
     */
    public GenericRecord convert(ChangeEvent event) {
        Derived derived = derived(event);
        Schema schema = derived.schema();
        String schemaKey = derived.key();
        Schema rowSchema = schema.getField("payload").schema();
        boolean deleted = event.getChangeType() == ChangeType.DELETE;
        boolean capturesOld =
                event.getValueCaptureType() != null && event.getValueCaptureType().contains("OLD");

        GenericRecord r = new GenericData.Record(schema);
        r.put("stream_name", stream.streamName());
        r.put("read_method", ReadMethods.of(event));
        r.put("object", event.getTable());
        r.put("schema_key", schemaKey);
        r.put("uuid", EventUuids.of(stream.databasePath(), event).toString());
        r.put("read_timestamp", clock.millis());
        long commitMicros = AvroValues.micros(event.getCommitTimestamp());
        r.put("source_timestamp", Math.floorDiv(commitMicros, 1000L));
        r.put(
                "sort_keys",
                List.of(
                        commitMicros,
                        event.getServerTransactionId(),
                        event.getRecordSequence(),
                        (long) event.getModNumber()));
        r.put("source_metadata", sourceMetadata(schema, event, commitMicros));
        r.put(
                "payload",
                row(rowSchema, event, deleted ? event.getOldValues() : event.getNewValues(), null));
        boolean hasOld =
                !omitOldValues && capturesOld && event.getChangeType() != ChangeType.INSERT;
        r.put(
                "old_values",
                hasOld ? row(rowSchema, event, event.getOldValues(), event.getNewValues()) : null);
        return r;
    }

    /**
     * The row: key values, then each other column from {@code values}, else from {@code fallback},
     * else NULL.
     */
    private static GenericRecord row(
            Schema rowSchema,
            ChangeEvent event,
            Map<String, Object> values,
            Map<String, Object> fallback) {
        GenericRecord row = new GenericData.Record(rowSchema);
        int i = 0;
        for (String column : event.getColumnTypes().keySet()) {
            Object v;
            if (event.getKeys().containsKey(column)) {
                v = event.getKeys().get(column);
            } else if (values.containsKey(column) || fallback == null) {
                v = values.get(column);
            } else {
                v = fallback.get(column);
            }
            Schema.Field f = rowSchema.getFields().get(i++);
            row.put(f.pos(), AvroValues.toAvro(f.schema(), v, event.getTable() + "." + column));
        }
        return row;
    }

    private GenericRecord sourceMetadata(Schema schema, ChangeEvent event, long commitMicros) {
        String table = event.getTable();
        int dot = table.lastIndexOf('.');
        GenericRecord m = new GenericData.Record(schema.getField("source_metadata").schema());
        m.put("commit_timestamp", commitMicros);
        m.put("snapshot", event.isSnapshot());
        m.put("project_id", stream.projectId());
        m.put("instance_id", stream.instanceId());
        m.put("database_id", stream.databaseId());
        m.put("schema", dot < 0 ? "" : table.substring(0, dot));
        m.put("table", dot < 0 ? table : table.substring(dot + 1));
        m.put("change_stream_name", stream.changeStreamName());
        m.put("server_transaction_id", event.getServerTransactionId());
        m.put("record_sequence", event.getRecordSequence());
        m.put("mod_number", (long) event.getModNumber());
        m.put("transaction_tag", nullToEmpty(event.getTransactionTag()));
        m.put("number_of_records_in_transaction", event.getNumberOfRecordsInTransaction());
        m.put("value_capture_type", nullToEmpty(event.getValueCaptureType()));
        m.put("change_type", event.getRawChangeType());
        m.put("primary_keys", primaryKeys(event));
        m.put("is_deleted", event.getChangeType() == ChangeType.DELETE);
        return m;
    }

    /**
     * Key columns in table order: legacy-mode records carry keys as a JSON object with sorted
     * names, so the key order is not known in every partition mode, and one order for all is.
     */
    private static List<String> primaryKeys(ChangeEvent event) {
        List<String> keys = new ArrayList<>(event.getKeys().size());
        for (String column : event.getColumnTypes().keySet()) {
            if (event.getKeys().containsKey(column)) {
                keys.add(column);
            }
        }
        return keys;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private static <K, V> Map<K, V> boundedMap() {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > MAX_SCHEMAS;
            }
        };
    }

    private record Derived(Schema schema, String key) {}

    private record SchemaId(String table, Map<String, String> columnTypes, List<String> keys) {}
}
