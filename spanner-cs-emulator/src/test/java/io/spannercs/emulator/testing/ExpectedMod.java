package io.spannercs.emulator.testing;

import com.google.protobuf.Value;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a change stream must report for one row change, derived by the test from the emulator's
 * ground truth (the committed row images) and the documented value capture rules.
 */
public record ExpectedMod(
        String serverTransactionId,
        long commitMicros,
        String table,
        String modType,
        Map<String, Value> keys,
        Map<String, Value> newValues,
        Map<String, Value> oldValues,
        String transactionTag) {

    /** Every mod the stream must report, in commit order. */
    public static List<ExpectedMod> forStream(
            ChangeStreamDef def, List<CommittedTransaction> truth) {
        List<ExpectedMod> out = new ArrayList<>();
        for (CommittedTransaction txn : truth) {
            for (RowChange c : txn.changes()) {
                ExpectedMod m = of(def, txn, c);
                if (m != null) {
                    out.add(m);
                }
            }
        }
        return out;
    }

    private static ExpectedMod of(ChangeStreamDef def, CommittedTransaction txn, RowChange c) {
        TableDef t = c.table();
        if (!def.watchesTable(t.name())) {
            return null;
        }
        String capture = def.valueCaptureType().name();
        boolean fullRow = capture.startsWith("NEW_ROW");
        boolean old =
                capture.equals("OLD_AND_NEW_VALUES") || capture.equals("NEW_ROW_AND_OLD_VALUES");
        Map<String, Value> keys = new LinkedHashMap<>();
        Map<String, Value> news = new LinkedHashMap<>();
        Map<String, Value> olds = new LinkedHashMap<>();
        List<ColumnDef> cols = t.columns();
        for (int i = 0; i < t.keyColumns().size(); i++) {
            keys.put(t.keyColumns().get(i).name(), c.key().get(i));
        }
        boolean anyWrittenWatched = false;
        for (int i = 0; i < cols.size(); i++) {
            ColumnDef col = cols.get(i);
            if (col.primaryKey() || !def.watchesColumn(t.name(), col)) {
                continue;
            }
            boolean wrote = c.wrote(col);
            anyWrittenWatched |= wrote;
            switch (c.modType()) {
                case INSERT:
                    news.put(col.name(), c.newRow().get(i));
                    break;
                case UPDATE:
                    if (wrote || fullRow) {
                        news.put(col.name(), c.newRow().get(i));
                    }
                    if (wrote && old) {
                        olds.put(col.name(), c.oldRow().get(i));
                    }
                    break;
                case DELETE:
                    if (old) {
                        olds.put(col.name(), c.oldRow().get(i));
                    }
                    break;
                default:
                    throw new IllegalStateException();
            }
        }
        if (c.modType().name().equals("UPDATE") && !anyWrittenWatched) {
            return null;
        }
        return new ExpectedMod(
                txn.serverTransactionId(),
                txn.commitMicros(),
                t.name(),
                c.modType().name(),
                keys,
                news,
                olds,
                txn.transactionTag());
    }

    /** The same facts taken from a record read back. */
    public static ExpectedMod fromRecord(ReadRecord r, ReadRecord.Mod m) {
        return new ExpectedMod(
                r.data().serverTransactionId(),
                r.micros(),
                r.data().table(),
                r.data().modType(),
                m.keys(),
                m.newValues(),
                m.oldValues(),
                r.data().transactionTag());
    }
}
