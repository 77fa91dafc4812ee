package io.spannercs.flink.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.FaultInjector;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.CommittedRange;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.StartupMode;
import io.spannercs.flink.testing.SnapshotOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
 * Per-key order at the hand-off: keys that the snapshot has are updated while a slow snapshot is
 * read. No change of a key may leave the source before the key's snapshot row. With the stream
 * started together with the snapshot (a switch for tests only) the same workload shows changes
 * before their snapshot rows, which proves the check can fail. The range ends by what is committed,
 * not by a clock: the job starts once the stream holds the changes the checks need.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SnapshotOrderITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Accounts (Id INT64 NOT NULL, Balance INT64) PRIMARY KEY (Id);\n"
                    + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n";

    /**
     * Changes after the snapshot the range must hold before the job starts: more than the 300
     * checked.
     */
    private static final int MIN_CHANGES = 400;

    /**
     * How long past the last commit seen before the job starts the range reads at the head: the
     * updates go on while the job reads the slow snapshot.
     */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(3);

    @ParameterizedTest(name = "stream after the snapshot: {0}")
    @ValueSource(booleans = {true, false})
    void noChangeOfAKeyBeforeItsSnapshotRow(boolean streamAfterSnapshot) throws Exception {
        int violations = run(streamAfterSnapshot);
        if (streamAfterSnapshot) {
            assertThat(violations).as("changes before their key's snapshot row").isZero();
        } else {
            assertThat(violations)
                    .as("changes before their key's snapshot row, stream not waiting")
                    .isPositive();
        }
    }

    private static int run(boolean streamAfterSnapshot) throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder().ddl(DDL).initialPartitions(2).seed(4).start()) {
            SnapshotExactlyOnceITCase.fill(emulator, 3000);
            CommittedRange range = CommittedRange.startingNow(emulator, "cs");
            Instant snapshotAt = range.start();
            // Reading the snapshot takes seconds; meanwhile every key is updated again and again.
            emulator.faults().setReadLatency(FaultInjector.ANY_TABLE, Duration.ofMillis(1));
            WorkloadGenerator updates =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder()
                                    .transactionsPerSecond(200)
                                    .mix(0, 1, 0)
                                    .keySpace(1_000_000)
                                    .seed(6)
                                    .build());
            updates.start();
            Instant end;
            try {
                // Not a fixed 8 s of updates: the range ends a live tail after the stream holds
                // the changes checked below, however slowly a loaded machine writes them.
                range.awaitWritten(MIN_CHANGES, 0);
                end = range.afterLastCommit().plus(LIVE_TAIL);
            } catch (RuntimeException | Error e) {
                updates.stop();
                throw e;
            }
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(200);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, "cs", snapshotAt, end)
                            .setStartTimestamp(null)
                            .setStartupMode(StartupMode.snapshotThenStream(snapshotAt))
                            .setSnapshotChunkRows(500)
                            .setStreamAfterSnapshot(streamAfterSnapshot)
                            .build();
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .map(e -> e, ChangeEventTypeInfo.INSTANCE)
                            .executeAndCollect("snapshot order, wait " + streamAfterSnapshot)) {
                it.forEachRemaining(events::add);
            } finally {
                updates.stop();
            }
            assertThat(events.stream().filter(ChangeEvent::isSnapshot).count())
                    .isGreaterThanOrEqualTo(3000);
            assertThat(events.stream().filter(e -> !e.isSnapshot()).count()).isGreaterThan(300);
            return SnapshotOrder.changesBeforeTheirSnapshotRow(events);
        }
    }
}
