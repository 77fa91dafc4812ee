package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.workload.DemoSchema;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SQL example's table and query, bounded, on the emulator's demo workload: the revenue per
 * customer it ends with equals the database's.
 */
@org.junit.jupiter.api.Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class SqlRevenueJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    void revenuePerCustomerEqualsTheDatabase() throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(DemoSchema.ddl())
                                .initialPartitions(2)
                                .churnInterval(java.time.Duration.ofMillis(500))
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Instant start = Instant.now();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.demo().transactionsPerSecond(100).build());
            workload.start();
            Thread.sleep(2500);
            workload.stop();
            Instant end = Instant.now();

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            tables.executeSql(
                    SqlRevenueJob.ordersTable(
                            SqlRevenueJob.flags(
                                    new String[] {
                                        "--project", emulator.projectId(),
                                        "--instance", emulator.instanceId(),
                                        "--database", emulator.databaseId(),
                                        "--emulator-host", emulator.hostPort(),
                                        "--start-timestamp", start.toString(),
                                        "--end-timestamp", end.toString()
                                    })));
            Map<Long, BigDecimal> actual = new TreeMap<>();
            try (CloseableIterator<Row> rows =
                    tables.executeSql(SqlRevenueJob.REVENUE_QUERY).collect()) {
                while (rows.hasNext()) {
                    Row r = rows.next();
                    Long customer = (Long) r.getField(0);
                    if (r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER) {
                        actual.put(customer, ((BigDecimal) r.getField(1)).stripTrailingZeros());
                    } else if (r.getKind() == RowKind.DELETE) {
                        actual.remove(customer);
                    }
                }
            }
            assertThat(actual).isEqualTo(revenueInDatabase(clients.client())).isNotEmpty();
        }
    }

    /** The same aggregate over the rows the database holds now (every order since the start). */
    private static Map<Long, BigDecimal> revenueInDatabase(DatabaseClient db) {
        Map<Long, BigDecimal> out = new TreeMap<>();
        try (ResultSet rs =
                db.singleUse()
                        .executeQuery(Statement.of("SELECT CustomerId, Amount FROM Orders"))) {
            while (rs.next()) {
                if (rs.isNull(0) || rs.isNull(1)) {
                    continue;
                }
                out.merge(rs.getLong(0), rs.getBigDecimal(1), BigDecimal::add);
            }
        }
        out.replaceAll((k, v) -> v.stripTrailingZeros());
        return out;
    }
}
