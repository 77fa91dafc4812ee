package io.spannercs.flink.format.avro;

import org.apache.avro.generic.GenericRecord;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;

/**
 * Buckets change event records ({@link SpannerAvroSchemas}) by table, then by schema: bucket {@code
 * <table>/<schema_key>}. A table's files stay in one directory, and each file holds one schema even
 * when the table's columns change (DDL) or, under the value capture types NEW_VALUES and
 * OLD_AND_NEW_VALUES, when updates describe only their written columns. Characters of the table
 * name other than letters, digits, {@code _}, {@code .} and {@code -} become {@code _}.
 */
@PublicEvolving
public final class TableBucketAssigner implements BucketAssigner<GenericRecord, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getBucketId(GenericRecord record, Context context) {
        return directoryName(String.valueOf(record.get("object"))) + "/" + record.get("schema_key");
    }

    @Override
    public SimpleVersionedSerializer<String> getSerializer() {
        return SimpleVersionedStringSerializer.INSTANCE;
    }

    static String directoryName(String table) {
        StringBuilder b = new StringBuilder(table.length());
        for (int i = 0; i < table.length(); i++) {
            char c = table.charAt(i);
            boolean keep =
                    (c >= 'a' && c <= 'z')
                            || (c >= 'A' && c <= 'Z')
                            || (c >= '0' && c <= '9')
                            || c == '_'
                            || c == '.'
                            || c == '-';
            b.append(keep ? c : '_');
        }
        String name = b.toString();
        return name.isEmpty() || name.equals(".") || name.equals("..") ? "_" + name : name;
    }

    @Override
    public String toString() {
        return "TableBucketAssigner";
    }
}
