package io.spannercs.job.pubsub;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.datastream.DatastreamContext;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Change events of a table {@code (Id INT64, Name STRING)} as the source builds them. */
final class Events {
    static final String PROJECT = "proj";
    static final String DATABASE = "db";
    static final DatastreamContext CONTEXT =
            DatastreamContext.builder(PROJECT, "inst", DATABASE, "cs").build();

    private Events() {}

    /** A change of row {@code id}, in transaction {@code txn}, committed at {@code commit}. */
    static ChangeEvent change(
            String table, ChangeType type, long id, String name, Instant commit, String txn) {
        Map<String, Object> values = new LinkedHashMap<>();
        if (type != ChangeType.DELETE) {
            values.put("Name", name);
        }
        Map<String, String> types = new LinkedHashMap<>();
        types.put("Id", "INT64");
        types.put("Name", "STRING");
        return ChangeEvent.builder()
                .table(table)
                .changeType(type)
                .keys(Map.of("Id", id))
                .newValues(values)
                .oldValues(Map.of())
                .commitTimestamp(commit)
                .serverTransactionId(txn)
                .recordSequence("00000001")
                .modNumber(0)
                .transactionTag("")
                .systemTransaction(false)
                .partitionToken("token")
                .numberOfRecordsInTransaction(1)
                .numberOfPartitionsInTransaction(1)
                .valueCaptureType("NEW_ROW")
                .columnTypes(types)
                .build();
    }

    /** A row of a snapshot taken at {@code at}. */
    static ChangeEvent snapshotRow(String table, long id, String name, Instant at) {
        // As the source builds one: no transaction, no record sequence.
        return change(table, ChangeType.INSERT, id, name, at, "").withSnapshot(true);
    }
}
