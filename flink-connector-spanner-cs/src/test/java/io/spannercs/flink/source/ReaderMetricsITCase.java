package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.testing.Await;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reader's counters, read through a metric reporter: row changes per partition mode, and the
 * changes the filter dropped, against the ground truth.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class ReaderMetricsITCase {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .build());

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX)) PRIMARY KEY"
                    + " (OrderId);\n"
                    + "CREATE TABLE Items (Id INT64 NOT NULL, Name STRING(MAX)) PRIMARY KEY (Id);\n"
                    + "CREATE CHANGE STREAM mutable_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR ALL;\n";

    /**
     * Changes a range must hold before its job reads it (of each table kind the filter passes and
     * drops, where it has one).
     */
    private static final int MIN_CHANGES_EACH = 100;

    /** Splits and merges a range must hold, so that readers have partitions to read ahead. */
    private static final int MIN_CHURN_EVENTS = 8;

    @ParameterizedTest
    @ValueSource(strings = {"mutable_cs", "legacy_cs"})
    void countsRowChangesByModeAndWhatTheFilterDropped(String stream) throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder().ddl(DDL).initialPartitions(2).start()) {
            CommittedRange range = CommittedRange.startingNow(emulator, stream);
            Instant start = range.start();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().transactionsPerSecond(200).seed(3).build());
            workload.start();
            // Not a fixed 1.5 s: until the range holds changes of Orders and of another table
            // (what the filter passes and drops), however slowly a loaded machine writes.
            long micros0 = EmulatorSources.micros(start);
            try {
                Await.until(
                        "changes of Orders and of another table",
                        CommittedRange.WRITE_LIMIT,
                        () -> {
                            List<String> sofar =
                                    GroundTruth.expected(
                                            emulator.database(),
                                            stream,
                                            micros0,
                                            EmulatorSources.micros(Instant.now()));
                            long orders =
                                    sofar.stream().filter(i -> i.contains("|Orders|")).count();
                            return orders >= MIN_CHANGES_EACH
                                    && sofar.size() - orders >= MIN_CHANGES_EACH;
                        });
            } finally {
                workload.stop();
            }
            Instant end = range.afterLastCommit();

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, stream, start, end)
                            .setFilter(ChangeFilter.builder().include("Orders").build())
                            .build();
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                    .sinkTo(new DiscardingSink<>());
            JobID job = env.execute("metrics of " + stream).getJobID();

            long micros1 = EmulatorSources.micros(end);
            List<String> all = GroundTruth.expected(emulator.database(), stream, micros0, micros1);
            long orders = all.stream().filter(i -> i.contains("|Orders|")).count();
            assertThat(orders).isPositive().isLessThan(all.size());
            boolean mutable = stream.startsWith("mutable");
            assertThat(sum(job, "numRecordsMutableKeyRange")).isEqualTo(mutable ? all.size() : 0);
            assertThat(sum(job, "numRecordsImmutableKeyRange")).isEqualTo(mutable ? 0 : all.size());
            assertThat(sum(job, "numRecordsFiltered")).isEqualTo(all.size() - orders);
        }
    }

    /**
     * A reader starts the queries of the partitions its partitions announce before they are
     * assigned, and takes them over when the enumerator gives them to it (at parallelism 1,
     * always); every change is still read once, and no partition is queried more often than without
     * reading ahead. Off, no partition is read ahead. With one partition at a time, the reader has
     * no split between a parent's end and its children's assignment, when Flink closes its idle
     * fetcher: the reads ahead must outlive it (they did not, and each was read again).
     */
    @ParameterizedTest
    @CsvSource({"mutable_cs, 2", "legacy_cs, 2", "legacy_cs, 1"})
    void announcedPartitionsAreReadAheadAndTakenOver(String stream, int partitions)
            throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(partitions)
                        .maxPartitions(2 * partitions)
                        .churnInterval(java.time.Duration.ofMillis(150))
                        .seed(5)
                        .start()) {
            CommittedRange range = CommittedRange.startingNow(emulator, stream);
            Instant start = range.start();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().transactionsPerSecond(200).seed(3).build());
            workload.start();
            // Not a fixed 2 s: until the partitions have split and merged enough for readers to
            // have partitions to read ahead, however slowly a loaded machine churns.
            try {
                range.awaitWritten(MIN_CHANGES_EACH, MIN_CHURN_EVENTS);
            } finally {
                workload.stop();
            }
            Instant end = range.afterLastCommit();
            List<String> all =
                    GroundTruth.expected(
                            emulator.database(),
                            stream,
                            EmulatorSources.micros(start),
                            EmulatorSources.micros(end));
            boolean mutable = stream.startsWith("mutable");
            Map<Boolean, Long> queries = new HashMap<>();
            for (boolean readAhead : new boolean[] {true, false}) {
                StreamExecutionEnvironment env =
                        StreamExecutionEnvironment.getExecutionEnvironment();
                env.setParallelism(1);
                env.fromSource(
                                EmulatorSources.builder(emulator, stream, start, end)
                                        .setReadAhead(readAhead)
                                        .build(),
                                WatermarkStrategy.noWatermarks(),
                                "spanner")
                        .sinkTo(new DiscardingSink<>());
                JobID job = env.execute("read ahead " + readAhead + " " + stream).getJobID();
                String counter =
                        mutable ? "numRecordsMutableKeyRange" : "numRecordsImmutableKeyRange";
                assertThat(sum(job, counter)).as("read ahead %s", readAhead).isEqualTo(all.size());
                if (readAhead) {
                    assertThat(sum(job, "numPartitionsReadAhead")).isPositive();
                    assertThat(REPORTER.findMetrics(job, "numReadAheadsGivenUp")).isNotEmpty();
                    assertThat(sum(job, "numReadAheadsGivenUp"))
                            .as("one reader is given every partition it announces")
                            .isZero();
                } else {
                    assertThat(sum(job, "numPartitionsReadAhead")).isZero();
                }
                queries.put(readAhead, sum(job, "numPartitionQueries"));
            }
            assertThat(queries.get(true))
                    .as("partition queries with read ahead (without: %s)", queries.get(false))
                    .isEqualTo(queries.get(false));
        }
    }

    /**
     * Partitions that end (merges) finish with their query: a query window is not started again and
     * again for a partition whose end record came. (An end record held for sequence order and then
     * dropped when its query ended made the reader re-query such partitions in a busy loop.)
     */
    @org.junit.jupiter.api.Test
    void aPartitionThatEndsIsNotQueriedAgain() throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(4)
                        .maxPartitions(4)
                        .churnInterval(java.time.Duration.ofMillis(300))
                        .seed(9)
                        .start()) {
            Instant start = Instant.now();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().transactionsPerSecond(50).seed(3).build());
            workload.start();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.fromSource(
                            EmulatorSources.builder(emulator, "mutable_cs", start, start)
                                    .setEndTimestamp(null)
                                    .build(),
                            WatermarkStrategy.noWatermarks(),
                            "spanner")
                    .sinkTo(new DiscardingSink<>());
            org.apache.flink.core.execution.JobClient client =
                    env.executeAsync("partitions that end, unbounded");
            try {
                // Instead of a fixed 8 s: until three partitions have ended (merges) and the job
                // has read every change committed until a second after the third end, so a reader
                // that queried ended partitions again had that second and more to loop in.
                long startMicros = EmulatorSources.micros(start);
                var cs = emulator.database().changeStream("mutable_cs");
                Await.until(
                        "three partitions to end",
                        java.time.Duration.ofSeconds(60),
                        () ->
                                cs.partitionsEndedBetween(
                                                startMicros, EmulatorSources.micros(Instant.now()))
                                        >= 3);
                Instant readUntil = Instant.now().plusSeconds(1);
                Await.until(
                        "a commit after " + readUntil,
                        java.time.Duration.ofSeconds(60),
                        () ->
                                emulator.database().groundTruth().stream()
                                        .anyMatch(t -> t.commitTimestamp().isAfter(readUntil)));
                long written =
                        GroundTruth.expected(
                                        emulator.database(),
                                        "mutable_cs",
                                        startMicros,
                                        EmulatorSources.micros(readUntil))
                                .size();
                Await.until(
                        "the job to read the " + written + " changes until " + readUntil,
                        java.time.Duration.ofSeconds(60),
                        () -> sum(client.getJobID(), "numRecordsMutableKeyRange") >= written);
                long queries = sum(client.getJobID(), "numPartitionQueries");
                // Each partition needs one query (windows of 30 minutes); allow retries and a
                // confirmation each, nothing like a loop.
                assertThat(queries).isPositive().isLessThan(200);
            } finally {
                client.cancel().get();
                workload.stop();
            }
        }
    }

    private static long sum(JobID job, String name) {
        long total = 0;
        for (Map.Entry<String, Metric> e : REPORTER.findMetrics(job, name).entrySet()) {
            if (e.getValue() instanceof Counter c) {
                total += c.getCount();
            }
        }
        return total;
    }
}
