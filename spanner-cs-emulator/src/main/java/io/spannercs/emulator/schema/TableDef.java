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
    private final List<Boolean> keyDescending;
    private final Map<String, ColumnDef> byLowerName = new LinkedHashMap<>();

    /** A table whose key columns all sort ascending. */
    public TableDef(String name, List<ColumnDef> columns, List<String> keyColumnNames) {
        this(name, columns, keyColumnNames, Collections.nCopies(keyColumnNames.size(), false));
    }

    /**
     * @param keyDescending for each key column, whether it sorts descending ({@code DESC})
     */
    public TableDef(
            String name,
            List<ColumnDef> columns,
            List<String> keyColumnNames,
            List<Boolean> keyDescending) {
        this.name = name;
        if (keyDescending.size() != keyColumnNames.size()) {
            throw new IllegalArgumentException("One key order per key column");
        }
        this.keyDescending = List.copyOf(keyDescending);
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

    /** Whether the key column at this position in the key sorts descending. */
    public boolean keyDescending(int keyIndex) {
        return keyDescending.get(keyIndex);
    }

    /**
     * Compares two canonical values of the key column at this position in key order: the type's
     * order (NULLs first), reversed for a {@code DESC} column.
     */
    public int compareKeyPart(
            int keyIndex, com.google.protobuf.Value a, com.google.protobuf.Value b) {
        int c = SpannerTypes.compare(keyColumns.get(keyIndex).type(), a, b);
        return keyDescending.get(keyIndex) ? -c : c;
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
