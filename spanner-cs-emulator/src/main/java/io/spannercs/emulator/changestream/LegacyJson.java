package io.spannercs.emulator.changestream;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord;
import com.google.spanner.v1.Type;
import java.util.List;

/** JSON texts of legacy change records: column type descriptions and mod value objects. */
final class LegacyJson {
    private LegacyJson() {}

    /**
     * E.g. {@code {"code":"INT64"}} or {@code
     * {"array_element_type":{"code":"STRING"},"code":"ARRAY"}}.
     */
    static String typeJson(Type type) {
        StringBuilder sb = new StringBuilder("{");
        if (type.hasArrayElementType()) {
            sb.append("\"array_element_type\":")
                    .append(typeJson(type.getArrayElementType()))
                    .append(',');
        }
        sb.append("\"code\":\"").append(type.getCode().name()).append("\"}");
        return sb.toString();
    }

    /** A JSON object of column name to value, values in Spanner's wire encoding. */
    static String valuesJson(DataChangeRecord record, List<DataChangeRecord.ModValue> values) {
        // Google's emulator writes the object with its keys sorted.
        java.util.TreeMap<String, Value> sorted = new java.util.TreeMap<>();
        for (DataChangeRecord.ModValue v : values) {
            sorted.put(
                    record.getColumnMetadata(v.getColumnMetadataIndex()).getName(), v.getValue());
        }
        StringBuilder sb = new StringBuilder("{");
        for (java.util.Map.Entry<String, Value> e : sorted.entrySet()) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append(quote(e.getKey())).append(':').append(valueJson(e.getValue()));
        }
        return sb.append('}').toString();
    }

    static String valueJson(Value v) {
        try {
            return JsonFormat.printer().omittingInsignificantWhitespace().print(v);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String quote(String s) {
        return valueJson(Value.newBuilder().setStringValue(s).build());
    }
}
