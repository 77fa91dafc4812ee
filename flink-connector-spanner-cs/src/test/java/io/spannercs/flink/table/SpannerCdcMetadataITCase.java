package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.Spanner;
import com.google.protobuf.ListValue;
import com.google.spanner.v1.KeySet;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every metadata column against the emulator's record of the transactions, and two SQL tables over
 * one change stream each reading only their own table's rows.
 */
@Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcMetadataITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    /**
     * Every metadata column, and the commit timestamp as rowtime: Flink's watermarks take at most
     * millisecond precision, so the rowtime is a computed column beside the microsecond one.
     */
    private static final String ORDERS =
            "(OrderId BIGINT, Customer STRING, Amount DECIMAL(38, 9), UpdatedAt TIMESTAMP_LTZ(9),"
                    + " commit_ts TIMESTAMP_LTZ(6) METADATA FROM 'commit_timestamp' VIRTUAL,"
                    + " server_transaction_id STRING METADATA VIRTUAL,"
                    + " record_sequence STRING METADATA VIRTUAL,"
                    + " mod_number INT METADATA VIRTUAL,"
                    + " transaction_tag STRING METADATA VIRTUAL,"
                    + " table_name STRING METADATA VIRTUAL,"
                    + " change_type STRING METADATA VIRTUAL,"
                    + " partition_token STRING METADATA VIRTUAL,"
                    + " is_system_transaction BOOLEAN METADATA VIRTUAL,"
                    + " number_of_records_in_transaction BIGINT METADATA VIRTUAL,"
                    + " number_of_partitions_in_transaction BIGINT METADATA VIRTUAL,"
                    + " value_capture_type STRING METADATA VIRTUAL,"
                    + " PRIMARY KEY (OrderId) NOT ENFORCED,"
                    + " rt AS CAST(commit_ts AS TIMESTAMP_LTZ(3)),"
                    + " WATERMARK FOR rt AS SOURCE_WATERMARK())";

    @Test
    void everyMetadataColumnMatchesTheTransaction() throws Exception {
        // One partition and no churn: the two orders of the first transaction share one record.
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(SpannerCdcSqlITCase.DDL)
                                .initialPartitions(1)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            Instant start = Instant.now();
            db.writeWithOptions(
                    List.of(order(1, "c1", "10.50"), order(2, "c2", "7"), payment(100, 1)),
                    Options.tag("app=sql-test"));
            db.write(
                    List.of(
                            Mutation.newUpdateBuilder("Orders")
                                    .set("OrderId")
                                    .to(1L)
                                    .set("Amount")
                                    .to(new BigDecimal("11"))
                                    .build()));
            emulator.database().commitSystemTransaction(List.of(protoDelete("Orders", "2")));
            db.write(List.of(Mutation.delete("Orders", Key.of(1L))));
            Instant end = Instant.now();
            List<CommittedTransaction> txns = new ArrayList<>();
            for (CommittedTransaction t : emulator.database().groundTruth()) {
                if (t.commitMicros() >= SqlTests.micros(start)) {
                    txns.add(t);
                }
            }
            assertThat(txns).hasSize(4);

            StreamTableEnvironment tEnv = SqlTests.tableEnv();
            tEnv.executeSql(
                    "CREATE TABLE orders "
                            + ORDERS
                            + SqlTests.with(emulator, "full_cs", "Orders", start, end, ""));
            List<Row> rows =
                    SqlTests.collect(
                            tEnv.executeSql(
                                    "SELECT OrderId, Customer, Amount, commit_ts,"
                                            + " server_transaction_id, record_sequence, mod_number,"
                                            + " transaction_tag, table_name, change_type,"
                                            + " partition_token, is_system_transaction,"
                                            + " number_of_records_in_transaction,"
                                            + " number_of_partitions_in_transaction,"
                                            + " value_capture_type FROM orders"));
            rows.sort(
                    java.util.Comparator.comparing((Row r) -> (Instant) r.getField(3))
                            .thenComparing(r -> (Integer) r.getField(6))
                            .thenComparing(r -> r.getKind().ordinal()));

            List<String> actual = new ArrayList<>();
            for (Row r : rows) {
                actual.add(
                        r.getKind().shortString()
                                + " "
                                + r.getField(0)
                                + " "
                                + r.getField(1)
                                + " "
                                + ((BigDecimal) r.getField(2)).stripTrailingZeros().toPlainString()
                                + " "
                                + r.getField(6)
                                + " "
                                + r.getField(9));
            }
            assertThat(actual)
                    .containsExactly(
                            "+I 1 c1 10.5 0 INSERT",
                            "+I 2 c2 7 1 INSERT",
                            "-U 1 c1 10.5 0 UPDATE",
                            "+U 1 c1 11 0 UPDATE",
                            "-D 2 c2 7 0 DELETE",
                            "-D 1 c1 11 0 DELETE");
            int[] txnOfRow = {0, 0, 1, 1, 2, 3};
            for (int i = 0; i < rows.size(); i++) {
                Row r = rows.get(i);
                CommittedTransaction t = txns.get(txnOfRow[i]);
                assertThat(r.getField(3)).as("commit_timestamp").isEqualTo(t.commitTimestamp());
                assertThat(r.getField(4))
                        .as("server_transaction_id")
                        .isEqualTo(t.serverTransactionId());
                assertThat((String) r.getField(5)).as("record_sequence").isNotEmpty();
                assertThat(r.getField(7)).as("transaction_tag").isEqualTo(t.transactionTag());
                assertThat(r.getField(8)).as("table_name").isEqualTo("Orders");
                assertThat((String) r.getField(10)).as("partition_token").isNotEmpty();
                assertThat(r.getField(11))
                        .as("is_system_transaction")
                        .isEqualTo(t.systemTransaction());
                // The first transaction wrote two tables: one record each.
                assertThat(r.getField(12))
                        .as("number_of_records_in_transaction")
                        .isEqualTo(txnOfRow[i] == 0 ? 2L : 1L);
                assertThat(r.getField(13)).as("number_of_partitions_in_transaction").isEqualTo(1L);
                assertThat(r.getField(14))
                        .as("value_capture_type")
                        .isEqualTo("NEW_ROW_AND_OLD_VALUES");
            }
            assertThat(rows.get(0).getField(7)).isEqualTo("app=sql-test");
            assertThat(rows.get(4).getField(11)).isEqualTo(true);
        }
    }

    @Test
    void tablesOverOneStreamReadOnlyTheirRows() throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(SpannerCdcSqlITCase.DDL)
                                .initialPartitions(2)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            Instant start = Instant.now();
            for (int i = 0; i < 20; i++) {
                db.write(List.of(order(i, "c" + i % 3, "1." + i), payment(1000 + i, i)));
            }
            db.write(List.of(payment(1000, 5)));
            Instant end = Instant.now();

            StreamTableEnvironment tEnv = SqlTests.tableEnv();
            tEnv.executeSql(
                    "CREATE TABLE orders (OrderId BIGINT, Customer STRING,"
                            + " t STRING METADATA FROM 'table_name' VIRTUAL)"
                            + SqlTests.with(emulator, "full_cs", "Orders", start, end, ""));
            tEnv.executeSql(
                    "CREATE TABLE payments (PaymentId BIGINT, OrderId BIGINT,"
                            + " t STRING METADATA FROM 'table_name' VIRTUAL)"
                            + SqlTests.with(emulator, "full_cs", "Payments", start, end, ""));
            List<Row> rows =
                    SqlTests.collect(
                            tEnv.executeSql(
                                    "SELECT t, OrderId FROM orders UNION ALL"
                                            + " SELECT t, PaymentId FROM payments"));
            long orders = rows.stream().filter(r -> r.getField(0).equals("Orders")).count();
            long payments = rows.stream().filter(r -> r.getField(0).equals("Payments")).count();
            assertThat(orders).isEqualTo(20);
            assertThat(payments).as("20 inserts, one update as -U/+U").isEqualTo(22);
            assertThat(rows)
                    .filteredOn(r -> r.getField(0).equals("Orders"))
                    .allMatch(r -> r.getKind() == RowKind.INSERT && (Long) r.getField(1) < 20);
            assertThat(rows)
                    .filteredOn(r -> r.getField(0).equals("Payments"))
                    .allMatch(r -> (Long) r.getField(1) >= 1000);
        }
    }

    static Mutation order(long id, String customer, String amount) {
        return Mutation.newInsertOrUpdateBuilder("Orders")
                .set("OrderId")
                .to(id)
                .set("Customer")
                .to(customer)
                .set("Amount")
                .to(new BigDecimal(amount))
                .build();
    }

    static Mutation payment(long id, long orderId) {
        return Mutation.newInsertOrUpdateBuilder("Payments")
                .set("PaymentId")
                .to(id)
                .set("OrderId")
                .to(orderId)
                .set("Amount")
                .to(new BigDecimal("1"))
                .build();
    }

    /** A delete in the emulator's own terms: the client cannot commit system transactions. */
    private static com.google.spanner.v1.Mutation protoDelete(String table, String int64Key) {
        ListValue key =
                ListValue.newBuilder()
                        .addValues(com.google.protobuf.Value.newBuilder().setStringValue(int64Key))
                        .build();
        return com.google.spanner.v1.Mutation.newBuilder()
                .setDelete(
                        com.google.spanner.v1.Mutation.Delete.newBuilder()
                                .setTable(table)
                                .setKeySet(KeySet.newBuilder().addKeys(key)))
                .build();
    }
}
