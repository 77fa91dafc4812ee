package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.FaultInjector;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.testing.InjectedFailures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exactly once under failures: parallelism 2, checkpoints every 200 ms, partitions churning,
 * streams failing with UNAVAILABLE, and the job failing and restoring from its last checkpoint
 * several times while a workload writes. The collect sink takes part in checkpoints, so its output
 * must equal the emulator's ground truth: nothing missing, nothing twice. Also with every
 * specification edge of the emulator on (shared commit timestamps, records out of sequence order,
 * partition records after a heartbeat of their timestamp, windows ending without end records,
 * transient errors of every kind, unknown enum values, ...).
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class ExactlyOnceITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount NUMERIC)"
                    + " PRIMARY KEY (OrderId);\n"
                    + "CREATE CHANGE STREAM mutable_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR ALL;\n";

    private static final String PG_DDL =
            RandomClientWrites.PG_TABLES
                    + "CREATE CHANGE STREAM mutable_cs FOR ALL WITH (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR ALL;\n";

    private static final int FAIL_EVERY = 150;

    /**
     * Both partition modes; with the emulator's plain behaviour and with every specification edge
     * (docs/emulator.md) on; GoogleSQL, and PostgreSQL with every edge.
     */
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("mutable_cs", EdgeCases.none(), Dialect.GOOGLE_STANDARD_SQL),
                Arguments.of("legacy_cs", EdgeCases.none(), Dialect.GOOGLE_STANDARD_SQL),
                Arguments.of("mutable_cs", EdgeCases.all(), Dialect.GOOGLE_STANDARD_SQL),
                Arguments.of("legacy_cs", EdgeCases.all(), Dialect.GOOGLE_STANDARD_SQL),
                Arguments.of("mutable_cs", EdgeCases.all(), Dialect.POSTGRESQL),
                Arguments.of("legacy_cs", EdgeCases.all(), Dialect.POSTGRESQL));
    }

    /** The map fails the job at every 150th record it sees, so three failures need 450. */
    private static final int MIN_CHANGES = 3 * FAIL_EVERY;

    /** Splits, merges and moves the readers must follow (one every 400 ms). */
    private static final int MIN_CHURN_EVENTS = 6;

    /** How long past the last commit seen before the job starts the range reads at the head. */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(2);

    @ParameterizedTest(name = "{0}, edges {1}, {2}")
    @MethodSource("cases")
    void outputEqualsGroundTruthAcrossFailures(String stream, EdgeCases edges, Dialect dialect)
            throws Exception {
        InjectedFailures.arm(3);
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .dialect(dialect)
                        .ddl(dialect == Dialect.POSTGRESQL ? PG_DDL : DDL)
                        .edgeCases(edges)
                        .initialPartitions(2)
                        .maxPartitions(6)
                        .churnInterval(Duration.ofMillis(400))
                        .seed(17)
                        .start()) {
            emulator.faults()
                    .failStreamAfterRows(
                            FaultInjector.ANY_PARTITION, 25, Status.Code.UNAVAILABLE, 6);
            CommittedRange range = CommittedRange.startingNow(emulator, stream);
            Instant start = range.start();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder().transactionsPerSecond(80).seed(23).build());
            workload.start();
            // The range ends by what is committed, not by a clock: the job is built once the
            // range holds enough changes for the three injected failures (each distinct change
            // passes the failing map at least once, so 3 x 150 of them make it fail three times)
            // and has churned; the workload keeps writing through a short live tail, so the job
            // reads history up to its start and the head after it (under load it may read the
            // tail as history too; exactly once must hold either way).
            range.awaitWritten(MIN_CHANGES, MIN_CHURN_EVENTS);
            Instant end = range.afterLastCommit().plus(LIVE_TAIL);
            Instant submitted = Instant.now();

            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(
                            InjectedFailures.restartingConfiguration());
            env.setParallelism(2);
            env.enableCheckpointing(200);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, stream, start, end)
                            .setUnknownValueHandling(UnknownValueHandling.RAW)
                            .build();
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .map(
                                    InjectedFailures.failEvery(FAIL_EVERY),
                                    ChangeEventTypeInfo.INSTANCE)
                            .executeAndCollect("exactly once " + stream)) {
                it.forEachRemaining(events::add);
            } finally {
                workload.stop();
            }
            System.out.printf(
                    "%s, %s: range written in %d ms, job over in %d ms after submission%n",
                    stream,
                    dialect,
                    Duration.between(start, submitted).toMillis(),
                    Duration.between(submitted, Instant.now()).toMillis());
            assertThat(InjectedFailures.failuresLeft()).as("the job failed and restored").isZero();

            List<String> expected =
                    GroundTruth.expectedAsSent(emulator, stream, micros(start), micros(end));
            List<String> actual = new ArrayList<>();
            events.forEach(e -> actual.add(GroundTruth.identity(e)));
            assertThat(expected).hasSizeGreaterThan(300);
            assertThat(actual)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private static long micros(Instant i) {
        return EmulatorSources.micros(i);
    }
}
