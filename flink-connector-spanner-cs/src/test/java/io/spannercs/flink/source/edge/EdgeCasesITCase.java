package io.spannercs.flink.source.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.UnknownValueHandling;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One focused test per specification edge (docs/emulator.md): the emulator shows only that edge,
 * partitions churn, a workload writes, and a job of parallelism 2 with checkpoints and no restart
 * strategy reads the stream. Every change must come out exactly once, every key in commit order,
 * the job must not fail, and the edge must have happened.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EdgeCasesITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String STREAMS =
            "CREATE CHANGE STREAM mut FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM imm FOR ALL;\n";

    static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount NUMERIC,"
                    + " Tags ARRAY<INT64>) PRIMARY KEY (OrderId);\n"
                    + "CREATE TABLE Customers (Name STRING(MAX) NOT NULL, Tier INT64) PRIMARY KEY"
                    + " (Name);\n"
                    + STREAMS;

    /** With a table keyed by a UUID, a type Spanner added after the first change streams. */
    static final String DDL_WITH_UUID =
            DDL.replace(STREAMS, "")
                    + "CREATE TABLE Devices (DeviceId UUID NOT NULL, Name STRING(MAX), Seen"
                    + " TIMESTAMP) PRIMARY KEY (DeviceId);\n"
                    + STREAMS;

    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void sharedCommitTimestamps(String stream) throws Exception {
        readsExactlyOnce(
                EdgeCase.SHARED_TIMESTAMPS, stream, b -> b, w -> w.transactionsPerSecond(300));
    }

    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void heartbeatBeforePartitionRecordsOfItsTimestamp(String stream) throws Exception {
        readsExactlyOnce(EdgeCase.HEARTBEAT_BEFORE_PARTITION_RECORDS, stream, b -> b, w -> {});
    }

    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void recordsOfOneTimestampOutOfSequenceOrder(String stream) throws Exception {
        readsExactlyOnce(
                EdgeCase.UNORDERED_WITHIN_TIMESTAMP,
                stream,
                b -> b,
                w -> w.rowsPerTransaction(2, 6));
    }

    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void partitionChangesInSeveralRecords(String stream) throws Exception {
        readsExactlyOnce(EdgeCase.SPLIT_PARTITION_RECORDS, stream, b -> b, w -> {});
    }

    /** Query windows of a second, so partitions end inside them. */
    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void windowsThatEndWithoutTheEndRecord(String stream) throws Exception {
        readsExactlyOnce(
                EdgeCase.WINDOW_END_WITHOUT_END_RECORD,
                stream,
                b -> b.setQueryWindow(Duration.ofSeconds(1)),
                w -> {});
    }

    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void uuidColumnsAndUnknownEnumValues(String stream) throws Exception {
        readsExactlyOnce(
                EdgeCase.UNKNOWN_TYPES,
                stream,
                b -> b,
                w -> w.rowsPerTransaction(1, 3),
                e -> e.ddl(DDL_WITH_UUID));
    }

    /**
     * The job fails with the reader's own cause. Readers that report every millisecond keep the
     * enumerator sending them events, so some reach a task that has just failed: Flink then fails
     * it again with "An OperatorEvent ... was lost", and whichever failure reaches the JobManager
     * first is the job's cause. Without the failing reader's wait for {@code EventsStoppedEvent}, 9
     * of 12 such jobs failed with that instead (and CI once saw it at the default interval).
     */
    @Test
    void unknownModTypesFailTheJobNamingTheChangeByDefault() throws Exception {
        for (int job = 0; job < 3; job++) {
            try (Run run = Run.start(EdgeCase.UNKNOWN_TYPES, b -> {}, w -> {})) {
                assertThatThrownBy(
                                () ->
                                        EdgeJob.bounded(
                                                run.emulator,
                                                "imm",
                                                run.start,
                                                run.end,
                                                2,
                                                b ->
                                                        b.setUnknownValueHandling(
                                                                        UnknownValueHandling.FAIL)
                                                                .setProgressInterval(
                                                                        Duration.ofMillis(1))))
                        .as("job %d", job)
                        .satisfies(
                                e ->
                                        assertThat(ExceptionUtils.stringifyException(e))
                                                .contains("mod type 'FUTURE_MOD_TYPE' is unknown")
                                                .contains("committed at")
                                                .contains("partition ")
                                                .contains("unknownValueHandling RAW"));
            }
        }
    }

    @Test
    void allNullStructElementsOfLegacyRows() throws Exception {
        readsExactlyOnce(EdgeCase.NULL_STRUCT_ELEMENTS, "imm", b -> b, w -> {});
    }

    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void transientErrorsOfEveryKind(String stream) throws Exception {
        readsExactlyOnce(EdgeCase.TRANSIENT_FAULTS, stream, b -> b, w -> {});
    }

    /**
     * A start in the future: a window of 30 minutes from it would end more than 30 minutes after
     * now, which the edge rejects.
     */
    @Test
    void mutableWindowsEndAtMostThirtyMinutesAfterNow() throws Exception {
        try (Run run = Run.start(EdgeCase.MUTABLE_END_LIMIT, b -> {}, w -> {})) {
            Instant start = Instant.now().plusSeconds(2);
            Instant cutoff = start.plusSeconds(6);
            EdgeJob.Outcome outcome =
                    EdgeJob.unboundedUntil(
                            run.emulator,
                            "mut",
                            start,
                            2,
                            b -> b,
                            () -> {
                                sleepUntil(cutoff.plusSeconds(1));
                                return EdgeJob.expected(
                                        run.emulator,
                                        "mut",
                                        EdgeJob.micros(start),
                                        EdgeJob.micros(cutoff));
                            },
                            Duration.ofSeconds(60));
            List<String> expected =
                    EdgeJob.expected(
                            run.emulator, "mut", EdgeJob.micros(start), EdgeJob.micros(cutoff));
            assertThat(outcome.identities()).doesNotHaveDuplicates().containsAll(expected);
            assertThat(expected).hasSizeGreaterThan(200);
            assertThat(outcome.orderViolations()).isZero();
        }
    }

    private static void sleepUntil(Instant t) {
        long ms = Duration.between(Instant.now(), t).toMillis();
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void readsExactlyOnce(
            EdgeCase edge,
            String stream,
            UnaryOperator<
                            io.spannercs.flink.source.SpannerChangeStreamSourceBuilder<
                                    io.spannercs.flink.format.ChangeEvent>>
                    source,
            Consumer<WorkloadConfig.Builder> workload)
            throws Exception {
        readsExactlyOnce(edge, stream, source, workload, b -> {});
    }

    static void readsExactlyOnce(
            EdgeCase edge,
            String stream,
            UnaryOperator<
                            io.spannercs.flink.source.SpannerChangeStreamSourceBuilder<
                                    io.spannercs.flink.format.ChangeEvent>>
                    source,
            Consumer<WorkloadConfig.Builder> workload,
            Consumer<SpannerEmulator.Builder> emulator)
            throws Exception {
        try (Run run = Run.start(edge, emulator, workload)) {
            EdgeJob.Outcome outcome =
                    EdgeJob.bounded(run.emulator, stream, run.start, run.end, 2, source);
            // A job that ended early has missed changes; let the workload write until the end.
            sleepUntil(run.end.plusMillis(200));
            List<String> expected =
                    EdgeJob.expected(
                            run.emulator,
                            stream,
                            EdgeJob.micros(run.start),
                            EdgeJob.micros(run.end));
            assertThat(run.emulator.edgeCaseCounts().get(edge)).as(edge + " happened").isPositive();
            EdgeJob.assertExactlyOnceInOrder(outcome, expected, 200);
        }
    }

    /** An emulator showing one edge, churning, with a workload writing from the start. */
    static final class Run implements AutoCloseable {
        final SpannerEmulator emulator;
        final WorkloadGenerator workload;
        final Instant start;
        final Instant end;

        private Run(SpannerEmulator emulator, WorkloadGenerator workload, Instant start) {
            this.emulator = emulator;
            this.workload = workload;
            this.start = start;
            this.end = start.plusSeconds(8);
        }

        static Run start(
                EdgeCase edge,
                Consumer<SpannerEmulator.Builder> emulator,
                Consumer<WorkloadConfig.Builder> workload) {
            SpannerEmulator.Builder b =
                    SpannerEmulator.builder()
                            .ddl(DDL)
                            .edgeCases(EdgeCases.of(edge))
                            .initialPartitions(2)
                            .maxPartitions(6)
                            .churnInterval(Duration.ofMillis(250))
                            .seed(17);
            emulator.accept(b);
            SpannerEmulator e = b.start();
            WorkloadConfig.Builder w =
                    WorkloadConfig.builder()
                            .transactionsPerSecond(150)
                            .rowsPerTransaction(1, 3)
                            .seed(5);
            workload.accept(w);
            WorkloadGenerator g = new WorkloadGenerator(e.database(), w.build());
            Instant start = Instant.now();
            g.start();
            return new Run(e, g, start);
        }

        @Override
        public void close() {
            workload.stop();
            emulator.close();
        }
    }
}
