package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import io.spannercs.emulator.SpannerEmulator;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code 'scan.startup.mode' = 'initial'} into an aggregate while the table is written: orders
 * exist before the job, a writer inserts, updates and deletes them while the job (parallelism 2,
 * checkpoints every 200 ms) reads the snapshot and then the stream, and the aggregate over the
 * whole output must equal the same aggregate over the table as of the end timestamp. A row counted
 * twice (snapshot and an INSERT of the same key), a change applied before its snapshot row or a
 * change lost at the hand-off would each leave a wrong total.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SpannerCdcSnapshotITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    private static final int BULK_ORDERS = 3000;

    @ParameterizedTest(name = "{0}, changelog-mode {1}")
    @CsvSource({"full_cs, all", "legacy_full_cs, all", "new_row_cs, upsert"})
    void initialIntoAnAggregateEqualsTheAggregateOverTheTable(String stream, String mode)
            throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(SpannerCdcSqlITCase.DDL)
                                .initialPartitions(2)
                                .maxPartitions(4)
                                .seed(3)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            prefill(db);
            Instant end = Instant.now().plusSeconds(15);
            Thread writer =
                    new Thread(
                            () -> {
                                long seed = 11;
                                while (Instant.now().isBefore(end)) {
                                    SpannerCdcSqlITCase.writeOrders(db, emulator, 10, seed++);
                                }
                            },
                            "orders-writer");
            writer.start();

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            StreamTableEnvironment tEnv = SqlTests.tableEnv(env);
            env.setParallelism(2);
            env.enableCheckpointing(200);
            tEnv.executeSql(
                    "CREATE TABLE orders "
                            + SpannerCdcSqlITCase.ORDERS_COLUMNS
                            + " WITH ('connector' = 'spanner-cdc', 'project' = '"
                            + emulator.projectId()
                            + "', 'instance' = '"
                            + emulator.instanceId()
                            + "', 'database' = '"
                            + emulator.databaseId()
                            + "', 'change-stream' = '"
                            + stream
                            + "', 'table' = 'Orders', 'emulator-host' = '"
                            + emulator.hostPort()
                            + "', 'scan.startup.mode' = 'initial',"
                            + " 'scan.snapshot.chunk.size' = '500', 'scan.end.timestamp' = '"
                            + end
                            + "', 'heartbeat.interval' = '100ms', 'changelog-mode' = '"
                            + mode
                            + "')");
            List<Row> changelog =
                    SqlTests.collect(
                            tEnv.executeSql(
                                    "SELECT Customer, SUM(Amount) FROM orders GROUP BY Customer"));
            writer.join();

            // As of the end: a loaded machine's last round of writes may commit after it.
            Map<String, BigDecimal> expected = SpannerCdcSqlITCase.revenueInDatabase(db, end);
            assertThat(SqlTests.totals(changelog)).isEqualTo(expected).isNotEmpty();
        }
    }

    /** Orders 0..29 (the writer's) and {@link #BULK_ORDERS} more, in transactions of 500. */
    private static void prefill(DatabaseClient db) {
        List<Long> ids = new ArrayList<>();
        for (long id = 0; id < 30; id++) {
            ids.add(id);
        }
        for (long id = 1000; id < 1000 + BULK_ORDERS; id++) {
            ids.add(id);
        }
        List<Mutation> batch = new ArrayList<>();
        for (long id : ids) {
            batch.add(
                    Mutation.newInsertBuilder("Orders")
                            .set("OrderId")
                            .to(id)
                            .set("Customer")
                            .to("c" + (id % 5))
                            .set("Amount")
                            .to(new BigDecimal(id % 997).movePointLeft(1))
                            .build());
            if (batch.size() == 500) {
                db.write(batch);
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            db.write(batch);
        }
    }
}
