package io.spannercs.flink.table;

import io.spannercs.flink.format.ChangeEvent;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;

/** The metadata columns of a {@code spanner-cdc} table, each read from the {@link ChangeEvent}. */
@Internal
public enum SpannerCdcMetadata {
    COMMIT_TIMESTAMP(
            "commit_timestamp",
            DataTypes.TIMESTAMP_LTZ(6).notNull(),
            e -> TimestampData.fromInstant(e.getCommitTimestamp())),
    SERVER_TRANSACTION_ID(
            "server_transaction_id",
            DataTypes.STRING().notNull(),
            e -> string(e.getServerTransactionId())),
    RECORD_SEQUENCE(
            "record_sequence", DataTypes.STRING().notNull(), e -> string(e.getRecordSequence())),
    MOD_NUMBER("mod_number", DataTypes.INT().notNull(), ChangeEvent::getModNumber),
    TRANSACTION_TAG(
            "transaction_tag", DataTypes.STRING().notNull(), e -> string(e.getTransactionTag())),
    TABLE_NAME("table_name", DataTypes.STRING().notNull(), e -> string(e.getTable())),
    CHANGE_TYPE("change_type", DataTypes.STRING().notNull(), e -> string(e.getChangeType().name())),
    PARTITION_TOKEN("partition_token", DataTypes.STRING(), e -> string(e.getPartitionToken())),
    IS_SYSTEM_TRANSACTION(
            "is_system_transaction",
            DataTypes.BOOLEAN().notNull(),
            ChangeEvent::isSystemTransaction),
    NUMBER_OF_RECORDS_IN_TRANSACTION(
            "number_of_records_in_transaction",
            DataTypes.BIGINT().notNull(),
            ChangeEvent::getNumberOfRecordsInTransaction),
    NUMBER_OF_PARTITIONS_IN_TRANSACTION(
            "number_of_partitions_in_transaction",
            DataTypes.BIGINT().notNull(),
            ChangeEvent::getNumberOfPartitionsInTransaction),
    VALUE_CAPTURE_TYPE(
            "value_capture_type",
            DataTypes.STRING().notNull(),
            e -> string(e.getValueCaptureType())),
    /** Whether the row comes from the snapshot ('scan.startup.mode' = 'initial' or 'snapshot'). */
    IS_SNAPSHOT("is_snapshot", DataTypes.BOOLEAN().notNull(), ChangeEvent::isSnapshot);

    private final String key;
    private final DataType dataType;
    private final SerializableExtractor extractor;

    SpannerCdcMetadata(String key, DataType dataType, SerializableExtractor extractor) {
        this.key = key;
        this.dataType = dataType;
        this.extractor = extractor;
    }

    public String key() {
        return key;
    }

    public DataType dataType() {
        return dataType;
    }

    /** The value in Flink's internal representation. */
    public Object read(ChangeEvent event) {
        return extractor.apply(event);
    }

    /** The column with this key. */
    public static SpannerCdcMetadata of(String key) {
        for (SpannerCdcMetadata m : values()) {
            if (m.key.equals(key)) {
                return m;
            }
        }
        throw new IllegalArgumentException("Unknown metadata key " + key);
    }

    private static StringData string(String s) {
        // Spanner leaves transaction_tag empty rather than null; keep NOT NULL honest anyway.
        return StringData.fromString(s == null ? "" : s);
    }

    private interface SerializableExtractor
            extends Function<ChangeEvent, Object>, java.io.Serializable {}
}
