package io.spannercs.flink.source.snapshot;

import com.google.protobuf.Value;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.SpannerValues;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Applies change events to an image of the tables (snapshot rows and INSERTs put a row, UPDATEs
 * overwrite the columns they carry, DELETEs remove it), and reads the emulator's tables at a
 * timestamp into the same form, so the two can be compared.
 */
public final class TableFold {
    private final Map<String, Map<String, Object>> rows = new TreeMap<>();

    /**
     * The snapshot rows and then the changes in commit order. Not the order a job's sink saw them:
     * with two source subtasks their outputs interleave on the way to the sink, so one key's
     * changes from two partitions read by different subtasks may arrive there in either order (the
     * source keeps each key's order where it emits; docs/datastream-source.md, "Per-key order").
     * The order of snapshot rows before changes is checked separately ({@code SnapshotOrder}).
     */
    public static TableFold inCommitOrder(List<ChangeEvent> events) {
        TableFold fold = new TableFold();
        events.stream().filter(ChangeEvent::isSnapshot).forEach(fold::apply);
        events.stream()
                .filter(e -> !e.isSnapshot())
                .sorted(java.util.Comparator.comparing(ChangeEvent::getCommitTimestamp))
                .forEach(fold::apply);
        return fold;
    }

    /** Applies one event. */
    public void apply(ChangeEvent e) {
        String key = e.getTable() + "|" + e.getKeys();
        if (e.getChangeType() == ChangeType.DELETE) {
            rows.remove(key);
            return;
        }
        Map<String, Object> row =
                e.getChangeType() == ChangeType.UPDATE
                        ? rows.computeIfAbsent(key, k -> new LinkedHashMap<>())
                        : new LinkedHashMap<>();
        row.putAll(e.getKeys());
        row.putAll(e.getNewValues());
        rows.put(key, row);
    }

    /** Row texts, keyed by table and key, for assertions that print the difference. */
    public Map<String, String> image() {
        Map<String, String> out = new TreeMap<>();
        rows.forEach((k, row) -> out.put(k, text(row)));
        return out;
    }

    /** The tables' rows at {@code atMicros}, the columns {@code columns} names per table. */
    static Map<String, String> tablesAt(EmulatedDatabase db, List<String> tables, long atMicros) {
        Map<String, String> out = new TreeMap<>();
        for (String name : tables) {
            TableDef t =
                    db.database().schema().tables().stream()
                            .filter(x -> x.name().equals(name))
                            .findFirst()
                            .orElseThrow();
            for (List<Value> row : db.rowsAt(name, atMicros)) {
                Map<String, Object> keys = new LinkedHashMap<>();
                Map<String, Object> all = new LinkedHashMap<>();
                for (int i = 0; i < t.columns().size(); i++) {
                    ColumnDef c = t.columns().get(i);
                    Object v = SpannerValues.toJava(c.type(), row.get(i));
                    all.put(c.name(), v);
                    if (c.primaryKey()) {
                        keys.put(c.name(), v);
                    }
                }
                // Keys in key order, as change events list them.
                Map<String, Object> orderedKeys = new LinkedHashMap<>();
                t.keyColumns().forEach(k -> orderedKeys.put(k.name(), keys.get(k.name())));
                out.put(name + "|" + keysText(t, all), text(all));
            }
        }
        return out;
    }

    private static String keysText(TableDef t, Map<String, Object> all) {
        Map<String, Object> keys = new LinkedHashMap<>();
        for (ColumnDef c : t.columns()) {
            if (c.primaryKey()) {
                keys.put(c.name(), all.get(c.name()));
            }
        }
        return keys.toString();
    }

    /** A row as {@link #image()} shows it: its columns sorted, values as text. */
    public static String text(Map<String, Object> row) {
        Map<String, String> sorted = new TreeMap<>();
        row.forEach((c, v) -> sorted.put(c, valueText(v)));
        return sorted.toString();
    }

    private static String valueText(Object v) {
        if (v instanceof byte[] b) {
            return Arrays.toString(b);
        }
        if (v instanceof List<?> l) {
            List<String> out = new ArrayList<>();
            l.forEach(x -> out.add(valueText(x)));
            return out.toString();
        }
        if (v instanceof java.math.BigDecimal d) {
            return d.stripTrailingZeros().toPlainString();
        }
        return String.valueOf(v);
    }
}
