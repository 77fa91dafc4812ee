package io.spannercs.emulator.storage;

import com.google.protobuf.Value;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.TableDef;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * The net effect of one transaction on one row: all writes to the row within the transaction
 * collapsed into one change, with the row image before and after.
 */
public final class RowChange {
    private final TableDef table;
    private final List<Value> key;
    private final ModType modType;
    private final List<Value> oldRow;
    private final List<Value> newRow;
    private final Set<String> writtenColumns;

    /**
     * @param oldRow the row before the transaction, in {@code table.columns()} order, or null
     * @param newRow the row after the transaction, or null when deleted
     * @param writtenColumns non-key columns the transaction wrote (for UPDATE), lower-case names
     */
    public RowChange(
            TableDef table,
            List<Value> key,
            ModType modType,
            List<Value> oldRow,
            List<Value> newRow,
            Set<String> writtenColumns) {
        this.table = table;
        this.key = List.copyOf(key);
        this.modType = modType;
        this.oldRow = oldRow == null ? null : Collections.unmodifiableList(oldRow);
        this.newRow = newRow == null ? null : Collections.unmodifiableList(newRow);
        this.writtenColumns = Set.copyOf(writtenColumns);
    }

    public TableDef table() {
        return table;
    }

    /** Key values in key column order. */
    public List<Value> key() {
        return key;
    }

    public ModType modType() {
        return modType;
    }

    /** The row before the change (columns in table order), or null for an INSERT. */
    public List<Value> oldRow() {
        return oldRow;
    }

    /** The row after the change, or null for a DELETE. */
    public List<Value> newRow() {
        return newRow;
    }

    /** Whether the transaction wrote this column (always true for key columns). */
    public boolean wrote(ColumnDef column) {
        return column.primaryKey()
                || writtenColumns.contains(column.name().toLowerCase(java.util.Locale.ROOT));
    }

    @Override
    public String toString() {
        return modType + " " + table.name() + key;
    }
}
