package io.spannercs.flink.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Event time in SQL: {@code WATERMARK FOR rt AS SOURCE_WATERMARK()} makes the change stream's
 * heartbeat watermark the query's, so TUMBLE windows close when writes stop and drop no change of a
 * partition that lags; a watermark expression over the rows is refused at planning.
 *
 * <p>Windows are compared with the emulator's record of every committed change: per window of
 * commit time, the number of rows inserted and the net change of {@code Amount} (an update adds its
 * new amount and takes its old one, as its UPDATE_BEFORE and UPDATE_AFTER rows do).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SpannerCdcWatermarkITCase {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .build());

    private static final long WINDOW_MILLIS = 1000;

    private static final String ORDERS =
            "(OrderId BIGINT, Customer STRING, Amount DECIMAL(38, 9), UpdatedAt TIMESTAMP_LTZ(9),"
                    + " commit_ts TIMESTAMP_LTZ(6) METADATA FROM 'commit_timestamp' VIRTUAL,"
                    + " rt AS CAST(commit_ts AS TIMESTAMP_LTZ(3)),"
                    + " PRIMARY KEY (OrderId) NOT ENFORCED,"
                    + " WATERMARK FOR rt AS SOURCE_WATERMARK())";

    /** Rows inserted and the net change of the amount, per window. */
    private static final String WINDOWS =
            "SELECT window_start, COUNT(*) AS inserted, SUM(Amount) AS amount FROM TABLE("
                    + " TUMBLE(TABLE orders, DESCRIPTOR(rt), INTERVAL '1' SECOND))"
                    + " GROUP BY window_start, window_end";

    /**
     * An unbounded query over a table whose writes stop: every window up to the last write closes
     * from heartbeats alone, with no later write, and holds the database's aggregate.
     */
    @Test
    void windowsCloseOnHeartbeatsWhenWritesStop() throws Exception {
        Duration heartbeat = Duration.ofMillis(500);
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(SpannerCdcSqlITCase.DDL)
                                .initialPartitions(2)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            Instant start = Instant.now();
            StreamTableEnvironment tEnv = utc(SqlTests.tableEnv());
            tEnv.executeSql(
                    "CREATE TABLE orders "
                            + ORDERS
                            + unboundedWith(emulator, "full_cs", start, heartbeat));
            TableResult result = tEnv.executeSql(WINDOWS);
            List<Row> rows = new CopyOnWriteArrayList<>();
            Thread reader = collectInBackground(result, rows, new AtomicReference<>());
            try {
                write(db, new Random(3), 60, 40);
                // The last write inserts, so its window has a row to show.
                db.write(List.of(order(1000, "7.77")));
                long lastWrite = lastCommitMillis(emulator, start);
                long lastWindowStart = lastWrite - Math.floorMod(lastWrite, WINDOW_MILLIS);
                long lastWindowEnd = lastWindowStart + WINDOW_MILLIS;
                Map<Long, String> expected = expectedWindows(emulator, start, Long.MAX_VALUE);
                assertThat(expected).containsKey(lastWindowStart);

                // A bound for a failure, not a wait: nothing is written from here on.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!windowStarts(rows).contains(lastWindowStart)) {
                    assertThat(System.nanoTime())
                            .as(
                                    "the window of the last write [%s, %s) closed without a later"
                                            + " write; windows closed: %s",
                                    Instant.ofEpochMilli(lastWindowStart),
                                    Instant.ofEpochMilli(lastWindowEnd),
                                    actualWindows(rows))
                            .isLessThan(deadline);
                    Thread.sleep(20);
                }
                long closedAfterMillis = System.currentTimeMillis() - lastWindowEnd;
                System.out.printf(
                        "SpannerCdcWatermarkITCase: the last window closed %d ms after its end"
                                + " (heartbeat interval %d ms)%n",
                        closedAfterMillis, heartbeat.toMillis());
                assertThat(lastCommitMillis(emulator, start))
                        .as("no write after the pause")
                        .isEqualTo(lastWrite);
                assertThat(actualWindows(rows)).isEqualTo(expected);
            } finally {
                cancel(result);
                reader.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }

    /**
     * One partition is held back by the emulator while the others are read: windows wait for it
     * instead of dropping its changes as late (Flink's window operator counts none in {@code
     * numLateRecordsDropped}). With partitions churning in both modes, at parallelism 2, with and
     * without the reorder. With it, every window equals the database's; without it a key whose
     * range moved between readers may reach the changelog out of order (docs/sql.md, "Order"), so
     * only the lateness is checked.
     */
    @ParameterizedTest(name = "{0} scan.reorder {1}")
    @CsvSource({"full_cs, true", "full_cs, false", "legacy_full_cs, true", "legacy_full_cs, false"})
    void aLaggingPartitionLosesNoChangeToTheWindows(String stream, boolean reorder)
            throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(SpannerCdcSqlITCase.DDL)
                                .initialPartitions(3)
                                .maxPartitions(6)
                                .churnInterval(Duration.ofMillis(400))
                                .seed(7)
                                .start();
                Spanner spanner = SqlTests.client(emulator)) {
            DatabaseClient db = SqlTests.db(spanner, emulator);
            // A partition read from the start: held, it lags behind every change of the others.
            String held = emulator.database().changeStream(stream).liveTokens().get(0);
            Instant start = Instant.now();
            write(db, new Random(5), 40, 100);
            Instant end = Instant.now();
            Map<Long, String> expected = expectedWindows(emulator, start, SqlTests.micros(end));
            assertThat(expected.size()).as("windows written").isGreaterThanOrEqualTo(3);

            emulator.faults().hold(held);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            StreamTableEnvironment tEnv = utc(SqlTests.tableEnv(env));
            env.setParallelism(2);
            tEnv.executeSql(
                    "CREATE TABLE orders "
                            + ORDERS
                            + SqlTests.with(
                                    emulator,
                                    stream,
                                    "Orders",
                                    start,
                                    end,
                                    ", 'scan.reorder' = '" + reorder + "'"));
            TableResult result = tEnv.executeSql(WINDOWS);
            List<Row> rows = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread reader = collectInBackground(result, rows, failure);
            // How long the partition lags decides how much a wrong watermark would drop, not
            // whether the windows are right: with the source's watermark none closes meanwhile.
            Thread.sleep(3000);
            assertThat(actualWindows(rows))
                    .as("windows closed while a partition read from the start was held")
                    .isEmpty();
            emulator.faults().release(held);
            reader.join(TimeUnit.MINUTES.toMillis(2));
            assertThat(reader.isAlive()).as("the bounded query ended").isFalse();
            assertThat(failure.get()).as("the query's failure").isNull();

            JobID job = result.getJobClient().orElseThrow().getJobID();
            Map<String, Metric> late = REPORTER.findMetrics(job, "numLateRecordsDropped");
            assertThat(late).as("the window operator's late-record counters").isNotEmpty();
            long dropped = 0;
            for (Metric m : late.values()) {
                dropped += ((Counter) m).getCount();
            }
            assertThat(dropped).as("rows the windows dropped as late").isZero();
            if (reorder) {
                assertThat(actualWindows(rows)).isEqualTo(expected);
            } else {
                assertThat(actualWindows(rows)).as("windows").isNotEmpty();
            }
        }
    }

    @Test
    void aWatermarkExpressionOverTheRowsIsRefusedAtPlanning() {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder().ddl(SpannerCdcSqlITCase.DDL).start()) {
            StreamTableEnvironment tEnv = SqlTests.tableEnv();
            tEnv.executeSql(
                    "CREATE TABLE orders "
                            + ORDERS.replace("SOURCE_WATERMARK()", "rt - INTERVAL '1' SECOND")
                            + unboundedWith(
                                    emulator, "full_cs", Instant.now(), Duration.ofSeconds(1)));
            assertThatThrownBy(() -> tEnv.explainSql(WINDOWS))
                    .hasStackTraceContaining("spanner-cdc table 'Orders'")
                    .hasStackTraceContaining("AS SOURCE_WATERMARK()");
        }
    }

    private static String unboundedWith(
            SpannerEmulator emulator, String stream, Instant start, Duration heartbeat) {
        return SqlTests.with(emulator, stream, "Orders", start, start, "")
                .replace(", 'scan.end.timestamp' = '" + start + "'", "")
                .replace(
                        "'heartbeat.interval' = '100ms'",
                        "'heartbeat.interval' = '" + heartbeat.toMillis() + "ms'");
    }

    /**
     * {@code transactions} inserts or updates of 12 orders, {@code pauseMillis} apart, so they span
     * several windows.
     */
    private static void write(DatabaseClient db, Random random, int transactions, int pauseMillis)
            throws InterruptedException {
        for (int i = 0; i < transactions; i++) {
            long id = random.nextInt(12);
            db.write(List.of(order(id, new BigDecimal(random.nextInt(1000)).movePointLeft(2))));
            Thread.sleep(pauseMillis);
        }
    }

    private static Mutation order(long id, Object amount) {
        return Mutation.newInsertOrUpdateBuilder("Orders")
                .set("OrderId")
                .to(id)
                .set("Customer")
                .to("c" + id % 3)
                .set("Amount")
                .to(new BigDecimal(amount.toString()))
                .build();
    }

    private static long lastCommitMillis(SpannerEmulator emulator, Instant start) {
        long last = Long.MIN_VALUE;
        for (CommittedTransaction t : emulator.database().groundTruth()) {
            if (t.commitMicros() >= SqlTests.micros(start)) {
                last = Math.max(last, Math.floorDiv(t.commitMicros(), 1000));
            }
        }
        return last;
    }

    /**
     * The database's windows of Orders changes committed in [start, endMicros]: rows inserted and
     * the net change of the amount, by window start. Windows without an insert are left out on both
     * sides: Flink emits no window whose rows cancel out.
     */
    private static Map<Long, String> expectedWindows(
            SpannerEmulator emulator, Instant start, long endMicros) {
        Map<Long, long[]> inserted = new TreeMap<>();
        Map<Long, BigDecimal> amounts = new TreeMap<>();
        for (CommittedTransaction t : emulator.database().groundTruth()) {
            if (t.commitMicros() < SqlTests.micros(start) || t.commitMicros() > endMicros) {
                continue;
            }
            long millis = Math.floorDiv(t.commitMicros(), 1000);
            long window = millis - Math.floorMod(millis, WINDOW_MILLIS);
            for (RowChange c : t.changes()) {
                if (!c.table().name().equals("Orders")) {
                    continue;
                }
                BigDecimal delta = BigDecimal.ZERO;
                if (c.newRow() != null) {
                    delta = delta.add(amount(c.newRow()));
                }
                if (c.oldRow() != null) {
                    delta = delta.subtract(amount(c.oldRow()));
                } else {
                    inserted.computeIfAbsent(window, w -> new long[1])[0]++;
                }
                amounts.merge(window, delta, BigDecimal::add);
            }
        }
        Map<Long, String> out = new TreeMap<>();
        inserted.forEach((w, n) -> out.put(w, n[0] + " " + plain(amounts.get(w))));
        return out;
    }

    private static BigDecimal amount(List<com.google.protobuf.Value> row) {
        // Orders (OrderId, Customer, Amount, UpdatedAt): NUMERIC travels as a string.
        com.google.protobuf.Value v = row.get(2);
        return v.hasNullValue() ? BigDecimal.ZERO : new BigDecimal(v.getStringValue());
    }

    private static Map<Long, String> actualWindows(List<Row> rows) {
        Map<Long, String> out = new TreeMap<>();
        for (Row r : rows) {
            long window = windowStart(r);
            String previous =
                    out.put(window, r.getField(1) + " " + plain((BigDecimal) r.getField(2)));
            assertThat(previous).as("window %s emitted twice", window).isNull();
        }
        return out;
    }

    private static List<Long> windowStarts(List<Row> rows) {
        List<Long> out = new ArrayList<>();
        rows.forEach(r -> out.add(windowStart(r)));
        return Collections.unmodifiableList(out);
    }

    private static long windowStart(Row r) {
        return ((java.time.LocalDateTime) r.getField(0))
                .atZone(java.time.ZoneOffset.UTC)
                .toInstant()
                .toEpochMilli();
    }

    private static String plain(BigDecimal d) {
        return d.stripTrailingZeros().toPlainString();
    }

    /** Window starts are wall-clock times of the session's zone: UTC, as the expectations. */
    private static StreamTableEnvironment utc(StreamTableEnvironment tEnv) {
        tEnv.getConfig().setLocalTimeZone(java.time.ZoneOffset.UTC);
        return tEnv;
    }

    private static Thread collectInBackground(
            TableResult result, List<Row> rows, AtomicReference<Throwable> failure) {
        Thread t =
                new Thread(
                        () -> {
                            try (CloseableIterator<Row> it = result.collect()) {
                                it.forEachRemaining(rows::add);
                            } catch (Exception e) {
                                // Cancelled by the test, or the job failed.
                                failure.set(e);
                            }
                        },
                        "windows");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void cancel(TableResult result) throws Exception {
        JobClient job = result.getJobClient().orElseThrow();
        if (!job.getJobStatus().get().isTerminalState()) {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }
}
