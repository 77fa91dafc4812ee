package io.spannercs.flink.table;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.SpannerEmulator;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

/** What the SQL tests share: a MiniCluster, table environments, DDL and changelog folding. */
final class SqlTests {
    private SqlTests() {}

    /** See {@link io.spannercs.flink.source.EmulatorSources#twoSlotCluster()}. */
    static MiniClusterExtension cluster() {
        return io.spannercs.flink.source.EmulatorSources.twoSlotCluster();
    }

    /**
     * A streaming table environment of parallelism 1: one reader emits each key's changes in commit
     * order, which a downstream aggregate needs (see docs/sql.md, "Order").
     */
    static StreamTableEnvironment tableEnv(StreamExecutionEnvironment env) {
        env.setParallelism(1);
        return StreamTableEnvironment.create(env);
    }

    static StreamTableEnvironment tableEnv() {
        return tableEnv(StreamExecutionEnvironment.getExecutionEnvironment());
    }

    /** The WITH clause for a bounded read of [start, end] on the emulator. */
    static String with(
            SpannerEmulator emulator,
            String stream,
            String table,
            Instant start,
            Instant end,
            String extra) {
        return " WITH ('connector' = 'spanner-cdc', 'project' = '"
                + emulator.projectId()
                + "', 'instance' = '"
                + emulator.instanceId()
                + "', 'database' = '"
                + emulator.databaseId()
                + "', 'change-stream' = '"
                + stream
                + "', 'table' = '"
                + table
                + "', 'emulator-host' = '"
                + emulator.hostPort()
                + "', 'scan.startup.mode' = 'timestamp', 'scan.startup.timestamp' = '"
                + start
                + "', 'scan.end.timestamp' = '"
                + end
                + "', 'heartbeat.interval' = '100ms'"
                + extra
                + ")";
    }

    static List<Row> collect(TableResult result) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    /**
     * The rows a changelog leaves: INSERT/UPDATE_AFTER add a row, UPDATE_BEFORE/DELETE take one.
     */
    static Map<Row, Integer> fold(List<Row> changelog) {
        Map<Row, Integer> counts = new HashMap<>();
        for (Row r : changelog) {
            boolean add = r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER;
            Row plain = Row.copy(r);
            plain.setKind(RowKind.INSERT);
            counts.merge(plain, add ? 1 : -1, Integer::sum);
        }
        counts.values().removeIf(c -> c == 0);
        return counts;
    }

    /**
     * Applies a changelog to a table keyed by field {@code keyIndex}, as a retracting sink would,
     * and fails at the first row that does not fit: an INSERT or UPDATE_AFTER for a key that holds
     * a row (a double count), an UPDATE_BEFORE or DELETE of a row the table does not hold.
     *
     * @return the rows left, by key, each with kind INSERT
     */
    static Map<Object, Row> foldPerKey(List<Row> changelog, int keyIndex) {
        Map<Object, Row> table = new HashMap<>();
        for (int i = 0; i < changelog.size(); i++) {
            Row r = changelog.get(i);
            Row plain = Row.copy(r);
            plain.setKind(RowKind.INSERT);
            Object key = r.getField(keyIndex);
            Row held = table.get(key);
            boolean add = r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER;
            if (add && held != null) {
                throw new AssertionError(
                        "changelog row "
                                + i
                                + " "
                                + r
                                + " adds key "
                                + key
                                + ", which holds "
                                + held
                                + "; the key's rows: "
                                + history(changelog, keyIndex, key));
            }
            if (!add && !plain.equals(held)) {
                throw new AssertionError(
                        "changelog row "
                                + i
                                + " "
                                + r
                                + " retracts a row key "
                                + key
                                + " does not hold (it holds "
                                + held
                                + "); the key's rows: "
                                + history(changelog, keyIndex, key));
            }
            if (add) {
                table.put(key, plain);
            } else {
                table.remove(key);
            }
        }
        return table;
    }

    private static List<Row> history(List<Row> changelog, int keyIndex, Object key) {
        List<Row> out = new ArrayList<>();
        for (Row r : changelog) {
            if (Objects.equals(r.getField(keyIndex), key)) {
                out.add(r);
            }
        }
        return out;
    }

    /** A folded {@code (key STRING, total DECIMAL)} aggregate as a sorted map. */
    static Map<String, BigDecimal> totals(List<Row> changelog) {
        Map<String, BigDecimal> out = new TreeMap<>();
        for (Map.Entry<Row, Integer> e : fold(changelog).entrySet()) {
            if (e.getValue() != 1) {
                throw new AssertionError("row " + e.getKey() + " left " + e.getValue() + " times");
            }
            Row r = e.getKey();
            BigDecimal previous =
                    out.put(
                            (String) r.getField(0),
                            ((BigDecimal) r.getField(1)).stripTrailingZeros());
            if (previous != null) {
                throw new AssertionError(
                        "two totals for " + r.getField(0) + ": " + fold(changelog));
            }
        }
        return out;
    }

    static Spanner client(SpannerEmulator emulator) {
        return SpannerOptions.newBuilder()
                .setProjectId(emulator.projectId())
                .setEmulatorHost(emulator.hostPort())
                .setCredentials(NoCredentials.getInstance())
                .build()
                .getService();
    }

    static DatabaseClient db(Spanner spanner, SpannerEmulator emulator) {
        return spanner.getDatabaseClient(
                DatabaseId.of(emulator.projectId(), emulator.instanceId(), emulator.databaseId()));
    }

    static long micros(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
    }
}
