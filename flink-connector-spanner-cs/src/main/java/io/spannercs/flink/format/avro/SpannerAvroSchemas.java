package io.spannercs.flink.format.avro;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.SpannerTypeNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.SchemaNormalization;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Derives the Avro record schema of a Spanner table from the column metadata of its change events
 * ({@link ChangeEvent#getColumnTypes()}).
 *
 * <p>The record holds Datastream's generic metadata ({@code stream_name}, {@code read_method},
 * {@code object}, {@code schema_key}, {@code uuid}, {@code read_timestamp}, {@code
 * source_timestamp}, {@code sort_keys}), a {@code source_metadata} record with Datastream's Spanner
 * source fields, the row as {@code payload} and, where the stream captures them, the row before the
 * change as {@code old_values} (same record type as the payload). The payload has one field per
 * column in table order; key columns are required, every other column is a union with null.
 *
 * <table>
 *   <caption>Avro types of Spanner columns</caption>
 *   <tr><th>Spanner</th><th>Avro</th></tr>
 *   <tr><td>INT64, PG_OID</td><td>long</td></tr>
 *   <tr><td>FLOAT64</td><td>double (NaN and infinities kept)</td></tr>
 *   <tr><td>FLOAT32</td><td>float</td></tr>
 *   <tr><td>NUMERIC</td><td>bytes, logical type decimal(38, 9)</td></tr>
 *   <tr><td>PG_NUMERIC</td><td>string, the number as written (scale kept) or {@code NaN}</td></tr>
 *   <tr><td>BOOL</td><td>boolean</td></tr>
 *   <tr><td>STRING</td><td>string</td></tr>
 *   <tr><td>BYTES, PROTO</td><td>bytes</td></tr>
 *   <tr><td>ENUM</td><td>long (the enum number)</td></tr>
 *   <tr><td>DATE</td><td>int, logical type date</td></tr>
 *   <tr><td>TIMESTAMP</td><td>long, logical type timestamp-micros (nanoseconds truncated)</td></tr>
 *   <tr><td>JSON, PG_JSONB</td><td>string with {@code "sqlType": "JSON"}</td></tr>
 *   <tr><td>ARRAY&lt;T&gt;</td><td>array of union(null, T)</td></tr>
 * </table>
 *
 * <p>Every column field carries its Spanner type name as the property {@code spanner.type}; a
 * column whose name is not a valid Avro name is renamed (other characters become {@code _}) and
 * keeps its name as {@code spanner.name}.
 */
@PublicEvolving
public final class SpannerAvroSchemas {
    /** Namespace of every derived record; a table in a named schema adds the schema's name. */
    public static final String NAMESPACE = "io.spannercs.avro";

    /** Field property holding a column's Spanner type name. */
    public static final String SPANNER_TYPE = "spanner.type";

    /** Field property holding a column's Spanner name where the Avro field name differs. */
    public static final String SPANNER_NAME = "spanner.name";

    /** Precision and scale of GoogleSQL NUMERIC, which has at most 9 fractional digits. */
    public static final int NUMERIC_PRECISION = 38;

    public static final int NUMERIC_SCALE = 9;

    private SpannerAvroSchemas() {}

    /** The schema of the event's table as the event's column metadata describes it. */
    public static Schema forEvent(ChangeEvent event) {
        if (event.getColumnTypes().isEmpty()) {
            throw new IllegalArgumentException(
                    "Change event of table "
                            + event.getTable()
                            + " has no column types; events from SpannerChangeStreamSource"
                            + " carry them");
        }
        return forTable(event.getTable(), event.getColumnTypes(), event.getKeys().keySet());
    }

    /**
     * The schema of a table.
     *
     * @param table the table name, {@code schema.table} for a table in a named schema
     * @param columnTypes Spanner type names ({@link SpannerTypeNames}) by column, in table order
     * @param keyColumns the primary key columns
     * @throws IllegalArgumentException for a type without an Avro mapping, or two columns whose
     *     Avro names collide
     */
    public static Schema forTable(
            String table, Map<String, String> columnTypes, Collection<String> keyColumns) {
        int dot = table.lastIndexOf('.');
        String spannerSchema = dot < 0 ? "" : table.substring(0, dot);
        String name = avroName(dot < 0 ? table : table.substring(dot + 1));
        String namespace =
                spannerSchema.isEmpty() ? NAMESPACE : NAMESPACE + "." + avroName(spannerSchema);
        Schema row = rowSchema(name + "Row", namespace, table, columnTypes, keyColumns);
        Schema stringOrLong =
                Schema.createUnion(
                        Schema.create(Schema.Type.STRING), Schema.create(Schema.Type.LONG));
        return SchemaBuilder.record(name)
                .namespace(namespace)
                .doc("Change events of Spanner table " + table)
                .fields()
                .requiredString("stream_name")
                .requiredString("read_method")
                .requiredString("object")
                .requiredString("schema_key")
                .requiredString("uuid")
                .name("read_timestamp")
                .type(timestampMillis())
                .noDefault()
                .name("source_timestamp")
                .type(timestampMillis())
                .noDefault()
                .name("sort_keys")
                .type(Schema.createArray(stringOrLong))
                .noDefault()
                .name("source_metadata")
                .type(sourceMetadataSchema())
                .noDefault()
                .name("payload")
                .type(row)
                .noDefault()
                .name("old_values")
                .type(Schema.createUnion(Schema.create(Schema.Type.NULL), row))
                .withDefault(null)
                .endRecord();
    }

    /**
     * The schema's key: the hex of Avro's 64-bit Rabin fingerprint (CRC-64-AVRO) of the schema's
     * full JSON. Unlike the parsing canonical form, the full JSON includes logical types and field
     * properties, so a NUMERIC and a BYTES column get different keys.
     */
    public static String schemaKey(Schema schema) {
        long fp =
                SchemaNormalization.fingerprint64(
                        schema.toString().getBytes(StandardCharsets.UTF_8));
        return String.format("%016x", fp);
    }

    /**
     * The Avro type of a non-null value of a Spanner type.
     *
     * @throws IllegalArgumentException for a type without an Avro mapping
     */
    public static Schema valueSchema(String spannerType) {
        String element = SpannerTypeNames.arrayElement(spannerType);
        if (element != null) {
            return Schema.createArray(
                    Schema.createUnion(Schema.create(Schema.Type.NULL), valueSchema(element)));
        }
        if (spannerType.startsWith("PROTO<")) {
            return Schema.create(Schema.Type.BYTES);
        }
        if (spannerType.startsWith("ENUM<")) {
            return Schema.create(Schema.Type.LONG);
        }
        switch (spannerType) {
            case "INT64":
            case "PG_OID":
                return Schema.create(Schema.Type.LONG);
            case "FLOAT64":
                return Schema.create(Schema.Type.DOUBLE);
            case "FLOAT32":
                return Schema.create(Schema.Type.FLOAT);
            case "NUMERIC":
                return LogicalTypes.decimal(NUMERIC_PRECISION, NUMERIC_SCALE)
                        .addToSchema(Schema.create(Schema.Type.BYTES));
            case "BOOL":
                return Schema.create(Schema.Type.BOOLEAN);
            case "STRING":
            case "INTERVAL": // ISO 8601 duration text
            case "PG_NUMERIC": // arbitrary scale and NaN: no Avro decimal holds every value
                return Schema.create(Schema.Type.STRING);
            case "UUID":
                return LogicalTypes.uuid().addToSchema(Schema.create(Schema.Type.STRING));
            case "BYTES":
                return Schema.create(Schema.Type.BYTES);
            case "DATE":
                return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
            case "TIMESTAMP":
                // Avro 1.11 (flink-avro's) has no timestamp-nanos
                return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
            case "JSON":
            case "PG_JSONB":
                {
                    // BigQuery loads such strings into JSON columns
                    Schema s = Schema.create(Schema.Type.STRING);
                    s.addProp("sqlType", "JSON");
                    return s;
                }
            default:
                {
                    // A type newer than this connector, passed through as its raw text (see the
                    // source's UnknownValueHandling.RAW).
                    Schema s = Schema.create(Schema.Type.STRING);
                    s.addProp("spannerType", spannerType);
                    return s;
                }
        }
    }

    /**
     * An Avro name for a Spanner name: characters other than letters, digits and {@code _} become
     * {@code _}, and a leading digit gets a {@code _} before it.
     */
    static String avroName(String spannerName) {
        StringBuilder b = new StringBuilder(spannerName.length() + 1);
        for (int i = 0; i < spannerName.length(); i++) {
            char c = spannerName.charAt(i);
            boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
            boolean digit = c >= '0' && c <= '9';
            if (i == 0 && digit) {
                b.append('_');
            }
            b.append(letter || digit ? c : '_');
        }
        return b.length() == 0 ? "_" : b.toString();
    }

    private static Schema rowSchema(
            String name,
            String namespace,
            String table,
            Map<String, String> columnTypes,
            Collection<String> keyColumns) {
        List<Schema.Field> fields = new ArrayList<>();
        Map<String, String> taken = new HashMap<>();
        columnTypes.forEach(
                (column, type) -> {
                    String fieldName = avroName(column);
                    String other = taken.putIfAbsent(fieldName, column);
                    if (other != null) {
                        throw new IllegalArgumentException(
                                "Columns "
                                        + other
                                        + " and "
                                        + column
                                        + " of table "
                                        + table
                                        + " both become Avro field "
                                        + fieldName);
                    }
                    Schema value = valueSchema(type);
                    boolean key = keyColumns.contains(column);
                    Schema.Field f =
                            key
                                    ? new Schema.Field(fieldName, value)
                                    : new Schema.Field(
                                            fieldName,
                                            Schema.createUnion(
                                                    Schema.create(Schema.Type.NULL), value),
                                            null,
                                            JsonProperties.NULL_VALUE);
                    f.addProp(SPANNER_TYPE, type);
                    if (!fieldName.equals(column)) {
                        f.addProp(SPANNER_NAME, column);
                    }
                    fields.add(f);
                });
        return Schema.createRecord(name, "Row of Spanner table " + table, namespace, false, fields);
    }

    /**
     * Datastream's Spanner source metadata, in a namespace of its own so that no table's records
     * share its name.
     */
    private static Schema sourceMetadataSchema() {
        return SchemaBuilder.record("SourceMetadata")
                .namespace(NAMESPACE + ".datastream")
                .fields()
                .name("commit_timestamp")
                .type(LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG)))
                .noDefault()
                .requiredBoolean("snapshot")
                .requiredString("project_id")
                .requiredString("instance_id")
                .requiredString("database_id")
                .requiredString("schema")
                .requiredString("table")
                .requiredString("change_stream_name")
                .requiredString("server_transaction_id")
                .requiredString("record_sequence")
                .requiredLong("mod_number")
                .requiredString("transaction_tag")
                .requiredLong("number_of_records_in_transaction")
                .requiredString("value_capture_type")
                .requiredString("change_type")
                .name("primary_keys")
                .type(Schema.createArray(Schema.create(Schema.Type.STRING)))
                .noDefault()
                .requiredBoolean("is_deleted")
                .endRecord();
    }

    private static Schema timestampMillis() {
        return LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
    }
}
