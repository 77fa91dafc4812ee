package io.spannercs.flink.source;

import com.google.protobuf.Value;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.SpannerValues;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes a source must emit, from the emulator's record of every commit: one identity per row
 * change (transaction, table, change type, key), to compare with what a job emitted.
 */
public final class GroundTruth {
    private GroundTruth() {}

    /**
     * Like {@link #expected(EmulatedDatabase, String, long, long)}, with the mod type of each
     * change as the emulator sent it: in specification-edge mode some transactions carry a mod type
     * the proto does not define, which the source passes on raw ({@code UnknownValueHandling.RAW}).
     */
    public static List<String> expectedAsSent(
            io.spannercs.emulator.SpannerEmulator emulator,
            String stream,
            long startMicros,
            long endMicros) {
        io.spannercs.emulator.EdgeCases edges = emulator.edgeCases();
        boolean mutable =
                emulator.database().changeStream(stream).def().partitionMode()
                        == io.spannercs.emulator.schema.PartitionMode.MUTABLE_KEY_RANGE;
        String raw =
                mutable
                        ? Integer.toString(io.spannercs.emulator.EdgeCases.UNKNOWN_MOD_TYPE_NUMBER)
                        : io.spannercs.emulator.EdgeCases.UNKNOWN_MOD_TYPE_NAME;
        List<String> out = new ArrayList<>();
        for (String id : expected(emulator.database(), stream, startMicros, endMicros)) {
            // Identities are "transaction|table|type|keys".
            String[] p = id.split("\\|", 4);
            out.add(
                    edges.sendsUnknownEnums(p[0])
                            ? p[0] + "|" + p[1] + "|" + raw + "|" + p[3]
                            : id);
        }
        return out;
    }

    /** Identities of every change the stream records in [start, end], in commit order. */
    public static List<String> expected(
            EmulatedDatabase db, String stream, long startMicros, long endMicros) {
        return expected(db, stream, startMicros, endMicros, (txn, change) -> true);
    }

    /** Like {@link #expected}, keeping only the changes {@code keep} accepts. */
    public static List<String> expected(
            EmulatedDatabase db,
            String stream,
            long startMicros,
            long endMicros,
            java.util.function.BiPredicate<CommittedTransaction, RowChange> keep) {
        ChangeStreamDef def = db.changeStream(stream).def();
        List<String> out = new ArrayList<>();
        for (CommittedTransaction txn : db.groundTruth()) {
            if (txn.commitMicros() < startMicros || txn.commitMicros() > endMicros) {
                continue;
            }
            for (RowChange c : txn.changes()) {
                if (!def.watchesTable(c.table().name())
                        || !def.recordsModType(c.modType().name())) {
                    continue;
                }
                if (c.modType().name().equals("UPDATE") && !writesWatchedColumn(def, c)) {
                    continue;
                }
                if (!keep.test(txn, c)) {
                    continue;
                }
                Map<String, Object> keys = new LinkedHashMap<>();
                for (int i = 0; i < c.table().keyColumns().size(); i++) {
                    ColumnDef k = c.table().keyColumns().get(i);
                    Value v = c.key().get(i);
                    keys.put(k.name(), SpannerValues.toJava(k.type(), v));
                }
                out.add(
                        identity(
                                txn.serverTransactionId(),
                                c.table().name(),
                                c.modType().name(),
                                keys));
            }
        }
        return out;
    }

    private static boolean writesWatchedColumn(ChangeStreamDef def, RowChange c) {
        for (ColumnDef col : c.table().columns()) {
            if (!col.primaryKey() && def.watchesColumn(c.table().name(), col) && c.wrote(col)) {
                return true;
            }
        }
        return false;
    }

    /** The identity of an emitted change; its type as Spanner sent it (see getRawChangeType). */
    public static String identity(ChangeEvent e) {
        return identity(
                e.getServerTransactionId(), e.getTable(), e.getRawChangeType(), e.getKeys());
    }

    public static String identity(String txn, String table, String type, Map<String, Object> keys) {
        return txn + "|" + table + "|" + type + "|" + keys;
    }

    /** Table and key of an identity, to check order per key. */
    public static String rowOf(String identity) {
        String[] parts = identity.split("\\|", 4);
        return parts[1] + "|" + parts[3];
    }
}
