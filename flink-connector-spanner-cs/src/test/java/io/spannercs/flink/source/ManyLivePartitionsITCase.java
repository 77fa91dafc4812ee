package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One reader with many live partitions: every partition's query streams for its whole window, so a
 * reader must read all of them at once. Changes committed early must arrive within seconds, not
 * when some other partition's 30-minute window ends. (The client's AsyncResultSet kept one of its
 * eight async threads per streaming query, and the ninth partition of a reader was never read.)
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class ManyLivePartitionsITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX)) PRIMARY KEY"
                    + " (OrderId);\n"
                    + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n";

    /**
     * A thousand live partitions on one reader, behind Spanner's front ends' limit of 100
     * concurrent streams per connection (the emulator's stream-limit edge): with the client's
     * default four channels, the partitions beyond 400 would wait for a free stream as long as the
     * others' 30-minute windows run.
     */
    @Test
    void aThousandLivePartitionsOfOneReaderBehindTheStreamLimit() throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(1000)
                        .maxPartitions(1000)
                        .edgeCases(EdgeCases.of(EdgeCase.STREAM_LIMIT))
                        .threads(2)
                        .seed(3)
                        .start()) {
            assertThat(emulator.database().changeStream("cs").liveTokens()).hasSize(1000);
            Instant start = Instant.now();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder()
                                    .transactionsPerSecond(100)
                                    .keySpace(100_000)
                                    .seed(5)
                                    .build());
            workload.start();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, "cs", start, start)
                            .setEndTimestamp(null)
                            .setHeartbeatInterval(Duration.ofSeconds(2))
                            .build();
            Set<String> seen = new HashSet<>();
            List<String> expected;
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .executeAndCollect("1000 live partitions, one reader")) {
                Instant cutoff = awaitChanges(emulator, start, 300);
                expected =
                        GroundTruth.expected(
                                emulator.database(),
                                "cs",
                                EmulatorSources.micros(start),
                                EmulatorSources.micros(cutoff));
                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (!seen.containsAll(expected) && System.nanoTime() < deadline) {
                    seen.add(GroundTruth.identity(it.next()));
                }
            } finally {
                workload.stop();
            }
            assertThat(expected).hasSizeGreaterThan(300);
            assertThat(seen).as("changes of the first five seconds").containsAll(expected);
        }
    }

    @Test
    void everyPartitionOfOneReaderDeliversWhileTheOthersStream() throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(24)
                        .maxPartitions(24)
                        .seed(3)
                        .start()) {
            Instant start = Instant.now();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().transactionsPerSecond(100).seed(5).build());
            workload.start();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            // Unbounded: every partition query is a live 30-minute window.
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, "cs", start, start)
                            .setEndTimestamp(null)
                            .build();
            Set<String> seen = new HashSet<>();
            List<String> expected;
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .executeAndCollect("24 live partitions, one reader")) {
                Instant checkpoint = awaitChanges(emulator, start, 100);
                expected =
                        GroundTruth.expected(
                                emulator.database(),
                                "cs",
                                EmulatorSources.micros(start),
                                EmulatorSources.micros(checkpoint));
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (!seen.containsAll(expected) && System.nanoTime() < deadline) {
                    seen.add(GroundTruth.identity(it.next()));
                }
            } finally {
                workload.stop();
            }
            assertThat(expected).hasSizeGreaterThan(100);
            assertThat(seen).as("changes of the first two seconds").containsAll(expected);
        }
    }

    /**
     * Waits while the job reads live until the stream holds more than {@code n} changes since
     * {@code start} (not for a fixed time: the workload's pace is the machine's); returns when.
     */
    private static Instant awaitChanges(SpannerEmulator emulator, Instant start, int n)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            Instant now = Instant.now();
            if (GroundTruth.expected(
                                    emulator.database(),
                                    "cs",
                                    EmulatorSources.micros(start),
                                    EmulatorSources.micros(now))
                            .size()
                    > n) {
                return now;
            }
            assertThat(System.nanoTime()).as("changes written").isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
