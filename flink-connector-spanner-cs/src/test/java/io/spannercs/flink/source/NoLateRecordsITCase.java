package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Event time from heartbeats never makes a record late: under partition churn (new partitions
 * discovered and assigned while others run ahead) a downstream operator compares every record with
 * its current watermark and finds none at or below it. Switching the low-watermark cap off makes
 * the same check find late records of a partition assigned late, every time, which proves it can
 * fail.
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class NoLateRecordsITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX)) PRIMARY KEY"
                    + " (OrderId);\n"
                    + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR ALL;\n";

    /** Changes of history the job races through (about 2 s of the workload). */
    private static final int MIN_CHANGES = 1000;

    /** Splits, merges and moves of history (one every 100 ms): partitions started long ago. */
    private static final int MIN_CHURN_EVENTS = 25;

    /** How long past the last commit seen before the job starts the range reads at the head. */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(2);

    static final AtomicLong LATE = new AtomicLong();
    static final AtomicLong ON_TIME = new AtomicLong();
    static final AtomicLong WITH_WATERMARK = new AtomicLong();
    static final Set<String> LATE_PARTITIONS = ConcurrentHashMap.newKeySet();
    static final Map<String, Long> RECORDS_OF = new ConcurrentHashMap<>();

    @ParameterizedTest
    @ValueSource(strings = {"cs", "legacy_cs"})
    void noRecordIsLateUnderChurn(String stream) throws Exception {
        run(stream, true, EdgeCases.none());
        assertThat(WITH_WATERMARK.get()).as("records checked against a watermark").isPositive();
        assertThat(LATE.get()).as("late records").isZero();
    }

    /**
     * With every specification edge on: heartbeats followed by partition records of their
     * timestamp, shared commit timestamps, windows ending without end records, faults, ...
     */
    @ParameterizedTest
    @ValueSource(strings = {"cs", "legacy_cs"})
    void noRecordIsLateUnderChurnWithEveryEdge(String stream) throws Exception {
        run(stream, true, EdgeCases.all());
        assertThat(WITH_WATERMARK.get()).as("records checked against a watermark").isPositive();
        assertThat(LATE.get()).as("late records").isZero();
    }

    /**
     * The negative control: one reader gets the second partition only after it has read the first
     * to its end, as a reader that gets a partition discovered late. Without the cap its watermark
     * is then the first partition's end, and the second partition's records are late.
     */
    @ParameterizedTest
    @ValueSource(strings = {"cs", "legacy_cs"})
    void withoutTheLowWatermarkCapAPartitionAssignedLateIsLate(String stream) throws Exception {
        String held = runAssignedLate(stream, false);
        assertThat(LATE.get()).as("late records without the cap").isPositive();
        assertThat(LATE_PARTITIONS).as("partitions with late records").containsOnly(held);
    }

    /** The same order with the cap: the reader's watermark waits for the held partition. */
    @ParameterizedTest
    @ValueSource(strings = {"cs", "legacy_cs"})
    void withTheCapAPartitionAssignedLateIsOnTime(String stream) throws Exception {
        String held = runAssignedLate(stream, true);
        assertThat(WITH_WATERMARK.get()).as("records checked against a watermark").isPositive();
        assertThat(RECORDS_OF.get(held)).as("records of the held partition").isPositive();
        assertThat(LATE.get()).as("late records").isZero();
    }

    /**
     * Reads history of two partitions with one reader, the second partition assigned once the first
     * has ended; returns the second's token.
     */
    private String runAssignedLate(String stream, boolean cap) throws Exception {
        reset();
        PartitionAssignedLate.released.set(false);
        try (SpannerEmulator emulator =
                SpannerEmulator.builder().ddl(DDL).initialPartitions(2).seed(31).start()) {
            String held = emulator.database().changeStream(stream).liveTokens().get(1);
            Instant start = Instant.now();
            new WorkloadGenerator(emulator.database(), WorkloadConfig.builder().seed(3).build())
                    .runTransactions(300);
            Instant end = Instant.now();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            env.fromSource(
                            PartitionAssignedLate.around(
                                    EmulatorSources.builder(emulator, stream, start, end)
                                            .setLowWatermarkCap(cap)
                                            .build(),
                                    held),
                            WatermarkStrategy.noWatermarks(),
                            "spanner")
                    .process(new LatenessCheck())
                    .sinkTo(new DiscardingSink<>());
            env.execute(stream + " partition assigned late, cap " + (cap ? "on" : "off"));
            assertThat(PartitionAssignedLate.released).as("held partition assigned").isTrue();
            System.out.printf(
                    "%s assigned late, cap %s: %d late, %d on time%n",
                    stream, cap ? "on" : "off", LATE.get(), ON_TIME.get());
            return held;
        }
    }

    private static void reset() {
        LATE.set(0);
        ON_TIME.set(0);
        WITH_WATERMARK.set(0);
        LATE_PARTITIONS.clear();
        RECORDS_OF.clear();
    }

    private void run(String stream, boolean cap, EdgeCases edges) throws Exception {
        reset();
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .edgeCases(edges)
                        .initialPartitions(2)
                        .maxPartitions(16)
                        .churnInterval(Duration.ofMillis(100))
                        .seed(31)
                        .start()) {
            CommittedRange range = CommittedRange.startingNow(emulator, stream);
            Instant start = range.start();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().transactionsPerSecond(300).seed(3).build());
            workload.start();
            // Starting the job late makes it race through history: partitions split off long ago
            // are discovered while the others' heartbeats are far ahead of them. "Late" is a
            // condition, not a sleep: the job starts once the range has churned and holds many
            // changes, and the range ends a short live tail after the last commit seen then, so
            // the job reads history first and the head after it, and ends once it has read both.
            range.awaitWritten(MIN_CHANGES, MIN_CHURN_EVENTS);
            Instant end = range.afterLastCommit().plus(LIVE_TAIL);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, stream, start, end)
                            .setLowWatermarkCap(cap)
                            .setUnknownValueHandling(UnknownValueHandling.RAW)
                            .build();
            try {
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                        .rebalance()
                        .process(new LatenessCheck())
                        .sinkTo(new DiscardingSink<>());
                env.execute(stream + " no late records, cap " + (cap ? "on" : "off"));
            } finally {
                workload.stop();
            }
            System.out.printf(
                    "%s, cap %s: %d late, %d on time%n",
                    stream, cap ? "on" : "off", LATE.get(), ON_TIME.get());
        }
    }

    /** Counts records whose timestamp is at or below the operator's current watermark. */
    static final class LatenessCheck extends ProcessFunction<ChangeEvent, ChangeEvent> {
        @Override
        public void processElement(ChangeEvent e, Context ctx, Collector<ChangeEvent> out) {
            long watermark = ctx.timerService().currentWatermark();
            if (watermark != Long.MIN_VALUE) {
                WITH_WATERMARK.incrementAndGet();
            }
            RECORDS_OF.merge(e.getPartitionToken(), 1L, Long::sum);
            if (ctx.timestamp() <= watermark) {
                LATE.incrementAndGet();
                LATE_PARTITIONS.add(e.getPartitionToken());
            } else {
                ON_TIME.incrementAndGet();
            }
            out.collect(e);
        }
    }
}
