package io.spannercs.flink.format.debezium;

import io.spannercs.flink.format.JsonScalars;
import io.spannercs.flink.format.SpannerValues;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes the Java values of {@link SpannerValues} as the Debezium envelope holds them, in the forms
 * Flink's {@code json} and {@code debezium-json} formats read back exactly:
 *
 * <ul>
 *   <li>INT64 and ENUM: a JSON number (exact: Flink and Debezium read it as a long).
 *   <li>FLOAT64, FLOAT32: a number; NaN and the infinities as the strings {@code "NaN"}, {@code
 *       "Infinity"}, {@code "-Infinity"}, which Flink parses into DOUBLE and FLOAT.
 *   <li>NUMERIC: a string in plain notation with its scale (Flink's DECIMAL reads it exactly;
 *       PostgreSQL's NaN as {@code "NaN"}, which DECIMAL cannot hold).
 *   <li>BOOL: true or false. STRING, UUID, INTERVAL: a string.
 *   <li>JSON: the JSON document as a string, as Debezium's {@code io.debezium.data.Json} does (a
 *       Flink STRING column gets the text as it is; an embedded string value would lose its
 *       quotes).
 *   <li>BYTES and PROTO: base64 (Flink's BYTES reads base64).
 *   <li>DATE: {@code yyyy-MM-dd}. TIMESTAMP: RFC 3339 in UTC with nine fractional digits, which
 *       Flink reads into TIMESTAMP_LTZ(9) with {@code timestamp-format.standard = 'ISO-8601'}.
 *   <li>ARRAY: an array of the elements in their forms; NULL elements as null.
 * </ul>
 *
 * <p>Every form follows from the Java type alone, so no column types are needed. The forms it
 * shares with the Datastream format come from {@link JsonScalars}.
 */
@Internal
final class DebeziumValues {
    static final JsonNodeFactory NODES = JsonScalars.NODES;

    private DebeziumValues() {}

    /** Puts every column of {@code values} into {@code target}, naming the column on failure. */
    static void putAll(ObjectNode target, Map<String, Object> values) {
        values.forEach(
                (column, value) -> {
                    try {
                        target.set(column, write(value));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(
                                "Column " + column + ": " + e.getMessage(), e);
                    }
                });
    }

    /**
     * @throws IllegalArgumentException for a Java type {@link SpannerValues} does not produce
     */
    static JsonNode write(Object value) {
        if (value == null) {
            return NODES.nullNode();
        }
        if (value instanceof Long || value instanceof Integer) {
            return NODES.numberNode(((Number) value).longValue());
        }
        if (value instanceof List) {
            ArrayNode array = NODES.arrayNode();
            for (Object e : (List<?>) value) {
                array.add(write(e));
            }
            return array;
        }
        return JsonScalars.write(value);
    }
}
