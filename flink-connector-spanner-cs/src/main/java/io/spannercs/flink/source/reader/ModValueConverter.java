package io.spannercs.flink.source.reader;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.SpannerTypeNames;
import io.spannercs.flink.format.SpannerValues;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.UnknownValueHandling;
import io.spannercs.flink.source.record.ColumnInfo;
import io.spannercs.flink.source.record.DataChangeRecord;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * Turns a data change record's wire values and mod type into typed values and a {@link ChangeType},
 * applying the source's {@link UnknownValueHandling} to types and mod types this connector does not
 * know. Every failure names the table, column, partition and commit timestamp, so a job that fails
 * on a record says which one and what to do.
 */
@Internal
final class ModValueConverter {
    private static final JsonFormat.Printer JSON =
            JsonFormat.printer().omittingInsignificantWhitespace();

    private final UnknownValueHandling handling;

    ModValueConverter(UnknownValueHandling handling) {
        this.handling = handling;
    }

    /** The change type of the record's mod type. */
    ChangeType changeType(DataChangeRecord d, String partition) {
        switch (d.modType()) {
            case "INSERT":
                return ChangeType.INSERT;
            case "UPDATE":
                return ChangeType.UPDATE;
            case "DELETE":
                return ChangeType.DELETE;
            default:
                if (handling == UnknownValueHandling.RAW) {
                    return ChangeType.UNKNOWN;
                }
                throw new UnknownValueException(
                        where(d, partition)
                                + ": mod type '"
                                + d.modType()
                                + "' is unknown to this connector (a newer Spanner?). Upgrade the"
                                + " connector, or pass such changes on as ChangeType.UNKNOWN with"
                                + " unknownValueHandling RAW (SQL: 'scan.unknown-values' = 'raw').");
        }
    }

    /**
     * Typed values in the table's column order (ordinal position), whatever order the record lists
     * them in: PostgreSQL's JSONB records, for one, sort object keys by length.
     */
    Map<String, Object> typed(
            DataChangeRecord d,
            String partition,
            List<ColumnInfo> columns,
            Map<String, Value> values) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (values.isEmpty()) {
            return out;
        }
        for (ColumnInfo c : columns) {
            Value v = values.get(c.name());
            if (v != null) {
                out.put(c.name(), convert(d, partition, c, v));
            }
        }
        if (out.size() != values.size()) {
            for (String name : values.keySet()) {
                if (!out.containsKey(name)) {
                    throw new IllegalStateException(
                            where(d, partition)
                                    + ": the record has a value for column "
                                    + name
                                    + " but no metadata for it");
                }
            }
        }
        return out;
    }

    private Object convert(DataChangeRecord d, String partition, ColumnInfo c, Value v) {
        if (!SpannerValues.isSupported(c.type())) {
            if (handling == UnknownValueHandling.RAW) {
                return raw(v);
            }
            throw new UnknownValueException(
                    where(d, partition)
                            + ", column "
                            + c.name()
                            + ": type "
                            + SpannerTypeNames.of(c.type())
                            + " is unknown to this connector (a newer Spanner?). Upgrade the"
                            + " connector, or pass such values on as their raw text with"
                            + " unknownValueHandling RAW (SQL: 'scan.unknown-values' = 'raw').");
        }
        try {
            return SpannerValues.toJava(c.type(), v);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    where(d, partition)
                            + ", column "
                            + c.name()
                            + " ("
                            + SpannerTypeNames.of(c.type())
                            + "): "
                            + e.getMessage(),
                    e);
        }
    }

    /** The wire value as text: a string as it is, anything else as its JSON. */
    static String raw(Value v) {
        if (v.hasNullValue()) {
            return null;
        }
        if (v.hasStringValue()) {
            return v.getStringValue();
        }
        try {
            return JSON.print(v);
        } catch (InvalidProtocolBufferException e) {
            return v.toString();
        }
    }

    private static String where(DataChangeRecord d, String partition) {
        return "Change record of table "
                + d.table()
                + " committed at "
                + Instant.ofEpochSecond(0, d.timestampMicros() * 1000)
                + " (transaction "
                + d.serverTransactionId()
                + ", partition "
                + partition
                + ")";
    }

    /**
     * A value or mod type this connector does not know, with {@link UnknownValueHandling#FAIL}: a
     * restart reads the same record again, so the job fails once, whatever exception the reader
     * wraps this in.
     */
    static final class UnknownValueException extends NonRecoverableSourceException {
        private static final long serialVersionUID = 1L;

        UnknownValueException(String message) {
            super(message);
        }
    }
}
