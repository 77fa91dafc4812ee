package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.TimestampBound;
import io.spannercs.emulator.SpannerEmulator;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A continuously updated SQL aggregate over a {@code spanner-cdc} table equals the same aggregate
 * computed from the database, in both changelog modes and both partition modes.
 */
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcSqlITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount NUMERIC,"
                    + " UpdatedAt TIMESTAMP) PRIMARY KEY (OrderId);\n"
                    + "CREATE TABLE Payments (PaymentId INT64 NOT NULL, OrderId INT64,"
                    + " Amount NUMERIC) PRIMARY KEY (PaymentId);\n"
                    + "CREATE CHANGE STREAM full_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW_AND_OLD_VALUES');\n"
                    + "CREATE CHANGE STREAM legacy_full_cs FOR ALL OPTIONS (value_capture_type ="
                    + " 'NEW_ROW_AND_OLD_VALUES');\n"
                    + "CREATE CHANGE STREAM new_row_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n";

    static final String ORDERS_COLUMNS =
            "(OrderId BIGINT, Customer STRING, Amount DECIMAL(38, 9), UpdatedAt TIMESTAMP_LTZ(9),"
                    + " PRIMARY KEY (OrderId) NOT ENFORCED)";

    @ParameterizedTest
    @CsvSource({"full_cs, all", "legacy_full_cs, all", "new_row_cs, upsert", "full_cs, upsert"})
    void revenuePerCustomerEqualsTheDatabase(String stream, String mode) throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(DDL)
                                .initialPartitions(2)
                                .maxPartitions(4)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            Instant start = Instant.now();
            writeOrders(db, emulator, 120, 7);
            Instant end = Instant.now();

            StreamTableEnvironment tEnv = SqlTests.tableEnv();
            tEnv.executeSql(
                    "CREATE TABLE orders "
                            + ORDERS_COLUMNS
                            + SqlTests.with(
                                    emulator,
                                    stream,
                                    "Orders",
                                    start,
                                    end,
                                    ", 'changelog-mode' = '" + mode + "'"));
            Map<String, BigDecimal> actual =
                    SqlTests.totals(
                            SqlTests.collect(
                                    tEnv.executeSql(
                                            "SELECT Customer, SUM(Amount) FROM orders"
                                                    + " GROUP BY Customer")));

            assertThat(actual).isEqualTo(revenueInDatabase(db)).isNotEmpty();
        }
    }

    /** Inserts, updates (some of only one column) and deletes of 30 orders of 5 customers. */
    static void writeOrders(DatabaseClient db, SpannerEmulator emulator, int count, long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < count; i++) {
            long id = random.nextInt(30);
            int what = random.nextInt(8);
            Mutation m;
            if (what == 0) {
                m = Mutation.delete("Orders", Key.of(id));
            } else if (what == 1) {
                // Writes one column: an UPDATE whose other columns come from the row before.
                m =
                        Mutation.newUpdateBuilder("Orders")
                                .set("OrderId")
                                .to(id)
                                .set("Amount")
                                .to(new BigDecimal(random.nextInt(10_000)).movePointLeft(2))
                                .build();
            } else {
                m =
                        Mutation.newInsertOrUpdateBuilder("Orders")
                                .set("OrderId")
                                .to(id)
                                .set("Customer")
                                .to("c" + random.nextInt(5))
                                .set("Amount")
                                .to(new BigDecimal(random.nextInt(10_000)).movePointLeft(2))
                                .set("UpdatedAt")
                                .to(com.google.cloud.Timestamp.now())
                                .build();
            }
            try {
                db.write(List.of(m));
            } catch (com.google.cloud.spanner.SpannerException e) {
                // An update of an order that does not exist: NOT_FOUND, nothing written.
                if (e.getErrorCode() != com.google.cloud.spanner.ErrorCode.NOT_FOUND) {
                    throw e;
                }
            }
            if (i % 20 == 0) {
                emulator.database().changeStreams().forEach(cs -> cs.churnRandomly());
            }
        }
    }

    static Map<String, BigDecimal> revenueInDatabase(DatabaseClient db) {
        return revenueInDatabase(db, TimestampBound.strong());
    }

    /** Like {@link #revenueInDatabase(DatabaseClient)}, as the table was at {@code at}. */
    static Map<String, BigDecimal> revenueInDatabase(DatabaseClient db, Instant at) {
        return revenueInDatabase(
                db,
                TimestampBound.ofReadTimestamp(
                        com.google.cloud.Timestamp.ofTimeSecondsAndNanos(
                                at.getEpochSecond(), at.getNano())));
    }

    private static Map<String, BigDecimal> revenueInDatabase(
            DatabaseClient db, TimestampBound bound) {
        Map<String, BigDecimal> out = new TreeMap<>();
        try (ResultSet rs =
                db.singleUse(bound)
                        .executeQuery(Statement.of("SELECT Customer, Amount FROM Orders"))) {
            while (rs.next()) {
                out.merge(rs.getString(0), rs.getBigDecimal(1), BigDecimal::add);
            }
        }
        out.replaceAll((k, v) -> v.stripTrailingZeros());
        return out;
    }
}
