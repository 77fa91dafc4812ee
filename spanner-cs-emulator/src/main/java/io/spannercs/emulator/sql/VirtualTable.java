package io.spannercs.emulator.sql;

import com.google.protobuf.Value;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Rows with named, typed columns: a table, or a view of {@code information_schema}. */
public record VirtualTable(List<StructType.Field> columns, List<List<Value>> rows) {

    public static StructType.Field field(String name, Type type) {
        return StructType.Field.newBuilder().setName(name).setType(type).build();
    }

    /**
     * Projects columns ({@code *} for all) and keeps rows whose columns equal the given values.
     *
     * @throws IllegalArgumentException naming an unknown column
     */
    public VirtualTable select(
            String tableName, List<String> names, Map<String, Value> equalities) {
        return select(tableName, names, equalities, Map.of());
    }

    /**
     * Projects columns ({@code *} for all) and keeps rows whose columns equal the given values and
     * whose columns are among the given lists of values ({@code IN}).
     *
     * @throws IllegalArgumentException naming an unknown column
     */
    public VirtualTable select(
            String tableName,
            List<String> names,
            Map<String, Value> equalities,
            Map<String, List<Value>> memberships) {
        List<Integer> indexes = new ArrayList<>();
        if (names.size() == 1 && names.get(0).equals("*")) {
            for (int i = 0; i < columns.size(); i++) {
                indexes.add(i);
            }
        } else {
            for (String n : names) {
                indexes.add(indexOf(tableName, n));
            }
        }
        // Each filter: a column and the values it may have (one value for '=').
        List<Integer> filterColumns = new ArrayList<>();
        List<List<Value>> filterValues = new ArrayList<>();
        for (Map.Entry<String, Value> e : equalities.entrySet()) {
            filterColumns.add(indexOf(tableName, e.getKey()));
            filterValues.add(List.of(e.getValue()));
        }
        for (Map.Entry<String, List<Value>> e : memberships.entrySet()) {
            filterColumns.add(indexOf(tableName, e.getKey()));
            filterValues.add(e.getValue());
        }
        List<StructType.Field> outCols = new ArrayList<>();
        indexes.forEach(i -> outCols.add(columns.get(i)));
        List<List<Value>> outRows = new ArrayList<>();
        for (List<Value> row : rows) {
            boolean keep = true;
            for (int f = 0; f < filterColumns.size() && keep; f++) {
                Value actual = row.get(filterColumns.get(f));
                keep = filterValues.get(f).stream().anyMatch(v -> sameValue(actual, v));
            }
            if (keep) {
                List<Value> out = new ArrayList<>();
                indexes.forEach(i -> out.add(row.get(i)));
                outRows.add(out);
            }
        }
        return new VirtualTable(outCols, outRows);
    }

    private static boolean sameValue(Value a, Value b) {
        if (a.hasStringValue() && b.hasStringValue()) {
            return a.getStringValue().equals(b.getStringValue());
        }
        if (a.hasStringValue() && b.hasNumberValue()) {
            return a.getStringValue().equals(Long.toString((long) b.getNumberValue()));
        }
        return a.equals(b);
    }

    private int indexOf(String tableName, String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).getName().equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException(
                "Unrecognized name: "
                        + name
                        + " (not a column of "
                        + tableName.toLowerCase(Locale.ROOT)
                        + ")");
    }
}
