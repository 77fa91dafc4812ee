package io.spannercs.flink.format.avro;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Turns the Java values of change events (see {@link io.spannercs.flink.format.SpannerValues}) into
 * Avro's generic representation for the field types of {@link SpannerAvroSchemas}: decimals as
 * big-endian two's-complement unscaled bytes, dates as days and timestamps as microseconds since
 * the epoch, byte arrays as ByteBuffers. No logical-type conversion objects are needed to write or
 * read them.
 */
final class AvroValues {
    private AvroValues() {}

    /**
     * @param schema the field's schema; a union with null is resolved here
     * @param column names the column in error messages
     * @throws IllegalArgumentException when the value does not fit the schema
     */
    static Object toAvro(Schema schema, Object value, String column) {
        if (value == null) {
            if (schema.isNullable()) {
                return null;
            }
            throw new IllegalArgumentException(
                    "Column " + column + " is NULL but its Avro type " + schema + " is not");
        }
        Schema s = nonNull(schema);
        LogicalType logical = s.getLogicalType();
        try {
            switch (s.getType()) {
                case LONG:
                    if (logical instanceof LogicalTypes.TimestampMicros) {
                        return micros((Instant) value);
                    }
                    return (Long) value;
                case INT:
                    return Math.toIntExact(((LocalDate) value).toEpochDay());
                case DOUBLE:
                    return (Double) value;
                case FLOAT:
                    return (Float) value;
                case BOOLEAN:
                    return (Boolean) value;
                case STRING:
                    return string(value);
                case BYTES:
                    if (logical instanceof LogicalTypes.Decimal d) {
                        return decimal((BigDecimal) value, d);
                    }
                    return ByteBuffer.wrap((byte[]) value);
                case ARRAY:
                    {
                        List<?> in = (List<?>) value;
                        List<Object> out = new ArrayList<>(in.size());
                        for (Object element : in) {
                            out.add(toAvro(s.getElementType(), element, column + "[]"));
                        }
                        return out;
                    }
                default:
                    throw new IllegalArgumentException("Unexpected Avro type " + s);
            }
        } catch (ClassCastException | ArithmeticException e) {
            throw new IllegalArgumentException(
                    "Column " + column + ": value " + value + " does not fit Avro type " + s, e);
        }
    }

    /** Microseconds since the epoch, rounded down: Avro 1.11 has nothing finer. */
    static long micros(Instant i) {
        return Math.addExact(
                Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
    }

    private static Object string(Object value) {
        if (value instanceof BigDecimal d) {
            return d.toPlainString(); // PostgreSQL numeric: keep the scale as written
        }
        if (value instanceof Double d && d.isNaN()) {
            return "NaN"; // PostgreSQL numeric's NaN
        }
        return (String) value;
    }

    private static ByteBuffer decimal(BigDecimal value, LogicalTypes.Decimal type) {
        // setScale with UNNECESSARY fails rather than round a value that does not fit
        BigDecimal scaled = value.setScale(type.getScale(), RoundingMode.UNNECESSARY);
        if (scaled.precision() > type.getPrecision()) {
            throw new ArithmeticException("more than " + type.getPrecision() + " digits");
        }
        return ByteBuffer.wrap(scaled.unscaledValue().toByteArray());
    }

    private static Schema nonNull(Schema schema) {
        if (schema.getType() != Schema.Type.UNION) {
            return schema;
        }
        for (Schema branch : schema.getTypes()) {
            if (branch.getType() != Schema.Type.NULL) {
                return branch;
            }
        }
        throw new IllegalArgumentException("Union without a non-null branch: " + schema);
    }
}
