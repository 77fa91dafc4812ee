package io.spannercs.emulator.storage;

import com.google.protobuf.Value;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rows of one table in key order, with enough old versions for reads at a past timestamp
 * (Spanner keeps one hour; so does the emulator).
 */
final class TableData {
    static final long VERSION_RETENTION_MICROS = 3_600_000_000L;

    private final TableDef table;
    private final TreeMap<List<Value>, List<Version>> rows;

    /** A row as of a commit timestamp; {@code row == null} marks a delete. */
    record Version(long commitMicros, List<Value> row) {}

    TableData(TableDef table) {
        this.table = table;
        this.rows = new TreeMap<>(keyComparator(table));
    }

    static Comparator<List<Value>> keyComparator(TableDef table) {
        List<ColumnDef> keys = table.keyColumns();
        return (a, b) -> {
            for (int i = 0; i < keys.size(); i++) {
                int c = SpannerTypes.compare(keys.get(i).type(), a.get(i), b.get(i));
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        };
    }

    TableDef table() {
        return table;
    }

    /** The latest version of the row, or null when absent. */
    List<Value> current(List<Value> key) {
        List<Version> versions = rows.get(key);
        return versions == null ? null : versions.get(versions.size() - 1).row();
    }

    void write(List<Value> key, List<Value> row, long commitMicros) {
        List<Version> versions = rows.computeIfAbsent(key, k -> new ArrayList<>(1));
        versions.add(new Version(commitMicros, row == null ? null : List.copyOf(row)));
        // Keep the newest version older than the retention window; drop the ones before it.
        long cutoff = commitMicros - VERSION_RETENTION_MICROS;
        int keepFrom = 0;
        for (int i = 0; i < versions.size() - 1; i++) {
            if (versions.get(i + 1).commitMicros() <= cutoff) {
                keepFrom = i + 1;
            }
        }
        if (keepFrom > 0) {
            versions.subList(0, keepFrom).clear();
        }
    }

    /** Keys of live rows, in key order. */
    List<List<Value>> currentKeys() {
        List<List<Value>> out = new ArrayList<>();
        for (Map.Entry<List<Value>, List<Version>> e : rows.entrySet()) {
            List<Version> v = e.getValue();
            if (v.get(v.size() - 1).row() != null) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** Rows as of the timestamp, in key order. */
    List<List<Value>> readAt(long atMicros) {
        List<List<Value>> out = new ArrayList<>();
        for (List<Version> versions : rows.values()) {
            List<Value> found = null;
            for (Version v : versions) {
                if (v.commitMicros() <= atMicros) {
                    found = v.row();
                }
            }
            if (found != null) {
                out.add(found);
            }
        }
        return out;
    }

    int size() {
        int n = 0;
        for (List<Version> v : rows.values()) {
            if (v.get(v.size() - 1).row() != null) {
                n++;
            }
        }
        return n;
    }
}
