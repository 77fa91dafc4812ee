package io.spannercs.flink.format;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import org.apache.flink.annotation.Internal;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * The JSON forms that the Datastream and the Debezium JSON formats give alike to the Java values of
 * {@link SpannerValues}; where they differ (INT64, JSON, ARRAY), each format decides before it asks
 * here.
 *
 * <ul>
 *   <li>FLOAT64, FLOAT32: a number (a float with its own shortest digits); NaN and the infinities,
 *       which JSON lacks, as the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}.
 *   <li>NUMERIC: a string in plain notation with its scale; PostgreSQL's NaN as {@code "NaN"}.
 *   <li>BOOL: true or false. STRING (and UUID, INTERVAL): a string.
 *   <li>BYTES and PROTO: base64 (RFC 4648 with padding).
 *   <li>DATE: {@code yyyy-MM-dd}. TIMESTAMP: RFC 3339 in UTC with exactly nine fractional digits.
 * </ul>
 */
@Internal
public final class JsonScalars {
    /** Keeps BigDecimals as given: 2.50 must not become 2.5. */
    public static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    private static final DateTimeFormatter TIMESTAMP_NANOS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'")
                    .withZone(ZoneOffset.UTC);

    private JsonScalars() {}

    /**
     * The shared form of a non-null value that is not a whole number or a list.
     *
     * @throws IllegalArgumentException for a Java type {@link SpannerValues} does not produce
     */
    public static JsonNode write(Object value) {
        if (value instanceof Double) {
            double d = (Double) value;
            return Double.isFinite(d) ? NODES.numberNode(d) : NODES.textNode(nonFinite(d));
        }
        if (value instanceof Float) {
            float f = (Float) value;
            return Float.isFinite(f) ? NODES.numberNode(f) : NODES.textNode(nonFinite(f));
        }
        if (value instanceof BigDecimal) {
            return NODES.textNode(((BigDecimal) value).toPlainString());
        }
        if (value instanceof Boolean) {
            return NODES.booleanNode((Boolean) value);
        }
        if (value instanceof String) {
            return NODES.textNode((String) value);
        }
        if (value instanceof byte[]) {
            return NODES.textNode(Base64.getEncoder().encodeToString((byte[]) value));
        }
        if (value instanceof LocalDate) {
            return NODES.textNode(value.toString());
        }
        if (value instanceof Instant) {
            return NODES.textNode(timestamp((Instant) value));
        }
        throw new IllegalArgumentException(
                "No JSON form for a " + value.getClass().getName() + " value");
    }

    /** RFC 3339 in UTC with exactly nine fractional digits, so that timestamps compare as text. */
    public static String timestamp(Instant t) {
        return TIMESTAMP_NANOS.format(t);
    }

    private static String nonFinite(double d) {
        return Double.isNaN(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
    }
}
