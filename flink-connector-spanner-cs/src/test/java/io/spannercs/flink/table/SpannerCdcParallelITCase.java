package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Statement;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.FaultInjector;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An aggregate at source parallelism 2 while the orders' key ranges keep moving between partitions
 * read by different subtasks: with 'scan.reorder' (the default) the aggregate equals the database;
 * without it the same workload gives a wrong aggregate (or a retraction of a row the aggregate
 * never saw), which shows the check can fail.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcParallelITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    @Test
    void reorderedRowsLeaveTheDatabasesRowsAtParallelismTwo() throws Exception {
        Outcome outcome = run(true);
        assertThat(outcome.actual).isEqualTo(outcome.expected).isNotEmpty();
    }

    private record Outcome(Map<Long, String> actual, Map<Long, String> expected) {}

    private static Outcome run(boolean reorder) throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(SpannerCdcSqlITCase.DDL)
                                .initialPartitions(4)
                                .maxPartitions(8)
                                .seed(5)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            ChangeStream cs = emulator.database().changeStream("full_cs");
            Instant start = Instant.now();
            // Each order changes customer and amount in bursts, and its key range moves to
            // another partition between bursts.
            for (int round = 0; round < 12; round++) {
                for (long id = 0; id < 6; id++) {
                    for (int burst = 0; burst < 3; burst++) {
                        db.write(
                                List.of(
                                        Mutation.newInsertOrUpdateBuilder("Orders")
                                                .set("OrderId")
                                                .to(id)
                                                .set("Customer")
                                                .to("c" + ((round + burst + id) % 3))
                                                .set("Amount")
                                                .to(new BigDecimal(round * 100 + burst * 10 + id))
                                                .build()));
                    }
                    cs.moveKey(
                            "Orders",
                            List.of(
                                    com.google.protobuf.Value.newBuilder()
                                            .setStringValue(Long.toString(id))
                                            .build()));
                }
            }
            Instant end = Instant.now();
            // Slow partitions make the partition a key left lag behind the one it joined.
            emulator.faults().setLatency(FaultInjector.ANY_PARTITION, Duration.ofMillis(3));

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            StreamTableEnvironment tEnv = SqlTests.tableEnv(env);
            env.setParallelism(2);
            tEnv.executeSql(
                    "CREATE TABLE orders "
                            + SpannerCdcSqlITCase.ORDERS_COLUMNS
                            + SqlTests.with(
                                    emulator,
                                    "full_cs",
                                    "Orders",
                                    start,
                                    end,
                                    ", 'scan.reorder' = '" + reorder + "'"));
            Map<Long, String> expected = new TreeMap<>();
            try (ResultSet rs =
                    db.singleUse()
                            .executeQuery(Statement.of("SELECT OrderId, Customer FROM Orders"))) {
                while (rs.next()) {
                    expected.put(rs.getLong(0), rs.getString(1));
                }
            }
            // Applied in arrival order, as an upsert sink would: the last row of a key wins.
            Map<Long, String> actual = new TreeMap<>();
            for (Row r :
                    SqlTests.collect(tEnv.executeSql("SELECT OrderId, Customer FROM orders"))) {
                Long id = (Long) r.getField(0);
                if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
                    actual.put(id, (String) r.getField(1));
                } else if (r.getKind() == RowKind.DELETE) {
                    actual.remove(id);
                }
            }
            return new Outcome(actual, expected);
        }
    }
}
