package io.spannercs.emulator.storage;

import com.google.protobuf.Value;
import io.spannercs.emulator.schema.TableDef;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rows of one table in key order, with the old versions that reads at a past timestamp within
 * the database's version retention period need.
 */
final class TableData {
    private final TableDef table;
    private final TreeMap<List<Value>, List<Version>> rows;

    /** A row as of a commit timestamp; {@code row == null} marks a delete. */
    record Version(long commitMicros, List<Value> row) {}

    TableData(TableDef table) {
        this.table = table;
        this.rows = new TreeMap<>(keyComparator(table));
    }

    /**
     * Key order: each key column's type order, reversed for {@code DESC} columns. A key prefix
     * sorts before every key that starts with it, so a prefix can start a scan of the map.
     */
    static Comparator<List<Value>> keyComparator(TableDef table) {
        return (a, b) -> {
            int common = Math.min(a.size(), b.size());
            for (int i = 0; i < common; i++) {
                int c = table.compareKeyPart(i, a.get(i), b.get(i));
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(a.size(), b.size());
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

    /**
     * Adds a version of the row and drops the versions no read at or after {@code cutoffMicros}
     * needs: every version older than the newest one at or before the cutoff.
     */
    void write(List<Value> key, List<Value> row, long commitMicros, long cutoffMicros) {
        List<Version> versions = rows.computeIfAbsent(key, k -> new ArrayList<>(1));
        versions.add(new Version(commitMicros, row == null ? null : List.copyOf(row)));
        prune(versions, cutoffMicros);
    }

    /**
     * Drops the versions no read at or after {@code cutoffMicros} needs, and rows deleted at or
     * before it.
     */
    void prune(long cutoffMicros) {
        rows.values().removeIf(versions -> prune(versions, cutoffMicros));
    }

    /** Prunes one row's versions; true when nothing a read at or after the cutoff sees is left. */
    private static boolean prune(List<Version> versions, long cutoffMicros) {
        int keepFrom = 0;
        for (int i = 0; i < versions.size() - 1; i++) {
            if (versions.get(i + 1).commitMicros() <= cutoffMicros) {
                keepFrom = i + 1;
            }
        }
        if (keepFrom > 0) {
            versions.subList(0, keepFrom).clear();
        }
        Version first = versions.get(0);
        return versions.size() == 1 && first.row() == null && first.commitMicros() <= cutoffMicros;
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

    /** Versions kept of all rows (for tests of pruning). */
    int versionCount() {
        int n = 0;
        for (List<Version> v : rows.values()) {
            n += v.size();
        }
        return n;
    }

    /** Rows as of the timestamp, in key order. */
    List<List<Value>> readAt(long atMicros) {
        return readAt(atMicros, null);
    }

    /**
     * Rows as of the timestamp whose keys the key set names, in key order. Only the part of the
     * table between the key set's first and last key is visited, so reading a key range costs the
     * rows in it rather than the whole table.
     */
    List<List<Value>> readAt(long atMicros, KeySetMatcher keys) {
        List<List<Value>> out = new ArrayList<>();
        Map<List<Value>, List<Version>> scanned =
                keys == null ? rows : rows.tailMap(keys.scanFrom(), true);
        for (Map.Entry<List<Value>, List<Version>> e : scanned.entrySet()) {
            if (keys != null) {
                if (keys.pastEnd(e.getKey())) {
                    break;
                }
                if (!keys.test(e.getKey())) {
                    continue;
                }
            }
            List<Value> found = null;
            for (Version v : e.getValue()) {
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
