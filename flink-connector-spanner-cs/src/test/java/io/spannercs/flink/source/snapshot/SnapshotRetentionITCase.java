package io.spannercs.flink.source.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.source.EmulatorSources;
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
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The snapshot's timestamp and the database's {@code version_retention_period}: a snapshot older
 * than the database keeps versions is refused before anything is read, naming the option and the
 * fix; a snapshot whose reads fail because it outlived the retention (Spanner answers
 * FAILED_PRECONDITION) fails the job with the same advice; transient read errors are retried
 * without losing or repeating rows.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SnapshotRetentionITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Accounts (Id INT64 NOT NULL, Balance INT64) PRIMARY KEY (Id);\n"
                    + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n";

    @Test
    void aSnapshotOlderThanTheRetentionIsRefusedBeforeReading() throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .versionRetentionPeriod(Duration.ofHours(2))
                        .start()) {
            SnapshotExactlyOnceITCase.fill(emulator, 100);
            Instant tooOld = Instant.now().minus(Duration.ofHours(3));
            assertThatThrownBy(() -> copy(emulator, tooOld))
                    .satisfies(
                            e ->
                                    assertThat(ExceptionUtils.stringifyException(e))
                                            .contains(
                                                    "is older than database",
                                                    "version_retention_period is PT2H",
                                                    "ALTER DATABASE "
                                                            + emulator.databaseId()
                                                            + " SET OPTIONS"
                                                            + " (version_retention_period"));
        }
    }

    /** Planning reads every key at T; for a large table that may outlive the retention too. */
    @Test
    void aPlanThatOutlivesTheRetentionFailsSayingSo() throws Exception {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(DDL).start()) {
            SnapshotExactlyOnceITCase.fill(emulator, 2000);
            // What Spanner answers a read at a timestamp it no longer keeps versions for.
            emulator.faults()
                    .failReadAfterRows("Accounts", 300, Status.Code.FAILED_PRECONDITION, 1000);
            assertThatThrownBy(() -> copy(emulator, Instant.now()))
                    .satisfies(
                            e ->
                                    assertRetentionAdvice(
                                            e, "Planning the snapshot of change stream cs"));
        }
    }

    @Test
    void aSnapshotReadThatOutlivesTheRetentionFailsSayingSo() throws Exception {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(DDL).start()) {
            SnapshotExactlyOnceITCase.fill(emulator, 2000);
            emulator.faults().setReadLatency("Accounts", Duration.ofMillis(1));
            assertThatThrownBy(
                            () -> {
                                try (CloseableIterator<ChangeEvent> it =
                                        copying(emulator, Instant.now())) {
                                    it.next(); // planned and reading
                                    emulator.faults()
                                            .failReadAfterRows(
                                                    "Accounts",
                                                    100,
                                                    Status.Code.FAILED_PRECONDITION,
                                                    1000);
                                    it.forEachRemaining(x -> {});
                                }
                            })
                    .satisfies(e -> assertRetentionAdvice(e, "Snapshot of table Accounts"));
        }
    }

    private static void assertRetentionAdvice(Throwable e, String what) {
        assertThat(ExceptionUtils.stringifyException(e))
                .contains(
                        what,
                        "FAILED_PRECONDITION",
                        "must stay within the database's version_retention_period",
                        "SET OPTIONS (version_retention_period = '1d')");
    }

    @Test
    void transientReadErrorsAreRetriedWithoutLosingOrRepeatingRows() throws Exception {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(DDL).start()) {
            SnapshotExactlyOnceITCase.fill(emulator, 3000);
            Instant at = Instant.now();
            // Planning reads every key: it fails twice and retries.
            emulator.faults().failReadAfterRows("Accounts", 400, Status.Code.ABORTED, 2);
            // Slow reads, so the readers are still reading when the next faults are armed.
            emulator.faults().setReadLatency("Accounts", Duration.ofMillis(1));
            List<ChangeEvent> rows = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it = copying(emulator, at)) {
                rows.add(it.next());
                emulator.faults().failReadAfterRows("Accounts", 100, Status.Code.UNAVAILABLE, 3);
                it.forEachRemaining(rows::add);
            }
            Map<String, String> table =
                    TableFold.tablesAt(
                            emulator.database(), List.of("Accounts"), EmulatorSources.micros(at));
            assertThat(rows).hasSize(table.size()).allMatch(ChangeEvent::isSnapshot);
            assertThat(TableFold.inCommitOrder(rows).image()).isEqualTo(table);
            assertThat(emulator.faults().readFailureFor("Accounts", Integer.MAX_VALUE))
                    .as("every injected fault was hit")
                    .isNull();
        }
    }

    /** A bounded copy of the tables at {@code at} (no restarts: a failure fails the job). */
    private static List<ChangeEvent> copy(SpannerEmulator emulator, Instant at) throws Exception {
        List<ChangeEvent> out = new ArrayList<>();
        try (CloseableIterator<ChangeEvent> it = copying(emulator, at)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    private static CloseableIterator<ChangeEvent> copying(SpannerEmulator emulator, Instant at)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        SpannerChangeStreamSource<ChangeEvent> source =
                EmulatorSources.builder(emulator, "cs", at, null)
                        .setStartTimestamp(null)
                        .setEndTimestamp(null)
                        .setStartupMode(StartupMode.snapshotOnly(at))
                        .setSnapshotChunkRows(500)
                        .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                .executeAndCollect("snapshot copy");
    }
}
