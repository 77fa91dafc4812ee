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
}
