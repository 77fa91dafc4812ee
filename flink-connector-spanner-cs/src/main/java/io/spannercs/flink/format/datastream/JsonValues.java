package io.spannercs.flink.format.datastream;

import io.spannercs.flink.format.JsonScalars;
import io.spannercs.flink.format.SpannerValues;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParseException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes the Java values of {@link SpannerValues} as JSON and reads them back, by column type.
 *
 * <ul>
 *   <li>INT64 and ENUM: a string of the decimal number, as Spanner's own wire format and the
 *       reference's example do; JSON numbers are doubles to many readers, exact only below 2^53.
 *   <li>FLOAT64, FLOAT32: a number; NaN and the infinities, which JSON lacks, as the strings {@code
 *       "NaN"}, {@code "Infinity"}, {@code "-Infinity"} (Spanner's wire spelling). FLOAT32 is
 *       written with the float's own shortest digits.
 *   <li>NUMERIC: a string in plain notation, exact and with its scale; PostgreSQL's NaN as {@code
 *       "NaN"}.
 *   <li>BOOL: true or false. STRING: a string.
 *   <li>JSON: the JSON value itself, embedded (a declared JSON column only; see {@link
 *       DatastreamContext}).
 *   <li>BYTES and PROTO: base64 (RFC 4648 with padding).
 *   <li>DATE: {@code yyyy-MM-dd}. TIMESTAMP: RFC 3339 in UTC with exactly nine fractional digits,
 *       so that timestamps compare as strings.
 *   <li>ARRAY: an array of the elements written by element type; NULL elements as null.
 *   <li>NULL of any type: null.
 * </ul>
 *
 * <p>Reading needs the type to tell {@code "7"} the INT64 from {@code "7"} the STRING; values of
 * undeclared columns are read by their JSON form (string, Long or Double, Boolean, List, object as
 * JSON text).
 *
 * <p>The forms it shares with the Debezium format (all but INT64, JSON and ARRAY) come from {@link
 * JsonScalars}.
 */
@Internal
final class JsonValues {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private static final JsonNodeFactory NODES = JsonScalars.NODES;

    private JsonValues() {}

    /**
     * @param type the column's canonical type, or null when it is not declared
     * @throws IllegalArgumentException for a JSON column whose text is not JSON, or a Java type
     *     {@link SpannerValues} does not produce
     */
    static JsonNode write(Object value, String type) {
        if (value == null) {
            return NODES.nullNode();
        }
        if (value instanceof String && "JSON".equals(type)) {
            try {
                return parse((String) value);
            } catch (IOException e) {
                throw new IllegalArgumentException("JSON column value is not JSON: " + value, e);
            }
        }
        if (value instanceof List) {
            String element = elementType(type);
            ArrayNode array = NODES.arrayNode();
            for (Object e : (List<?>) value) {
                array.add(write(e, element));
            }
            return array;
        }
        if (value instanceof Long || value instanceof Integer) {
            return NODES.textNode(value.toString());
        }
        return JsonScalars.write(value);
    }

    /**
     * Parses JSON into a tree that keeps every number as written: integers exact at any size,
     * fractions as BigDecimals with their scale (2.50 stays 2.50, digits beyond a double's
     * precision stay), and a negative zero as -0.0, which a BigDecimal cannot hold. Jackson's own
     * tree reader offers either doubles or BigDecimals, and loses one or the other.
     *
     * @throws IOException for text that is not one JSON value
     */
    static JsonNode parse(String json) throws IOException {
        try (JsonParser p = MAPPER.getFactory().createParser(json)) {
            return parseAll(p);
        }
    }

    /** {@link #parse(String)} for UTF-8 bytes. */
    static JsonNode parse(byte[] json) throws IOException {
        try (JsonParser p = MAPPER.getFactory().createParser(json)) {
            return parseAll(p);
        }
    }

    private static JsonNode parseAll(JsonParser p) throws IOException {
        if (p.nextToken() == null) {
            throw new JsonParseException(p, "No JSON value");
        }
        JsonNode root = parseValue(p);
        if (p.nextToken() != null) {
            throw new JsonParseException(p, "Text after the JSON value");
        }
        return root;
    }

    private static JsonNode parseValue(JsonParser p) throws IOException {
        switch (p.currentToken()) {
            case START_OBJECT:
                {
                    ObjectNode o = NODES.objectNode();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        p.nextToken();
                        o.set(name, parseValue(p));
                    }
                    return o;
                }
            case START_ARRAY:
                {
                    ArrayNode a = NODES.arrayNode();
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        a.add(parseValue(p));
                    }
                    return a;
                }
            case VALUE_STRING:
                return NODES.textNode(p.getText());
            case VALUE_NUMBER_INT:
                return NODES.numberNode(p.getBigIntegerValue());
            case VALUE_NUMBER_FLOAT:
                {
                    BigDecimal d = p.getDecimalValue();
                    return d.signum() == 0 && p.getText().startsWith("-")
                            ? NODES.numberNode(-0.0)
                            : NODES.numberNode(d);
                }
            case VALUE_TRUE:
                return NODES.booleanNode(true);
            case VALUE_FALSE:
                return NODES.booleanNode(false);
            case VALUE_NULL:
                return NODES.nullNode();
            default:
                throw new JsonParseException(p, "Unexpected " + p.currentToken());
        }
    }

    /**
     * @param type the column's canonical type, or null to read the value by its JSON form
     * @throws IllegalArgumentException when the JSON does not fit the type, naming both
     */
    static Object read(JsonNode node, String type) {
        if (node == null || node.isNull()) {
            return null;
        }
        try {
            String base = type == null ? null : baseType(type);
            if (base == null) {
                return readUntyped(node);
            }
            switch (base) {
                case "INT64":
                case "ENUM":
                    return node.isTextual() ? Long.parseLong(node.textValue()) : node.longValue();
                case "FLOAT64":
                    return readDouble(node);
                case "FLOAT32":
                    return readFloat(node);
                case "NUMERIC":
                    if (node.isTextual() && node.textValue().equals("NaN")) {
                        return Double.NaN; // PostgreSQL numeric, as SpannerValues reads it
                    }
                    return node.isTextual()
                            ? new BigDecimal(node.textValue())
                            : node.decimalValue();
                case "BOOL":
                    if (!node.isBoolean()) {
                        throw new IllegalArgumentException("not a boolean");
                    }
                    return node.booleanValue();
                case "STRING":
                case "UUID":
                case "INTERVAL":
                    return text(node);
                case "JSON":
                    return MAPPER.writeValueAsString(node);
                case "BYTES":
                case "PROTO":
                    return Base64.getDecoder().decode(text(node));
                case "DATE":
                    return LocalDate.parse(text(node));
                case "TIMESTAMP":
                    return Instant.parse(text(node));
                case "ARRAY":
                    {
                        if (!node.isArray()) {
                            throw new IllegalArgumentException("not an array");
                        }
                        String element = elementType(type);
                        List<Object> out = new ArrayList<>(node.size());
                        for (JsonNode e : node) {
                            out.add(read(e, element));
                        }
                        return Collections.unmodifiableList(out);
                    }
                default:
                    return readUntyped(node); // a type this version does not know
            }
        } catch (RuntimeException | IOException e) {
            throw new IllegalArgumentException("JSON " + node + " is not a valid " + type, e);
        }
    }

    private static String text(JsonNode node) {
        if (!node.isTextual()) {
            throw new IllegalArgumentException("not a string");
        }
        return node.textValue();
    }

    private static double readDouble(JsonNode node) {
        if (node.isTextual()) {
            switch (node.textValue()) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    return Double.parseDouble(node.textValue());
            }
        }
        if (!node.isNumber()) {
            throw new IllegalArgumentException("not a number");
        }
        // From the exact digits: one rounding, to the double they were written from.
        return Double.parseDouble(node.asText());
    }

    private static float readFloat(JsonNode node) {
        if (node.isNumber()) {
            return Float.parseFloat(node.asText()); // rounding via double could differ
        }
        return (float) readDouble(node);
    }

    private static Object readUntyped(JsonNode node) throws JsonProcessingException {
        if (node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return node.longValue();
        }
        if (node.isNumber()) {
            return Double.parseDouble(node.asText());
        }
        if (node.isArray()) {
            List<Object> out = new ArrayList<>(node.size());
            for (JsonNode e : node) {
                out.add(readUntyped(e));
            }
            return Collections.unmodifiableList(out);
        }
        return MAPPER.writeValueAsString(node);
    }

    /** {@code ARRAY<T>} gives T; anything else null. */
    private static String elementType(String type) {
        return type != null && type.startsWith("ARRAY<") && type.endsWith(">")
                ? type.substring(6, type.length() - 1)
                : null;
    }

    /** {@code ARRAY<..>} gives ARRAY, {@code PROTO<x.Y>} PROTO, and so on. */
    private static String baseType(String type) {
        int open = type.indexOf('<');
        return open < 0 ? type : type.substring(0, open);
    }
}
