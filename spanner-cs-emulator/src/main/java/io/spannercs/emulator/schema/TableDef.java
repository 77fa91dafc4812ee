package io.spannercs.emulator.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** A table: its columns in definition order and its primary key columns in key order. */
public final class TableDef {
    private final String name;
    private final List<ColumnDef> columns;
    private final List<ColumnDef> keyColumns;
    private final Map<String, ColumnDef> byLowerName = new LinkedHashMap<>();

    public TableDef(String name, List<ColumnDef> columns, List<String> keyColumnNames) {
        this.name = name;
        List<ColumnDef> cols = new ArrayList<>();
        for (ColumnDef c : columns) {
            boolean key = keyColumnNames.stream().anyMatch(k -> k.equalsIgnoreCase(c.name()));
            ColumnDef col = key ? c.asPrimaryKey() : c;
            cols.add(col);
            if (byLowerName.put(col.name().toLowerCase(Locale.ROOT), col) != null) {
                throw new IllegalArgumentException(
                        "Duplicate column name " + col.name() + " in table " + name);
            }
        }
        List<ColumnDef> keys = new ArrayList<>();
        for (String k : keyColumnNames) {
            ColumnDef col = byLowerName.get(k.toLowerCase(Locale.ROOT));
            if (col == null) {
                throw new IllegalArgumentException(
                        "Primary key column " + k + " is not a column of table " + name);
            }
            keys.add(col);
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("Table " + name + " needs a PRIMARY KEY");
        }
        this.columns = Collections.unmodifiableList(cols);
        this.keyColumns = Collections.unmodifiableList(keys);
    }

    public String name() {
        return name;
    }

    public List<ColumnDef> columns() {
        return columns;
    }

    public List<ColumnDef> keyColumns() {
        return keyColumns;
    }

    /** Looks a column up by name, ignoring case like Spanner does. */
    public Optional<ColumnDef> column(String columnName) {
        return Optional.ofNullable(byLowerName.get(columnName.toLowerCase(Locale.ROOT)));
    }

    /** Index of the column in {@link #columns()}, or -1. */
    public int indexOf(String columnName) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equalsIgnoreCase(columnName)) {
                return i;
            }
        }
        return -1;
    }
}
