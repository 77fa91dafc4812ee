package io.spannercs.flink.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.testing.Await;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.CommittedRange;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.GroundTruth;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.StartupMode;
import io.spannercs.flink.testing.AllTypesTable;
import io.spannercs.flink.testing.FailInSnapshotAndStream;
import io.spannercs.flink.testing.InjectedFailures;
import io.spannercs.flink.testing.SnapshotOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exactly-once hand-off from snapshot to stream: tables filled with more than 20,000 rows of every
 * type (several tables, a composite key) before the job, a workload writing inserts, updates and
 * deletes while the snapshot and the stream are read, parallelism 2, checkpoints every 200 ms, and
 * the job failing once in the middle of the snapshot and once in the middle of the stream. The
 * output, applied per key in commit order, must equal the tables at the end; the snapshot rows must
 * be the tables at T, once each; the changes after T must be exactly the ground truth's; and no
 * key's change may come before its snapshot row. Both partition modes, and PostgreSQL.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SnapshotExactlyOnceITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String STREAMS =
            "CREATE CHANGE STREAM mut FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM imm FOR ALL OPTIONS (value_capture_type ="
                    + " 'NEW_ROW');\n";

    private static final String DDL =
            AllTypesTable.DDL
                    + "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount"
                    + " NUMERIC) PRIMARY KEY (OrderId);\n"
                    + "CREATE TABLE Lines (OrderId INT64 NOT NULL, Line STRING(MAX) NOT NULL,"
                    + " Qty INT64) PRIMARY KEY (OrderId, Line);\n"
                    + STREAMS;

    private static final String PG_DDL =
            RandomClientWrites.PG_TABLES
                    + "CREATE CHANGE STREAM mut FOR ALL WITH (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM imm FOR ALL WITH (value_capture_type = 'NEW_ROW');\n";

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("mut", Dialect.GOOGLE_STANDARD_SQL),
                Arguments.of("imm", Dialect.GOOGLE_STANDARD_SQL),
                Arguments.of("mut", Dialect.POSTGRESQL),
                Arguments.of("imm", Dialect.POSTGRESQL));
    }

    /** Changes after T: more than the 300 checked, and past the stream failure at 150. */
    private static final int MIN_CHANGES = 400;

    /** Splits, merges and moves the stream's readers must follow (one every 500 ms). */
    private static final int MIN_CHURN_EVENTS = 4;

    /** How long past the last commit seen before the job starts the range reads at the head. */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(2);

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void handsOffFromSnapshotToStreamExactlyOnceAcrossFailures(String stream, Dialect dialect)
            throws Exception {
        FailInSnapshotAndStream.reset(6000, 150);
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .dialect(dialect)
                        .ddl(dialect == Dialect.POSTGRESQL ? PG_DDL : DDL)
                        .initialPartitions(2)
                        .maxPartitions(6)
                        .churnInterval(Duration.ofMillis(500))
                        .seed(11)
                        .start()) {
            fill(emulator, 20_500);
            CommittedRange range = CommittedRange.startingNow(emulator, stream);
            Instant snapshotAt = range.start();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder()
                                    .transactionsPerSecond(60)
                                    .rowsPerTransaction(1, 3)
                                    .mix(1, 3, 1)
                                    .keySpace(20_000)
                                    .seed(5)
                                    .build());
            workload.start();
            // The range ends by what is committed, not by a clock: the job starts once the stream
            // holds enough changes after T for the stream's injected failure and the checks, and
            // the range ends a live tail after the last commit seen then; the workload writes on
            // through the tail, while the job reads the snapshot and then the stream (under load
            // it may read the tail as history too).
            range.awaitWritten(MIN_CHANGES, MIN_CHURN_EVENTS);
            Instant end = range.afterLastCommit().plus(LIVE_TAIL);

            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(
                            InjectedFailures.restartingConfiguration());
            env.setParallelism(2);
            env.enableCheckpointing(200);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, stream, snapshotAt, end)
                            .setStartTimestamp(null)
                            .setStartupMode(StartupMode.snapshotThenStream(snapshotAt))
                            .setSnapshotChunkRows(2000)
                            .build();
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .map(new FailInSnapshotAndStream(), ChangeEventTypeInfo.INSTANCE)
                            .executeAndCollect("snapshot exactly once " + stream)) {
                it.forEachRemaining(events::add);
            } finally {
                workload.stop();
            }
            assertThat(FailInSnapshotAndStream.failed())
                    .as("failures in the snapshot and in the stream")
                    .containsExactly("snapshot", "stream");

            long t = EmulatorSources.micros(snapshotAt);
            List<String> tables = tables(emulator);
            Map<String, String> atSnapshot = TableFold.tablesAt(emulator.database(), tables, t);
            assertThat(atSnapshot).hasSizeGreaterThan(20_000);

            TableFold snapshotOnly = new TableFold();
            List<String> snapshotKeys = new ArrayList<>();
            for (ChangeEvent e : events) {
                if (e.isSnapshot()) {
                    snapshotOnly.apply(e);
                    snapshotKeys.add(e.getTable() + "|" + e.getKeys());
                }
            }
            assertThat(snapshotKeys).as("snapshot rows").doesNotHaveDuplicates();
            assertThat(snapshotOnly.image()).isEqualTo(atSnapshot);

            List<String> changes = new ArrayList<>();
            events.stream()
                    .filter(e -> !e.isSnapshot())
                    .forEach(e -> changes.add(GroundTruth.identity(e)));
            List<String> expectedChanges =
                    GroundTruth.expectedAsSent(
                            emulator, stream, t + 1, EmulatorSources.micros(end));
            assertThat(expectedChanges).hasSizeGreaterThan(300);
            assertThat(changes)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expectedChanges);

            TableFold fold = TableFold.inCommitOrder(events);
            assertThat(fold.image())
                    .isEqualTo(
                            TableFold.tablesAt(
                                    emulator.database(), tables, EmulatorSources.micros(end)));
            assertThat(SnapshotOrder.changesBeforeTheirSnapshotRow(events))
                    .as("changes emitted before their key's snapshot row")
                    .isZero();
        }
    }

    /** Bounds a fill that stalls; a passing one takes a few seconds. */
    private static final Duration FILL_LIMIT = Duration.ofMinutes(2);

    /** Inserts rows into every table until the tables hold {@code rows}. */
    static void fill(SpannerEmulator emulator, int rows) throws InterruptedException {
        WorkloadGenerator fill =
                new WorkloadGenerator(
                        emulator.database(),
                        WorkloadConfig.builder()
                                .transactionsPerSecond(2000)
                                .rowsPerTransaction(10, 20)
                                .mix(1, 0, 0)
                                .keySpace(1_000_000)
                                .seed(3)
                                .build());
        fill.start();
        try {
            Await.until(
                    rows + " rows in the tables",
                    FILL_LIMIT,
                    () -> total(emulator) >= rows,
                    () -> total(emulator) + " rows so far");
        } finally {
            fill.stop();
        }
    }

    private static int total(SpannerEmulator emulator) {
        return emulator.database().database().rowCounts().values().stream()
                .mapToInt(Integer::intValue)
                .sum();
    }

    static List<String> tables(SpannerEmulator emulator) {
        List<String> out = new ArrayList<>();
        for (TableDef t : emulator.database().database().schema().tables()) {
            out.add(t.name());
        }
        return out;
    }
}
