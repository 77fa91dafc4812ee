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
 *   <tr><td>UUID, INTERVAL</td><td>String (Spanner's text: lowercase UUID, ISO 8601 duration)</td></tr>
 *   <tr><td>BYTES, PROTO</td><td>byte[]</td></tr>
 *   <tr><td>ENUM</td><td>Long (the enum number)</td></tr>
 *   <tr><td>DATE</td><td>LocalDate</td></tr>
 *   <tr><td>TIMESTAMP</td><td>Instant (nanosecond precision)</td></tr>
 *   <tr><td>ARRAY</td><td>unmodifiable List of the element type, NULL elements as null</td></tr>
 *   <tr><td>NULL of any type</td><td>null</td></tr>
 * </table>
 *
 * <p>Google's Cloud Spanner emulator writes a NULL array element as the text {@code "NULL"}. Where
 * that text cannot be a value of the element type (every type but STRING and BYTES, where it is
 * ambiguous and kept as it is; JSON's null is {@code null}, never {@code NULL}) it is read as null.
 *
 * <p>Other type codes (a type newer than this connector) are not supported: {@link #isSupported}
 * tells, and the source's {@code UnknownValueHandling} decides what happens to their values.
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
        if (!isSupported(type)) {
            throw new IllegalArgumentException(
                    "Unsupported Spanner type " + SpannerTypeNames.of(type));
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
                case UUID:
                case INTERVAL:
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
                        Type element = type.getArrayElementType();
                        boolean nullText = readsNullText(element);
                        for (Value e : v.getListValue().getValuesList()) {
                            out.add(
                                    nullText
                                                    && e.hasStringValue()
                                                    && e.getStringValue().equals("NULL")
                                            ? null
                                            : toJava(element, e));
                        }
                        return Collections.unmodifiableList(out);
                    }
                default:
                    throw new IllegalArgumentException(
                            "Unsupported Spanner type " + SpannerTypeNames.of(type));
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

    /** Whether values of the type (and, for arrays, of its elements) can be converted. */
    public static boolean isSupported(Type type) {
        switch (type.getCode()) {
            case INT64:
            case ENUM:
            case FLOAT64:
            case FLOAT32:
            case NUMERIC:
            case BOOL:
            case STRING:
            case JSON:
            case UUID:
            case INTERVAL:
            case BYTES:
            case PROTO:
            case DATE:
            case TIMESTAMP:
                return true;
            case ARRAY:
                return isSupported(type.getArrayElementType());
            default:
                return false;
        }
    }

    /** Whether the text "NULL" can only be Google's emulator's NULL element for the type. */
    private static boolean readsNullText(Type element) {
        switch (element.getCode()) {
            case STRING:
            case BYTES:
            case PROTO:
                return false;
            default:
                return true;
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
