package io.spannercs.emulator.testing;

import com.google.protobuf.Value;
import java.util.List;
import java.util.Map;

/**
 * A change stream record as a test sees it through the official client, the same for both partition
 * modes.
 */
public record ReadRecord(
        Kind kind,
        String partition,
        long micros,
        String sequence,
        Data data,
        List<String> tokens,
        List<List<String>> parents,
        List<String> moveInSources,
        List<String> moveOutDestinations) {

    public enum Kind {
        DATA,
        HEARTBEAT,
        CHILD_PARTITIONS,
        PARTITION_START,
        PARTITION_EVENT,
        PARTITION_END
    }

    /** The fields of a data change record. */
    public record Data(
            String serverTransactionId,
            boolean lastInPartition,
            String table,
            List<Column> columns,
            List<Mod> mods,
            String modType,
            String valueCaptureType,
            long recordsInTransaction,
            long partitionsInTransaction,
            String transactionTag,
            boolean systemTransaction) {}

    /**
     * Column metadata: the type's code and annotation ({@code TYPE_ANNOTATION_CODE_UNSPECIFIED}, or
     * {@code PG_NUMERIC}/{@code PG_JSONB} in PostgreSQL databases).
     */
    public record Column(
            String name,
            String typeCode,
            boolean primaryKey,
            long ordinalPosition,
            String typeAnnotation) {}

    /** One row change: values by column name, in Spanner's wire encoding. */
    public record Mod(
            Map<String, Value> keys, Map<String, Value> newValues, Map<String, Value> oldValues) {}
}
