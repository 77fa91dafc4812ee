package io.spannercs.flink.table;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Converts the Java values of {@link io.spannercs.flink.format.SpannerValues} to Flink's internal
 * data for a declared column type (checked against Spanner's type at planning by {@link
 * SpannerTypeMapping}).
 */
@Internal
final class SpannerValueConverters {
    private SpannerValueConverters() {}

    /** Converts one non-null value. */
    interface Converter extends Serializable {
        Object convert(Object value);
    }

    /** A converter for the column; its errors name the column. */
    static Converter create(String column, LogicalType type) {
        Converter c = forType(column, type);
        return value -> value == null ? null : c.convert(value);
    }

    private static Converter forType(String column, LogicalType type) {
        switch (type.getTypeRoot()) {
            case BIGINT:
            case DOUBLE:
            case BOOLEAN:
            case BINARY:
            case VARBINARY:
                return v -> v; // Long, Double, Boolean and byte[] are Flink's internal types
            case FLOAT:
                return v -> ((Number) v).floatValue();
            case CHAR:
            case VARCHAR:
                return v ->
                        StringData.fromString(
                                v instanceof BigDecimal
                                        ? ((BigDecimal) v).toPlainString()
                                        : v.toString());
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) type;
                    return v -> decimal(column, v, d);
                }
            case DATE:
                return v -> (int) ((LocalDate) v).toEpochDay();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    int precision = ((LocalZonedTimestampType) type).getPrecision();
                    return v -> TimestampData.fromInstant(truncate((Instant) v, precision));
                }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                {
                    // Spanner timestamps are instants; without a time zone they are shown in UTC.
                    int precision = ((TimestampType) type).getPrecision();
                    return v ->
                            TimestampData.fromLocalDateTime(
                                    LocalDateTime.ofInstant(
                                            truncate((Instant) v, precision), ZoneOffset.UTC));
                }
            case ARRAY:
                {
                    Converter element = create(column, ((ArrayType) type).getElementType());
                    return v -> {
                        List<?> list = (List<?>) v;
                        Object[] out = new Object[list.size()];
                        for (int i = 0; i < out.length; i++) {
                            out[i] = element.convert(list.get(i));
                        }
                        return new GenericArrayData(out);
                    };
                }
            default:
                throw new IllegalArgumentException(
                        "Column '" + column + "' has unsupported type " + type.asSummaryString());
        }
    }

    private static DecimalData decimal(String column, Object v, DecimalType type) {
        if (!(v instanceof BigDecimal)) {
            // PostgreSQL numeric's NaN arrives as a Double; DECIMAL has no NaN.
            throw new IllegalArgumentException(
                    "Column '" + column + "': " + v + " does not fit " + type.asSummaryString());
        }
        DecimalData d =
                DecimalData.fromBigDecimal((BigDecimal) v, type.getPrecision(), type.getScale());
        if (d == null) {
            throw new IllegalArgumentException(
                    "Column '"
                            + column
                            + "': "
                            + ((BigDecimal) v).toPlainString()
                            + " does not fit "
                            + type.asSummaryString()
                            + "; declare a wider DECIMAL");
        }
        return d;
    }

    private static Instant truncate(Instant i, int precision) {
        long unit = 1;
        for (int p = precision; p < 9; p++) {
            unit *= 10;
        }
        return unit == 1 ? i : i.minusNanos(i.getNano() % unit);
    }
}
