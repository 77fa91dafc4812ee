package io.spannercs.emulator.schema;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.util.Map;
import java.util.TreeMap;

/**
 * Spanner stores JSON normalized: no insignificant whitespace and object keys sorted. Values keep
 * their text (numbers are not reformatted).
 */
final class JsonNormalizer {
    private JsonNormalizer() {}

    /**
     * @throws IllegalArgumentException for text that is not JSON
     */
    static String normalize(String json) {
        try {
            StringBuilder sb = new StringBuilder();
            write(JsonParser.parseString(json), sb);
            return sb.toString();
        } catch (JsonParseException | IllegalStateException e) {
            throw new IllegalArgumentException("Invalid JSON value: " + e.getMessage());
        }
    }

    private static void write(JsonElement e, StringBuilder sb) {
        if (e.isJsonObject()) {
            JsonObject o = e.getAsJsonObject();
            Map<String, JsonElement> sorted = new TreeMap<>();
            for (Map.Entry<String, JsonElement> entry : o.entrySet()) {
                sorted.putIfAbsent(entry.getKey(), entry.getValue());
            }
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, JsonElement> entry : sorted.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                sb.append(new com.google.gson.JsonPrimitive(entry.getKey()));
                sb.append(':');
                write(entry.getValue(), sb);
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
        } else {
            sb.append(e);
        }
    }
}
