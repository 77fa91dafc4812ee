package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Statement;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.schema.Dialect;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A PostgreSQL-dialect database: the schema check and the capture type are read from its
 * information schema, and the revenue aggregate equals the database.
 */
@Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcPostgresITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    private static final String DDL =
            "CREATE TABLE orders (orderid bigint NOT NULL, customer varchar, amount numeric,"
                    + " PRIMARY KEY (orderid));\n"
                    + "CREATE CHANGE STREAM cs FOR ALL WITH (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW_AND_OLD_VALUES');\n";

    @Test
    void revenuePerCustomerEqualsTheDatabase() throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder().dialect(Dialect.POSTGRESQL).ddl(DDL).start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            Instant start = Instant.now();
            Random random = new Random(11);
            for (int i = 0; i < 60; i++) {
                long id = random.nextInt(15);
                db.write(
                        List.of(
                                random.nextInt(6) == 0
                                        ? Mutation.delete("orders", Key.of(id))
                                        : Mutation.newInsertOrUpdateBuilder("orders")
                                                .set("orderid")
                                                .to(id)
                                                .set("customer")
                                                .to("c" + random.nextInt(4))
                                                .set("amount")
                                                .to(
                                                        com.google.cloud.spanner.Value.pgNumeric(
                                                                random.nextInt(10_000) / 100.0
                                                                        + ""))
                                                .build()));
            }
            Instant end = Instant.now();

            StreamTableEnvironment tEnv = SqlTests.tableEnv();
            tEnv.executeSql(
                    "CREATE TABLE orders (OrderId BIGINT, Customer STRING, Amount DECIMAL(38, 9))"
                            + SqlTests.with(emulator, "cs", "orders", start, end, ""));
            Map<String, BigDecimal> actual =
                    SqlTests.totals(
                            SqlTests.collect(
                                    tEnv.executeSql(
                                            "SELECT Customer, SUM(Amount) FROM orders"
                                                    + " GROUP BY Customer")));

            Map<String, BigDecimal> expected = new TreeMap<>();
            try (ResultSet rs =
                    db.singleUse()
                            .executeQuery(Statement.of("SELECT customer, amount FROM orders"))) {
                while (rs.next()) {
                    expected.merge(
                            rs.getString(0),
                            new BigDecimal(rs.getValue(1).getString()),
                            BigDecimal::add);
                }
            }
            expected.replaceAll((k, v) -> v.stripTrailingZeros());
            assertThat(actual).isEqualTo(expected).isNotEmpty();
        }
    }
}
