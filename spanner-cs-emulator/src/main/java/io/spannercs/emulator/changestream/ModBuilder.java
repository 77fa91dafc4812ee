package io.spannercs.emulator.changestream;

import com.google.protobuf.Value;
import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.schema.ValueCaptureType;
import io.spannercs.emulator.storage.ModType;
import io.spannercs.emulator.storage.RowChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values one row change contributes to a change stream, chosen by the stream's value capture
 * type and watched columns:
 *
 * <ul>
 *   <li>INSERT: every watched column's new value (NULL where unwritten).
 *   <li>UPDATE: the written watched columns; all watched columns for NEW_ROW*; old values of the
 *       written ones for OLD_AND_NEW_VALUES and NEW_ROW_AND_OLD_VALUES.
 *   <li>DELETE: every watched column's old value where old values are captured, else keys only.
 * </ul>
 */
final class ModBuilder {
    private final List<ColumnDef> keyColumns;
    private final List<Value> keys;
    private final Map<ColumnDef, Value> newValues = new LinkedHashMap<>();
    private final Map<ColumnDef, Value> oldValues = new LinkedHashMap<>();

    /** Columns the record's metadata lists for this mod, even where no value is captured. */
    private final List<ColumnDef> described = new ArrayList<>();

    private ModBuilder(TableDef table, List<Value> keys) {
        this.keyColumns = table.keyColumns();
        this.keys = keys;
    }

    /** The mod for the change, or null when the stream records nothing for it. */
    static ModBuilder build(ChangeStreamDef def, RowChange change) {
        TableDef table = change.table();
        ValueCaptureType capture = def.valueCaptureType();
        ModBuilder m = new ModBuilder(table, change.key());
        List<ColumnDef> watched = new ArrayList<>();
        for (ColumnDef c : table.columns()) {
            if (!c.primaryKey() && def.watchesColumn(table.name(), c)) {
                watched.add(c);
            }
        }
        boolean allDescribed = change.modType() != ModType.UPDATE || capture.capturesFullNewRow();
        for (ColumnDef c : watched) {
            if (allDescribed || change.wrote(c)) {
                m.described.add(c);
            }
        }
        List<Value> oldRow = change.oldRow();
        List<Value> newRow = change.newRow();
        switch (change.modType()) {
            case INSERT:
                watched.forEach(c -> m.newValues.put(c, newRow.get(index(table, c))));
                break;
            case UPDATE:
                {
                    List<ColumnDef> written = new ArrayList<>();
                    for (ColumnDef c : watched) {
                        if (change.wrote(c)) {
                            written.add(c);
                        }
                    }
                    if (written.isEmpty()) {
                        return null; // only unwatched columns changed
                    }
                    List<ColumnDef> newCols = capture.capturesFullNewRow() ? watched : written;
                    newCols.forEach(c -> m.newValues.put(c, newRow.get(index(table, c))));
                    if (capture.capturesOldValues()) {
                        written.forEach(c -> m.oldValues.put(c, oldRow.get(index(table, c))));
                    }
                    break;
                }
            case DELETE:
                if (capture.capturesOldValues()) {
                    watched.forEach(c -> m.oldValues.put(c, oldRow.get(index(table, c))));
                }
                break;
            default:
                throw new IllegalStateException(change.modType().toString());
        }
        return m;
    }

    private static int index(TableDef table, ColumnDef c) {
        return table.columns().indexOf(c);
    }

    boolean uses(ColumnDef c) {
        return c.primaryKey() ? keyColumns.contains(c) : described.contains(c);
    }

    DataChangeRecord.Mod toProto(List<ColumnDef> metadata) {
        DataChangeRecord.Mod.Builder b = DataChangeRecord.Mod.newBuilder();
        for (int i = 0; i < keyColumns.size(); i++) {
            b.addKeys(modValue(metadata, keyColumns.get(i), keys.get(i)));
        }
        oldValues.forEach((c, v) -> b.addOldValues(modValue(metadata, c, v)));
        newValues.forEach((c, v) -> b.addNewValues(modValue(metadata, c, v)));
        return b.build();
    }

    private static DataChangeRecord.ModValue modValue(
            List<ColumnDef> metadata, ColumnDef c, Value v) {
        return DataChangeRecord.ModValue.newBuilder()
                .setColumnMetadataIndex(metadata.indexOf(c))
                .setValue(v)
                .build();
    }
}
