package io.spannercs.flink.source.record;

import java.util.List;
import org.apache.flink.annotation.Internal;

/** Changes of one transaction to one table with one mod type, in one partition. */
@Internal
public record DataChangeRecord(
        long timestampMicros,
        String recordSequence,
        String serverTransactionId,
        boolean lastRecordInTransactionInPartition,
        String table,
        List<ColumnInfo> columns,
        List<ModRecord> mods,
        String modType,
        String valueCaptureType,
        long numberOfRecordsInTransaction,
        long numberOfPartitionsInTransaction,
        String transactionTag,
        boolean systemTransaction)
        implements ChangeRecord {

    @Override
    public String identity() {
        return "D" + serverTransactionId + "/" + recordSequence;
    }
}
