package io.spannercs.flink.format.avro;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * Reads Avro generic values back into the Java types of change events, independently of the
 * converter: the tests compare through it.
 */
final class AvroDecoding {
    private AvroDecoding() {}

    /** The row's fields by Spanner column name, decoded. */
    static Map<String, Object> row(GenericRecord row) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Schema.Field f : row.getSchema().getFields()) {
            String name = f.getProp(SpannerAvroSchemas.SPANNER_NAME);
            out.put(name == null ? f.name() : name, value(f.schema(), row.get(f.pos())));
        }
        return out;
    }

    static Object value(Schema schema, Object v) {
        if (v == null) {
            return null;
        }
        if (schema.getType() == Schema.Type.UNION) {
            for (Schema branch : schema.getTypes()) {
                if (branch.getType() != Schema.Type.NULL) {
                    return value(branch, v);
                }
            }
        }
        switch (schema.getType()) {
            case STRING:
                return v.toString();
            case BYTES:
                {
                    ByteBuffer b = ((ByteBuffer) v).duplicate();
                    byte[] bytes = new byte[b.remaining()];
                    b.get(bytes);
                    if (schema.getLogicalType() instanceof LogicalTypes.Decimal d) {
                        return new BigDecimal(new BigInteger(bytes), d.getScale());
                    }
                    return bytes;
                }
            case INT:
                return schema.getLogicalType() instanceof LogicalTypes.Date
                        ? LocalDate.ofEpochDay((Integer) v)
                        : v;
            case LONG:
                if (schema.getLogicalType() instanceof LogicalTypes.TimestampMicros) {
                    long micros = (Long) v;
                    return Instant.ofEpochSecond(
                            Math.floorDiv(micros, 1_000_000L),
                            Math.floorMod(micros, 1_000_000L) * 1000L);
                }
                return v;
            case ARRAY:
                {
                    List<Object> out = new ArrayList<>();
                    for (Object e : (List<?>) v) {
                        out.add(value(schema.getElementType(), e));
                    }
                    return out;
                }
            default:
                return v;
        }
    }

    /**
     * What a Java value of a change event (SpannerValues' types) reads back as after Avro, per the
     * documented mapping: NUMERIC at scale 9, timestamps down to the microsecond (toward the past),
     * PostgreSQL numeric as its text.
     */
    static Object expected(String spannerType, Object v) {
        if (v == null) {
            return null;
        }
        if (spannerType.startsWith("ARRAY<")) {
            String element = spannerType.substring(6, spannerType.length() - 1);
            List<Object> out = new ArrayList<>();
            ((List<?>) v).forEach(e -> out.add(expected(element, e)));
            return out;
        }
        switch (spannerType) {
            case "NUMERIC":
                return ((BigDecimal) v).setScale(9);
            case "PG_NUMERIC":
                return v instanceof Double ? "NaN" : ((BigDecimal) v).toPlainString();
            case "TIMESTAMP":
                {
                    Instant t = (Instant) v;
                    return t.minusNanos(t.getNano() % 1000);
                }
            default:
                return v;
        }
    }

    /** Equality with NaN equal to itself (Double.equals), arrays and lists by content. */
    static boolean sameValue(Object a, Object b) {
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!sameValue(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return Objects.deepEquals(a, b);
    }
}
