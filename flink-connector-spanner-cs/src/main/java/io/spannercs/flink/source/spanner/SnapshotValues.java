package io.spannercs.flink.source.spanner;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Interval;
import com.google.cloud.spanner.StructReader;
import com.google.cloud.spanner.Type;
import com.google.cloud.spanner.Value;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;

/**
 * Java values and type names of the columns of a snapshot read, the same as change records give for
 * the same columns ({@link io.spannercs.flink.format.SpannerValues}, {@link
 * io.spannercs.flink.format.SpannerTypeNames}): a snapshot row and a later change of it look alike.
 */
@Internal
public final class SnapshotValues {
    private SnapshotValues() {}

    /** The type's name as {@link io.spannercs.flink.format.SpannerTypeNames} spells it. */
    public static String typeName(Type type) {
        switch (type.getCode()) {
            case ARRAY:
                return "ARRAY<" + typeName(type.getArrayElementType()) + ">";
            case PROTO:
            case ENUM:
                return type.getCode().name() + "<" + type.getProtoTypeFqn() + ">";
            default:
                return type.getCode().name();
        }
    }

    /** The column's value in the current row. */
    public static Object value(StructReader row, int column) {
        if (row.isNull(column)) {
            return null;
        }
        return value(row.getValue(column));
    }

    private static Object value(Value v) {
        if (v.isNull()) {
            return null;
        }
        Type type = v.getType();
        switch (type.getCode()) {
            case INT64:
            case PG_OID:
                return v.getInt64();
            case ENUM:
                return Long.parseLong(v.getAsString());
            case FLOAT64:
                return v.getFloat64();
            case FLOAT32:
                return v.getFloat32();
            case NUMERIC:
                return v.getNumeric();
            case PG_NUMERIC:
                return pgNumeric(v.getString());
            case BOOL:
                return v.getBool();
            case STRING:
                return v.getString();
            case JSON:
                return v.getJson();
            case PG_JSONB:
                return v.getPgJsonb();
            case BYTES:
            case PROTO:
                return v.getBytes().toByteArray();
            case DATE:
                return date(v.getDate());
            case TIMESTAMP:
                return instant(v.getTimestamp());
            case UUID:
                return v.getUuid().toString();
            case INTERVAL:
                return v.getInterval().toISO8601();
            case ARRAY:
                return array(v, type.getArrayElementType());
            default:
                return v.getAsString(); // a type newer than this connector: its text
        }
    }

    private static List<Object> array(Value v, Type element) {
        switch (element.getCode()) {
            case INT64:
            case PG_OID:
                return list(v.getInt64Array(), x -> x);
            case FLOAT64:
                return list(v.getFloat64Array(), x -> x);
            case FLOAT32:
                return list(v.getFloat32Array(), x -> x);
            case NUMERIC:
                return list(v.getNumericArray(), x -> x);
            case PG_NUMERIC:
                return list(v.getStringArray(), SnapshotValues::pgNumeric);
            case BOOL:
                return list(v.getBoolArray(), x -> x);
            case STRING:
                return list(v.getStringArray(), x -> x);
            case JSON:
                return list(v.getJsonArray(), x -> x);
            case PG_JSONB:
                return list(v.getPgJsonbArray(), x -> x);
            case BYTES:
            case PROTO:
                return list(v.getBytesArray(), ByteArray::toByteArray);
            case DATE:
                return list(v.getDateArray(), SnapshotValues::date);
            case TIMESTAMP:
                return list(v.getTimestampArray(), SnapshotValues::instant);
            case UUID:
                return list(v.getUuidArray(), java.util.UUID::toString);
            case INTERVAL:
                return list(v.getIntervalArray(), Interval::toISO8601);
            default:
                return list(v.getAsStringList(), x -> x);
        }
    }

    private static <A> List<Object> list(List<A> in, Function<A, Object> convert) {
        List<Object> out = new ArrayList<>(in.size());
        for (A a : in) {
            out.add(a == null ? null : convert.apply(a));
        }
        return Collections.unmodifiableList(out);
    }

    /** PostgreSQL's numeric: its NaN as Double.NaN, as change records give it. */
    private static Object pgNumeric(String text) {
        return text.equals("NaN") ? Double.NaN : new BigDecimal(text);
    }

    private static LocalDate date(Date d) {
        return LocalDate.of(d.getYear(), d.getMonth(), d.getDayOfMonth());
    }

    private static Instant instant(Timestamp t) {
        return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
    }
}
