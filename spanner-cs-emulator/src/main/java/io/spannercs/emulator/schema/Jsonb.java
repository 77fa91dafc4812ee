package io.spannercs.emulator.schema;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * PostgreSQL {@code jsonb} text in the normal form Spanner stores and returns: no insignificant
 * whitespace, object keys sorted by length and then byte by byte, the last of duplicate keys kept,
 * and numbers written without exponent (trailing zeros kept). This differs from GoogleSQL {@code
 * JSON}, whose keys sort lexicographically.
 */
public final class Jsonb {
    /** Shorter keys first, then unsigned byte order of the UTF-8 text, as PostgreSQL sorts. */
    private static final Comparator<String> KEY_ORDER =
            Comparator.<String>comparingInt(k -> k.getBytes(StandardCharsets.UTF_8).length)
                    .thenComparing(
                            (a, b) ->
                                    Arrays.compareUnsigned(
                                            a.getBytes(StandardCharsets.UTF_8),
                                            b.getBytes(StandardCharsets.UTF_8)));

    private Jsonb() {}

    /**
     * @throws IllegalArgumentException for text that is not JSON
     */
    public static String normalize(String json) {
        try {
            return write(JsonText.parse(json));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid JSONB value: " + e.getMessage());
        }
    }

    /** Writes a JSON tree in normal form. */
    public static String write(JsonElement e) {
        StringBuilder sb = new StringBuilder();
        write(e, sb);
        return sb.toString();
    }

    private static void write(JsonElement e, StringBuilder sb) {
        if (e.isJsonObject()) {
            JsonObject o = e.getAsJsonObject();
            // Gson keeps the last value of a duplicated key, as jsonb does.
            List<String> keys = new ArrayList<>(o.keySet());
            keys.sort(KEY_ORDER);
            sb.append('{');
            for (int i = 0; i < keys.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(new JsonPrimitive(keys.get(i)));
                sb.append(':');
                write(o.get(keys.get(i)), sb);
            }
            sb.append('}');
        } else if (e.isJsonArray()) {
            JsonArray a = e.getAsJsonArray();
            sb.append('[');
            for (int i = 0; i < a.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(a.get(i), sb);
            }
            sb.append(']');
        } else if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
            sb.append(plainNumber(e.getAsJsonPrimitive().getAsNumber()));
        } else {
            sb.append(e);
        }
    }

    /** A JSON number without exponent, its scale kept ({@code 1.50} stays {@code 1.50}). */
    private static String plainNumber(Number n) {
        BigDecimal d = n instanceof BigDecimal ? (BigDecimal) n : new BigDecimal(n.toString());
        return d.toPlainString();
    }

    /** A double as a jsonb number: the shortest text that reads back as the same double. */
    public static JsonPrimitive number(double d) {
        // Double.toString reads back as the same double; write() drops its exponent.
        return new JsonPrimitive(new BigDecimal(Double.toString(d)).stripTrailingZeros());
    }
}
