package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.testing.InjectedFailures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A reader that fails between the enumerator's part of a checkpoint and its own (a task downstream
 * failing while the checkpoint travels does the same): the job restarts, and the next checkpoint
 * completes. Flink holds what a coordinator sends a subtask from the coordinator's part of a
 * checkpoint until the subtask's part, and it neither delivers nor fails what it held for a subtask
 * that failed in between; the coordinator's part of the next checkpoint then waits for those events
 * until the checkpoint times out (ten minutes by default), and so does everything the enumerator
 * sends meanwhile: barrier releases, the low watermark, the end of the splits. A bounded job
 * stalled that long in a whole-suite run. The enumerator sends a reader nothing from its part of a
 * checkpoint until that reader has taken its own.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FailoverInsideCheckpointITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount NUMERIC)"
                    + " PRIMARY KEY (OrderId);\n"
                    + "CREATE CHANGE STREAM mutable_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n";

    /** How long the job reads live after the history, so that it takes several checkpoints. */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(5);

    @Test
    void aReaderFailingInsideACheckpointIsSentNothingThereAndRestoresExactlyOnce()
            throws Exception {
        ReaderFailsInsideCheckpoint.reset();
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(2)
                        .maxPartitions(4)
                        .churnInterval(Duration.ofMillis(400))
                        .seed(29)
                        .start()) {
            CommittedRange range = CommittedRange.startingNow(emulator, "mutable_cs");
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().transactionsPerSecond(50).seed(31).build());
            workload.start();
            List<ChangeEvent> events = new ArrayList<>();
            Instant end;
            try {
                range.awaitWritten(100, 2);
                end = range.afterLastCommit().plus(LIVE_TAIL);
                Configuration conf = InjectedFailures.restartingConfiguration();
                // Longer than the test: a checkpoint that waits for events Flink lost shows as a
                // job that does not end, not as one that ends after a short timeout.
                conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMinutes(10));
                StreamExecutionEnvironment env =
                        StreamExecutionEnvironment.getExecutionEnvironment(conf);
                env.setParallelism(1);
                env.enableCheckpointing(200);
                SpannerChangeStreamSource<ChangeEvent> source =
                        EmulatorSources.builder(emulator, "mutable_cs", range.start(), end).build();
                try (CloseableIterator<ChangeEvent> it =
                        env.fromSource(
                                        ReaderFailsInsideCheckpoint.around(source),
                                        WatermarkStrategy.noWatermarks(),
                                        "spanner")
                                .executeAndCollect("reader fails inside a checkpoint")) {
                    it.forEachRemaining(events::add);
                }
            } finally {
                workload.stop();
            }
            assertThat(ReaderFailsInsideCheckpoint.failedIn.get())
                    .as("the checkpoint the reader failed in")
                    .isPositive();
            assertThat(ReaderFailsInsideCheckpoint.snapshotBeforeFailure.get())
                    .as("a checkpoint the reader took after the enumerator's part, before failing")
                    .isZero();
            assertThat(ReaderFailsInsideCheckpoint.reportsTakenInWindow.get())
                    .as("reports the enumerator answered inside that checkpoint's window")
                    .isPositive();
            assertThat(ReaderFailsInsideCheckpoint.sentInWindow.get())
                    .as("what the enumerator sent the reader inside the window")
                    .isZero();
            List<String> expected =
                    GroundTruth.expectedAsSent(
                            emulator,
                            "mutable_cs",
                            EmulatorSources.micros(range.start()),
                            EmulatorSources.micros(end));
            List<String> actual = new ArrayList<>();
            events.forEach(e -> actual.add(GroundTruth.identity(e)));
            assertThat(expected).hasSizeGreaterThan(100);
            assertThat(actual)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }
}
