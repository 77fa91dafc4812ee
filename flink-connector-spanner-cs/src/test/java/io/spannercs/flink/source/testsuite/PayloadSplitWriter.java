package io.spannercs.flink.source.testsuite;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.storage.CommittedTransaction;
import java.util.List;
import java.util.function.LongConsumer;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;

/**
 * Writes one suite "split": every record becomes the payload of one row, {@code key}, in a
 * transaction of its own, so the change stream holds one change per record, in the order written.
 *
 * <p>A split is one key rather than a key range because the source keeps commit order per key (a
 * key lives in one change stream partition at a time, and the source holds a partition at a
 * key-range move-in until the key's previous partition has caught up). The suite checks the order
 * of records within a split, which for a change stream is exactly per-key order.
 */
final class PayloadSplitWriter implements ExternalSystemSplitDataWriter<String> {
    private static final String TAG = "spanner-cs-test-suite";

    private final EmulatedDatabase database;
    private final String key;
    private final LongConsumer onCommit;

    PayloadSplitWriter(EmulatedDatabase database, String key, LongConsumer onCommit) {
        this.database = database;
        this.key = key;
        this.onCommit = onCommit;
    }

    @Override
    public void writeRecords(List<String> records) {
        for (String record : records) {
            Mutation mutation =
                    Mutation.newBuilder()
                            .setInsertOrUpdate(
                                    Mutation.Write.newBuilder()
                                            .setTable(SpannerEmulatorExternalSystem.TABLE)
                                            .addColumns(SpannerEmulatorExternalSystem.KEY_COLUMN)
                                            .addColumns(
                                                    SpannerEmulatorExternalSystem.PAYLOAD_COLUMN)
                                            .addValues(
                                                    ListValue.newBuilder()
                                                            .addValues(string(key))
                                                            .addValues(string(record))))
                            .build();
            CommittedTransaction txn = database.commit(List.of(mutation), TAG);
            onCommit.accept(txn.commitMicros());
        }
    }

    private static Value string(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    @Override
    public void close() {}

    @Override
    public String toString() {
        return "PayloadSplitWriter(" + key + ")";
    }
}
