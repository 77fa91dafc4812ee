package io.spannercs.flink.source.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.testing.Await;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.UnknownValueHandling;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * partitions churn and a workload writes until the range holds what the test needs (see {@link
 * Run#writeEnough}); then a bounded job of parallelism 2 with checkpoints and no restart strategy
 * reads the range, ending once it has read it rather than after a fixed window. Every change must
 * come out exactly once, every key in commit order, the job must not fail, and the edge must have
 * happened.
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
    /** The end of a live read's range: far enough for a job to fail before it. */
    private static final Duration LIVE_END = Duration.ofSeconds(8);

    @Test
    void unknownModTypesFailTheJobNamingTheChangeByDefault() throws Exception {
        for (int job = 0; job < 3; job++) {
            // A live read: the job fails at the first unknown mod type, long before the end. The
            // range holds one for sure (about one transaction in 40 carries one, and a loaded
            // machine may commit few in 8 s).
            try (Run run =
                    Run.start(EdgeCase.UNKNOWN_TYPES, b -> {}, w -> {})
                            .endInOrAfterUnknownEnums(LIVE_END)) {
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
     * now, which the edge rejects. The job reads live until the stream holds more than 200 changes
     * since the start (not for a fixed 2 s: the workload's pace is the machine's), and must have
     * emitted every change up to then.
     */
    @Test
    void mutableWindowsEndAtMostThirtyMinutesAfterNow() throws Exception {
        try (Run run = Run.start(EdgeCase.MUTABLE_END_LIMIT, b -> {}, w -> {})) {
            Instant start = Instant.now().plusSeconds(1);
            AtomicReference<Instant> cutoff = new AtomicReference<>();
            EdgeJob.Outcome outcome =
                    EdgeJob.unboundedUntil(
                            run.emulator,
                            "mut",
                            start,
                            2,
                            b -> b,
                            () -> {
                                cutoff.set(run.awaitChangesSince("mut", start, 200));
                                run.awaitCommitAfter(cutoff.get());
                                return EdgeJob.expected(
                                        run.emulator,
                                        "mut",
                                        EdgeJob.micros(start),
                                        EdgeJob.micros(cutoff.get()));
                            },
                            Duration.ofSeconds(60));
            List<String> expected =
                    EdgeJob.expected(
                            run.emulator,
                            "mut",
                            EdgeJob.micros(start),
                            EdgeJob.micros(cutoff.get()));
            assertThat(outcome.identities()).doesNotHaveDuplicates().containsAll(expected);
            assertThat(expected).hasSizeGreaterThan(200);
            assertThat(outcome.orderViolations()).isZero();
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
        try (Run run = Run.start(edge, emulator, workload).writeEnough(stream)) {
            long readFrom = System.nanoTime();
            EdgeJob.Outcome outcome =
                    EdgeJob.bounded(run.emulator, stream, run.start, run.end, 2, source);
            System.out.printf(
                    "%s on %s: %d ms of writes, the bounded job took %d ms%n",
                    edge,
                    stream,
                    Duration.between(run.start, run.end).toMillis(),
                    (System.nanoTime() - readFrom) / 1_000_000);
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

    /**
     * An emulator showing one edge, churning, with a workload writing from the start. {@link
     * #writeEnough} stops the workload once the range holds what the test needs and sets {@link
     * #end} after its last commit, so a bounded job over [start, end] ends as soon as it has read
     * that data instead of waiting out a fixed window.
     */
    static final class Run implements AutoCloseable {
        /** Changes the range must hold: twice what the checks require, so they can fail. */
        static final int MIN_CHANGES = 400;

        /**
         * Churn operations the stream must go through after the start (splits, merges, moves and
         * swaps, one every 250 ms): the partition records a reader of the range must follow.
         */
        static final int MIN_CHURN_EVENTS = 8;

        /**
         * Partitions that must end in the range for window-end-without-end-record: each ended
         * partition withholds its end record on a seeded coin of one in two (in mutable mode only
         * merges end partitions).
         */
        static final int MIN_ENDED_PARTITIONS = 6;

        /** Bounds a run whose workload or churn stalls; a passing run takes a few seconds. */
        static final Duration WRITE_LIMIT = Duration.ofSeconds(60);

        final SpannerEmulator emulator;
        final WorkloadGenerator workload;
        final Instant start;
        Instant end;

        /** Churn events of each stream at the start. */
        private final Map<String, Long> churnAtStart = new HashMap<>();

        private Run(SpannerEmulator emulator, WorkloadGenerator workload, Instant start) {
            this.emulator = emulator;
            this.workload = workload;
            this.start = start;
        }

        private long churnAtStart(String stream) {
            return churnAtStart.get(stream);
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
            Map<String, Long> churn = new HashMap<>();
            e.database()
                    .changeStreams()
                    .forEach(cs -> churn.put(cs.def().name(), cs.churnEvents()));
            Instant start = Instant.now();
            g.start();
            Run run = new Run(e, g, start);
            run.churnAtStart.putAll(churn);
            return run;
        }

        /**
         * Lets the workload write until the stream holds {@link #MIN_CHANGES} changes since the
         * start, {@link #MIN_ENDED_PARTITIONS} partitions have ended and every edge shown that
         * fires as data is written (shared timestamps, unknown types, split partition records) has
         * fired; then stops it and ends the range after its last commit.
         */
        Run writeEnough(String stream) {
            long startMicros = EdgeJob.micros(start);
            long churnAtStart = churnAtStart(stream);
            Await.until(
                    "the workload to write enough for the edge "
                            + emulator.edgeCases()
                            + " on stream "
                            + stream,
                    WRITE_LIMIT,
                    () -> enoughWritten(stream, startMicros, churnAtStart),
                    () -> progress(stream, startMicros));
            workload.stop();
            Instant afterLast = Instant.now();
            for (var txn : emulator.database().groundTruth()) {
                if (txn.commitTimestamp().isAfter(afterLast)) {
                    afterLast = txn.commitTimestamp();
                }
            }
            end = afterLast.plusMillis(1);
            return this;
        }

        /**
         * Ends the range {@code d} after the start, for a job that reads while it is written, or
         * later if need be: waits until a transaction carrying unknown enum values has committed
         * since the start, and ends the range after it.
         */
        Run endInOrAfterUnknownEnums(Duration d) {
            AtomicReference<Instant> first = new AtomicReference<>();
            try {
                Await.until(
                        "a transaction with unknown enum values since " + start,
                        WRITE_LIMIT,
                        () -> {
                            for (var txn : emulator.database().groundTruth()) {
                                if (!txn.commitTimestamp().isBefore(start)
                                        && emulator.edgeCases()
                                                .sendsUnknownEnums(txn.serverTransactionId())) {
                                    first.set(txn.commitTimestamp());
                                    return true;
                                }
                            }
                            return false;
                        });
            } catch (RuntimeException | Error e) {
                close(); // the caller's try-with-resources never got this run
                throw e;
            }
            Instant afterIt = first.get().plusMillis(1);
            end = start.plus(d).isAfter(afterIt) ? start.plus(d) : afterIt;
            return this;
        }

        /**
         * Waits until {@code stream} holds more than {@code n} changes since {@code from}; returns
         * when.
         */
        Instant awaitChangesSince(String stream, Instant from, int n) {
            AtomicReference<Instant> when = new AtomicReference<>();
            Await.until(
                    "more than " + n + " changes on stream " + stream + " since " + from,
                    WRITE_LIMIT,
                    () -> {
                        Instant now = Instant.now();
                        when.set(now);
                        return EdgeJob.expected(
                                                emulator,
                                                stream,
                                                EdgeJob.micros(from),
                                                EdgeJob.micros(now))
                                        .size()
                                > n;
                    },
                    () -> "changes so far: " + changesSince(stream, from));
            return when.get();
        }

        private int changesSince(String stream, Instant from) {
            return EdgeJob.expected(
                            emulator, stream, EdgeJob.micros(from), EdgeJob.micros(Instant.now()))
                    .size();
        }

        /** Waits until the emulator has committed a change after {@code t} (wall clock ahead). */
        void awaitCommitAfter(Instant t) {
            Await.until(
                    "a commit after " + t,
                    WRITE_LIMIT,
                    () ->
                            emulator.database().groundTruth().stream()
                                    .anyMatch(txn -> txn.commitTimestamp().isAfter(t)));
        }

        private boolean enoughWritten(String stream, long startMicros, long churnAtStart) {
            long now = EdgeJob.micros(Instant.now());
            ChangeStream cs = emulator.database().changeStream(stream);
            if (cs.churnEvents() - churnAtStart < MIN_CHURN_EVENTS) {
                return false;
            }
            if (emulator.edgeCases().contains(EdgeCase.WINDOW_END_WITHOUT_END_RECORD)
                    && cs.partitionsEndedBetween(startMicros, now) < MIN_ENDED_PARTITIONS) {
                return false;
            }
            for (EdgeCase c : emulator.edgeCases().asSet()) {
                if (FIRE_AS_WRITTEN.contains(c) && emulator.edgeCaseCounts().get(c) == 0) {
                    return false;
                }
            }
            return EdgeJob.expected(emulator, stream, startMicros, now).size() >= MIN_CHANGES;
        }

        private String progress(String stream, long startMicros) {
            long now = EdgeJob.micros(Instant.now());
            return EdgeJob.expected(emulator, stream, startMicros, now).size()
                    + " changes, "
                    + emulator.database()
                            .changeStream(stream)
                            .partitionsEndedBetween(startMicros, now)
                    + " partitions ended, "
                    + (emulator.database().changeStream(stream).churnEvents()
                            - churnAtStart(stream))
                    + " churn events, edge counts "
                    + emulator.edgeCaseCounts();
        }

        @Override
        public void close() {
            workload.stop();
            emulator.close();
        }
    }

    /** Edges that fire as data is written or partitions churn, not as a query reads. */
    private static final Set<EdgeCase> FIRE_AS_WRITTEN =
            EnumSet.of(
                    EdgeCase.SHARED_TIMESTAMPS,
                    EdgeCase.UNKNOWN_TYPES,
                    EdgeCase.SPLIT_PARTITION_RECORDS);
}
