package io.spannercs.flink.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.CommittedRange;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.GroundTruth;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.StartupMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Snapshot then stream: tables filled before the job, a workload writing while the snapshot and the
 * stream are read. The snapshot rows and the changes after the snapshot timestamp, applied per key
 * in commit order, must give the tables' contents at the end; the changes after T must be exactly
 * the ground truth's; no key's change may leave the source before its snapshot row.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SnapshotThenStreamITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    /** Rows in the tables at the snapshot: enough for several chunks per split. */
    private static final int MIN_ROWS = 2000;

    /** Changes after the snapshot the range holds at least, through two partition churns. */
    private static final int MIN_CHANGES = 200;

    /** How long the workload writes on after the range holds them, while the job reads. */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(3);

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount NUMERIC,"
                    + " Tags ARRAY<INT64>) PRIMARY KEY (OrderId);\n"
                    + "CREATE TABLE Customers (Name STRING(MAX) NOT NULL, Tier INT64) PRIMARY KEY"
                    + " (Name);\n"
                    + "CREATE CHANGE STREAM mut FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM imm FOR ALL OPTIONS (value_capture_type ="
                    + " 'NEW_ROW');\n";

    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void snapshotAndChangesFoldToTheTables(String stream) throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(2)
                        .maxPartitions(6)
                        .churnInterval(Duration.ofMillis(500))
                        .seed(7)
                        .start()) {
            SnapshotExactlyOnceITCase.fill(emulator, MIN_ROWS + 1);
            CommittedRange range = CommittedRange.startingNow(emulator, stream);
            Instant snapshotAt = range.start();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder()
                                    .transactionsPerSecond(100)
                                    .keySpace(100_000)
                                    .seed(5)
                                    .build());
            workload.start();
            // The range holds what the checks need, however slowly a loaded machine writes; the
            // workload writes on through a live tail, while the job starts and reads the snapshot.
            Instant end;
            try {
                end = range.awaitWritten(MIN_CHANGES, 2).afterLastCommit().plus(LIVE_TAIL);
            } catch (AssertionError | RuntimeException e) {
                workload.stop();
                throw e;
            }

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(200);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, stream, snapshotAt, end)
                            .setStartTimestamp(null)
                            .setStartupMode(StartupMode.snapshotThenStream(snapshotAt))
                            .setSnapshotChunkRows(500)
                            .build();
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .map(e -> e, ChangeEventTypeInfo.INSTANCE)
                            .executeAndCollect("snapshot then stream " + stream)) {
                it.forEachRemaining(events::add);
            } finally {
                workload.stop();
            }

            long t = EmulatorSources.micros(snapshotAt);
            List<String> tables = List.of("Customers", "Orders");
            Map<String, String> atSnapshot = TableFold.tablesAt(emulator.database(), tables, t);
            assertThat(atSnapshot).hasSizeGreaterThan(MIN_ROWS);

            List<ChangeEvent> snapshotRows =
                    events.stream().filter(ChangeEvent::isSnapshot).toList();
            TableFold snapshotOnly = new TableFold();
            snapshotRows.forEach(snapshotOnly::apply);
            assertThat(snapshotRows).hasSize(atSnapshot.size());
            assertThat(snapshotOnly.image()).isEqualTo(atSnapshot);

            List<String> changes = new ArrayList<>();
            events.stream()
                    .filter(e -> !e.isSnapshot())
                    .forEach(e -> changes.add(GroundTruth.identity(e)));
            assertThat(changes)
                    .hasSizeGreaterThanOrEqualTo(MIN_CHANGES)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(
                            GroundTruth.expectedAsSent(
                                    emulator, stream, t + 1, EmulatorSources.micros(end)));

            TableFold fold = TableFold.inCommitOrder(events);
            assertThat(fold.image())
                    .isEqualTo(
                            TableFold.tablesAt(
                                    emulator.database(), tables, EmulatorSources.micros(end)));
        }
    }
}
