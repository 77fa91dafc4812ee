package io.spannercs.flink.format;

import com.google.protobuf.Value;
import com.google.spanner.v1.Type;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Converts Spanner wire values ({@code google.protobuf.Value}) to Java values by column type:
 *
 * <table>
 *   <caption>Java types of Spanner values</caption>
 *   <tr><th>Spanner</th><th>Java</th></tr>
 *   <tr><td>INT64</td><td>Long</td></tr>
 *   <tr><td>FLOAT64</td><td>Double (NaN and infinities included)</td></tr>
 *   <tr><td>FLOAT32</td><td>Float</td></tr>
 *   <tr><td>NUMERIC (and PostgreSQL numeric)</td><td>BigDecimal; PostgreSQL's NaN as Double.NaN</td></tr>
 *   <tr><td>BOOL</td><td>Boolean</td></tr>
 *   <tr><td>STRING, JSON (and PostgreSQL jsonb)</td><td>String (JSON as its text)</td></tr>
 *   <tr><td>BYTES, PROTO</td><td>byte[]</td></tr>
 *   <tr><td>ENUM</td><td>Long (the enum number)</td></tr>
 *   <tr><td>DATE</td><td>LocalDate</td></tr>
 *   <tr><td>TIMESTAMP</td><td>Instant (nanosecond precision)</td></tr>
 *   <tr><td>ARRAY</td><td>unmodifiable List of the element type, NULL elements as null</td></tr>
 *   <tr><td>NULL of any type</td><td>null</td></tr>
 * </table>
 */
@PublicEvolving
public final class SpannerValues {
    private SpannerValues() {}

    /**
     * @throws IllegalArgumentException when the value does not fit the type, naming both
     */
    public static Object toJava(Type type, Value v) {
        if (v == null || v.hasNullValue()) {
            return null;
        }
        try {
            switch (type.getCode()) {
                case INT64:
                case ENUM:
                    return v.hasNumberValue()
                            ? (long) v.getNumberValue()
                            : Long.parseLong(v.getStringValue());
                case FLOAT64:
                    return toDouble(v);
                case FLOAT32:
                    return (float) toDouble(v);
                case NUMERIC:
                    if (v.hasStringValue() && v.getStringValue().equals("NaN")) {
                        return Double.NaN; // PostgreSQL numeric only; BigDecimal has no NaN
                    }
                    return new BigDecimal(
                            v.hasNumberValue()
                                    ? Double.toString(v.getNumberValue())
                                    : v.getStringValue());
                case BOOL:
                    return v.getBoolValue();
                case STRING:
                case JSON:
                    return v.getStringValue();
                case BYTES:
                case PROTO:
                    return Base64.getDecoder().decode(v.getStringValue());
                case DATE:
                    return LocalDate.parse(v.getStringValue());
                case TIMESTAMP:
                    return Instant.parse(v.getStringValue());
                case ARRAY:
                    {
                        List<Object> out = new ArrayList<>(v.getListValue().getValuesCount());
                        for (Value e : v.getListValue().getValuesList()) {
                            out.add(toJava(type.getArrayElementType(), e));
                        }
                        return Collections.unmodifiableList(out);
                    }
                default:
                    throw new IllegalArgumentException(
                            "Unsupported Spanner type " + type.getCode());
            }
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException
                    && e.getMessage() != null
                    && e.getMessage().startsWith("Unsupported Spanner type")) {
                throw e;
            }
            throw new IllegalArgumentException(
                    "Value " + v.toString().trim() + " is not a valid " + type.getCode(), e);
        }
    }

    private static double toDouble(Value v) {
        if (v.hasNumberValue()) {
            return v.getNumberValue();
        }
        switch (v.getStringValue()) {
            case "NaN":
                return Double.NaN;
            case "Infinity":
                return Double.POSITIVE_INFINITY;
            case "-Infinity":
                return Double.NEGATIVE_INFINITY;
            default:
                return Double.parseDouble(v.getStringValue());
        }
    }
}
