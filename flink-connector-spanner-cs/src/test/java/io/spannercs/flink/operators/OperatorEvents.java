package io.spannercs.flink.operators;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Small change events for the operator tests. */
final class OperatorEvents {
    private OperatorEvents() {}

    /** A change of row {@code Orders(id)} committed at {@code millis} (plus {@code micros}). */
    static ChangeEvent change(long id, long millis, int micros, String txn, String seq, int mod) {
        return event("Orders", id, millis, micros, txn, "p1", seq, mod, 1);
    }

    @SuppressWarnings("checkstyle:ParameterNumber")
    static ChangeEvent event(
            String table,
            long id,
            long millis,
            int micros,
            String txn,
            String partition,
            String seq,
            int mod,
            long records) {
        Map<String, Object> keys = new LinkedHashMap<>();
        keys.put("Id", id);
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("V", txn + "/" + seq + "/" + mod);
        return ChangeEvent.builder()
                .table(table)
                .changeType(ChangeType.UPDATE)
                .keys(keys)
                .newValues(values)
                .oldValues(Map.of())
                .commitTimestamp(Instant.ofEpochMilli(millis).plusNanos(micros * 1000L))
                .serverTransactionId(txn)
                .recordSequence(seq)
                .modNumber(mod)
                .transactionTag("tag")
                .systemTransaction(false)
                .partitionToken(partition)
                .numberOfRecordsInTransaction(records)
                .numberOfPartitionsInTransaction(2)
                .valueCaptureType("NEW_VALUES")
                .build();
    }
}
