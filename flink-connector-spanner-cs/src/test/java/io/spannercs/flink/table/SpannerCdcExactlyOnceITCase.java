package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Spanner;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.flink.source.CommittedRange;
import io.spannercs.flink.source.GroundTruth;
import io.spannercs.flink.testing.InjectedFailures;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly once through SQL: while orders are written and partitions churn, a SQL job with
 * checkpoints fails twice in a UDF and restores; its changelog must hold every change of the ground
 * truth once, and fold to the database's revenue per customer. The range ends by what is committed,
 * not by a clock: the writer goes on until it holds enough changes for both failures.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class SpannerCdcExactlyOnceITCase {
    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = SqlTests.cluster();

    /** The UDF fails the job at every {@code FAIL_EVERY}-th row it sees, while failures last. */
    private static final int FAIL_EVERY = 60;

    private static final int FAILURES = 2;

    /**
     * Changes the range must hold before the job starts: every change passes the UDF at least once,
     * so this many make both injected failures happen; more than the 100 the check requires.
     */
    private static final int MIN_CHANGES = FAILURES * FAIL_EVERY;

    /** Splits, merges and moves the reader must follow. */
    private static final int MIN_CHURN_EVENTS = 2;

    /** How long past the last commit seen before the job starts the range reads at the head. */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(2);

    static final AtomicInteger FAILURES_LEFT = new AtomicInteger();
    static final AtomicInteger SEEN = new AtomicInteger();

    @Test
    void changelogEqualsGroundTruthAcrossFailures() throws Exception {
        FAILURES_LEFT.set(FAILURES);
        SEEN.set(0);
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(SpannerCdcSqlITCase.DDL)
                                .initialPartitions(2)
                                .maxPartitions(4)
                                .churnInterval(Duration.ofMillis(500))
                                .seed(5)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            CommittedRange range = CommittedRange.startingNow(emulator, "full_cs");
            Instant start = range.start();
            // The writer stops at the end of the range, which is known only once it has written
            // enough: under load a fixed 8 s held 44 changes, and the failures never happened.
            AtomicReference<Instant> stopAt = new AtomicReference<>();
            Thread writer =
                    new Thread(
                            () -> {
                                for (int round = 0; writes(stopAt.get()); round++) {
                                    SpannerCdcSqlITCase.writeOrders(db, emulator, 10, round);
                                }
                            });
            writer.start();
            Instant end;
            try {
                range.awaitWritten(MIN_CHANGES, MIN_CHURN_EVENTS);
                end = range.afterLastCommit().plus(LIVE_TAIL);
                stopAt.set(end); // the writer writes through the live tail
            } finally {
                stopAt.compareAndSet(null, Instant.now()); // a failure above stops it now
            }

            Configuration conf = InjectedFailures.restartingConfiguration();
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.enableCheckpointing(200);
            StreamTableEnvironment tEnv = SqlTests.tableEnv(env);
            tEnv.createTemporarySystemFunction("fail_sometimes", FailSometimes.class);
            tEnv.executeSql(
                    "CREATE TABLE orders (OrderId BIGINT, Customer STRING, Amount DECIMAL(38, 9),"
                            + " txn STRING METADATA FROM 'server_transaction_id' VIRTUAL,"
                            + " change STRING METADATA FROM 'change_type' VIRTUAL)"
                            + SqlTests.with(emulator, "full_cs", "Orders", start, end, ""));
            List<Row> rows;
            try {
                rows =
                        SqlTests.collect(
                                tEnv.executeSql(
                                        "SELECT fail_sometimes(OrderId), Customer, Amount, txn,"
                                                + " change FROM orders"));
            } finally {
                writer.join();
            }
            assertThat(FAILURES_LEFT.get())
                    .as("the job failed and restored %d times", FAILURES)
                    .isZero();

            List<String> actual = new ArrayList<>();
            List<Row> changelog = new ArrayList<>();
            for (Row r : rows) {
                if (r.getKind() != RowKind.UPDATE_BEFORE) {
                    actual.add(
                            GroundTruth.identity(
                                    (String) r.getField(3),
                                    "Orders",
                                    (String) r.getField(4),
                                    Map.of("OrderId", r.getField(0))));
                }
                changelog.add(Row.ofKind(r.getKind(), r.getField(1), r.getField(2)));
            }
            List<String> expected =
                    GroundTruth.expected(
                            emulator.database(),
                            "full_cs",
                            SqlTests.micros(start),
                            SqlTests.micros(end));
            assertThat(expected).hasSizeGreaterThan(100);
            assertThat(actual)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);

            // Per customer, what the changelog leaves equals the database.
            Map<String, BigDecimal> revenue = new TreeMap<>();
            SqlTests.fold(changelog)
                    .forEach(
                            (row, count) ->
                                    revenue.merge(
                                            (String) row.getField(0),
                                            ((BigDecimal) row.getField(1))
                                                    .multiply(BigDecimal.valueOf(count)),
                                            BigDecimal::add));
            revenue.replaceAll((k, v) -> v.stripTrailingZeros());
            assertThat(revenue).isEqualTo(revenueAt(emulator, SqlTests.micros(end)));
        }
    }

    /** Whether the writer goes on: until it is told where the range ends, and then up to it. */
    private static boolean writes(Instant stopAt) {
        return stopAt == null || Instant.now().isBefore(stopAt);
    }

    /** Revenue per customer of the Orders table as of a commit time, from the ground truth. */
    private static Map<String, BigDecimal> revenueAt(SpannerEmulator emulator, long micros) {
        Map<List<com.google.protobuf.Value>, List<com.google.protobuf.Value>> rows =
                new java.util.HashMap<>();
        int customer = -1;
        int amount = -1;
        for (CommittedTransaction t : emulator.database().groundTruth()) {
            for (RowChange c : t.changes()) {
                if (t.commitMicros() > micros || !c.table().name().equals("Orders")) {
                    continue;
                }
                List<String> names = c.table().columns().stream().map(col -> col.name()).toList();
                customer = names.indexOf("Customer");
                amount = names.indexOf("Amount");
                if (c.newRow() == null) {
                    rows.remove(c.key());
                } else {
                    rows.put(c.key(), c.newRow());
                }
            }
        }
        Map<String, BigDecimal> out = new TreeMap<>();
        for (List<com.google.protobuf.Value> row : rows.values()) {
            out.merge(
                    row.get(customer).getStringValue(),
                    new BigDecimal(row.get(amount).getStringValue()),
                    BigDecimal::add);
        }
        out.replaceAll((k, v) -> v.stripTrailingZeros());
        return out;
    }

    /** Fails the job twice, at different points, so that it restores from checkpoints. */
    public static class FailSometimes extends ScalarFunction {
        public Long eval(Long id) {
            int seen = SEEN.incrementAndGet();
            if (seen % FAIL_EVERY == 0 && FAILURES_LEFT.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("Injected failure after " + seen + " rows");
            }
            return id;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }
}
