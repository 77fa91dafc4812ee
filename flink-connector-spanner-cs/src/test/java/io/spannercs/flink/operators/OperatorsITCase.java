package io.spannercs.flink.operators;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Value;
import io.grpc.Status;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.FaultInjector;
import io.spannercs.emulator.testing.Await;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.CommittedRange;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.GroundTruth;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.testing.InjectedFailures;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both operators end to end under everything the source survives: partitions churning, hot keys
 * moved between partitions while they are updated, streams failing with UNAVAILABLE, and the job
 * failing and restoring from checkpoints (parallelism 2, checkpoints every 200 ms). The source's
 * output is shuffled at random (rebalance, one slow subtask) before the operators, so per-key order
 * must come from the reorder operator: a third branch counts the per-key order violations of the
 * shuffled stream itself and must find some, which proves the order check can fail.
 *
 * <p>Checked against the emulator's ground truth: the reorder's output per row is exactly the row's
 * changes in commit order, each once; the assembler emits exactly the ground truth's transactions,
 * each once, complete, with the same changes in record order; nothing is late.
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = TimeUnit.MINUTES)
class OperatorsITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount NUMERIC)"
                    + " PRIMARY KEY (OrderId);\n"
                    + "CREATE TABLE Items (ItemId INT64 NOT NULL, Qty INT64) PRIMARY KEY"
                    + " (ItemId);\n"
                    + "CREATE CHANGE STREAM mutable_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR ALL;\n";

    private static final int HOT_KEYS = 4;

    /** The source's map fails the job at every {@code FAIL_EVERY}-th change, three times. */
    private static final int FAIL_EVERY = 150;

    /**
     * Changes the range must hold before the job starts: each distinct change passes the failing
     * map at least once, so 3 x 150 of them make the job fail three times; more than the 300
     * checked.
     */
    private static final int MIN_CHANGES = 3 * FAIL_EVERY;

    /** Changes the hottest row must have, so that the reorder has a long history to keep. */
    private static final int MIN_HOT_ROW_CHANGES = 20;

    /** Splits, merges and moves the readers must follow (one every 300 ms, besides hot keys). */
    private static final int MIN_CHURN_EVENTS = 6;

    /** How long past the last commit seen before the job starts the range reads at the head. */
    private static final Duration LIVE_TAIL = Duration.ofSeconds(2);

    static final AtomicLong SHUFFLED_VIOLATIONS = new AtomicLong();
    static final AtomicLong LATE = new AtomicLong();

    @ParameterizedTest
    @ValueSource(strings = {"mutable_cs", "legacy_cs"})
    void reorderAndAssemblerMatchGroundTruth(String stream) throws Exception {
        InjectedFailures.arm(3);
        SHUFFLED_VIOLATIONS.set(0);
        LATE.set(0);
        ScheduledExecutorService mover = Executors.newSingleThreadScheduledExecutor();
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(2)
                        .maxPartitions(6)
                        .churnInterval(Duration.ofMillis(300))
                        .seed(41)
                        .start()) {
            emulator.faults()
                    .failStreamAfterRows(
                            FaultInjector.ANY_PARTITION, 25, Status.Code.UNAVAILABLE, 6);
            CommittedRange range = CommittedRange.startingNow(emulator, stream);
            Instant start = range.start();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder()
                                    .transactionsPerSecond(80)
                                    .rowsPerTransaction(1, 5)
                                    .mix(30, 60, 10)
                                    .keySpace(200)
                                    .hotKeys(HOT_KEYS, 0.5)
                                    .seed(43)
                                    .build());
            workload.start();
            moveHotKeys(mover, emulator.database().changeStream(stream));

            List<ChangeEvent> reordered;
            List<SpannerTransaction> transactions;
            Instant end;
            try {
                // The range ends by what is committed, not by a fixed 8 s: the job starts once
                // the stream holds enough changes for the injected failures and the checks, and
                // the range ends a live tail after the last commit seen then, through which the
                // workload and the hot-key moves go on.
                range.awaitWritten(MIN_CHANGES, MIN_CHURN_EVENTS);
                Await.until(
                        "a row with more than " + MIN_HOT_ROW_CHANGES + " changes",
                        CommittedRange.WRITE_LIMIT,
                        () -> hottestRowChanges(emulator, stream, start) > MIN_HOT_ROW_CHANGES,
                        () -> hottestRowChanges(emulator, stream, start) + " changes");
                end = range.afterLastCommit().plus(LIVE_TAIL);
                StreamExecutionEnvironment env =
                        StreamExecutionEnvironment.getExecutionEnvironment(
                                InjectedFailures.restartingConfiguration());
                env.setParallelism(2);
                env.enableCheckpointing(200);
                SpannerChangeStreamSource<ChangeEvent> source =
                        EmulatorSources.builder(emulator, stream, start, end).build();
                DataStream<ChangeEvent> shuffled =
                        env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                                .map(
                                        InjectedFailures.failEvery(FAIL_EVERY),
                                        ChangeEventTypeInfo.INSTANCE)
                                .rebalance()
                                .map(new SlowOnOneSubtask());

                SingleOutputStreamOperator<ChangeEvent> inOrder =
                        ChangeEventOrdering.inCommitOrder(shuffled);
                SingleOutputStreamOperator<SpannerTransaction> assembled =
                        TransactionAssembler.transactions(shuffled);
                inOrder.getSideOutput(ChangeEventOrdering.LATE_EVENTS)
                        .union(assembled.getSideOutput(ChangeEventOrdering.LATE_EVENTS))
                        .map(new CountLate())
                        .sinkTo(new DiscardingSink<>());
                shuffled.keyBy(ChangeEventOrdering::keyOf, Types.STRING)
                        .process(new CountOrderViolations())
                        .sinkTo(new DiscardingSink<>());
                CloseableIterator<ChangeEvent> events = inOrder.collectAsync();
                CloseableIterator<SpannerTransaction> txns = assembled.collectAsync();
                JobClient job = env.executeAsync("operators " + stream);
                // Drain both results at once: one full collect buffer must not stall the other.
                CompletableFuture<List<ChangeEvent>> eventsDone = drain(events);
                CompletableFuture<List<SpannerTransaction>> txnsDone = drain(txns);
                reordered = eventsDone.get(3, TimeUnit.MINUTES);
                transactions = txnsDone.get(3, TimeUnit.MINUTES);
                job.getJobExecutionResult().get();
            } finally {
                mover.shutdownNow();
                workload.stop();
            }
            assertThat(InjectedFailures.failuresLeft()).as("the job failed and restored").isZero();
            assertThat(LATE.get()).as("late events").isZero();
            assertThat(SHUFFLED_VIOLATIONS.get())
                    .as("per-key order violations of the shuffled stream, without the reorder")
                    .isPositive();

            List<String> expected =
                    GroundTruth.expected(
                            emulator.database(),
                            stream,
                            EmulatorSources.micros(start),
                            EmulatorSources.micros(end));
            assertThat(expected).hasSizeGreaterThan(300);
            assertReorderedPerRow(expected, reordered);
            assertTransactions(expected, transactions);
        }
    }

    /** Each row's output equals the row's ground truth changes, in commit order, each once. */
    private static void assertReorderedPerRow(List<String> expected, List<ChangeEvent> reordered) {
        Map<String, List<String>> expectedByRow = new LinkedHashMap<>();
        for (String id : expected) {
            expectedByRow.computeIfAbsent(GroundTruth.rowOf(id), k -> new ArrayList<>()).add(id);
        }
        Map<String, List<String>> actualByRow = new LinkedHashMap<>();
        for (ChangeEvent e : reordered) {
            String id = GroundTruth.identity(e);
            actualByRow.computeIfAbsent(GroundTruth.rowOf(id), k -> new ArrayList<>()).add(id);
        }
        assertThat(reordered).hasSameSizeAs(expected);
        assertThat(actualByRow.keySet())
                .containsExactlyInAnyOrderElementsOf(expectedByRow.keySet());
        int hotRowChanges = 0;
        for (Map.Entry<String, List<String>> row : expectedByRow.entrySet()) {
            assertThat(actualByRow.get(row.getKey()))
                    .as("changes of row %s", row.getKey())
                    .containsExactlyElementsOf(row.getValue());
            hotRowChanges = Math.max(hotRowChanges, row.getValue().size());
        }
        assertThat(hotRowChanges)
                .as("changes of the hottest row")
                .isGreaterThan(MIN_HOT_ROW_CHANGES);
    }

    /** The most changes any one row has in the ground truth since {@code start}. */
    private static int hottestRowChanges(SpannerEmulator emulator, String stream, Instant start) {
        Map<String, Integer> perRow = new HashMap<>();
        for (String id :
                GroundTruth.expected(
                        emulator.database(),
                        stream,
                        EmulatorSources.micros(start),
                        EmulatorSources.micros(Instant.now().plusSeconds(60)))) {
            perRow.merge(GroundTruth.rowOf(id), 1, Integer::sum);
        }
        return perRow.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /** The transactions are the ground truth's, each once, complete, changes in record order. */
    private static void assertTransactions(
            List<String> expected, List<SpannerTransaction> transactions) {
        Map<String, List<String>> expectedByTxn = new HashMap<>();
        for (String id : expected) {
            String txn = id.substring(0, id.indexOf('|'));
            expectedByTxn.computeIfAbsent(txn, k -> new ArrayList<>()).add(id);
        }
        Map<String, List<String>> actualByTxn = new HashMap<>();
        int multiPartition = 0;
        for (SpannerTransaction t : transactions) {
            assertThat(t.isComplete()).as("%s complete", t).isTrue();
            assertThat(t.getEvents()).isSortedAccordingTo(TransactionAssembler.TRANSACTION_ORDER);
            List<String> ids = new ArrayList<>();
            for (ChangeEvent e : t.getEvents()) {
                assertThat(e.getServerTransactionId()).isEqualTo(t.getServerTransactionId());
                assertThat(e.getCommitTimestamp()).isEqualTo(t.getCommitTimestamp());
                ids.add(GroundTruth.identity(e));
            }
            assertThat(actualByTxn.put(t.getServerTransactionId(), ids))
                    .as("%s emitted once", t)
                    .isNull();
            if (t.getNumberOfPartitionsInTransaction() > 1) {
                multiPartition++;
            }
        }
        assertThat(actualByTxn.keySet())
                .containsExactlyInAnyOrderElementsOf(expectedByTxn.keySet());
        for (Map.Entry<String, List<String>> txn : expectedByTxn.entrySet()) {
            assertThat(actualByTxn.get(txn.getKey()))
                    .as("changes of transaction %s", txn.getKey())
                    .containsExactlyInAnyOrderElementsOf(txn.getValue());
        }
        assertThat(multiPartition).as("transactions spanning partitions").isPositive();
    }

    /** Moves a random hot key to another partition every 150 ms while the workload updates it. */
    private static void moveHotKeys(ScheduledExecutorService mover, ChangeStream cs) {
        Random random = new Random(47);
        mover.scheduleWithFixedDelay(
                () -> {
                    String table = random.nextBoolean() ? "Orders" : "Items";
                    Value key =
                            Value.newBuilder()
                                    .setStringValue(Long.toString(random.nextInt(HOT_KEYS)))
                                    .build();
                    try {
                        cs.moveKey(table, List.of(key));
                    } catch (IllegalStateException e) {
                        // Too few partitions for a move right now: churn will add some.
                    }
                },
                100,
                150,
                TimeUnit.MILLISECONDS);
    }

    private static <T> CompletableFuture<List<T>> drain(CloseableIterator<T> it) {
        return CompletableFuture.supplyAsync(
                () -> {
                    List<T> out = new ArrayList<>();
                    try (it) {
                        it.forEachRemaining(out::add);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return out;
                });
    }

    /** After a rebalance: subtask 0 stalls now and then, so a row's changes overtake each other. */
    static final class SlowOnOneSubtask extends RichMapFunction<ChangeEvent, ChangeEvent> {
        private transient boolean slow;
        private transient int count;

        @Override
        public void open(OpenContext openContext) {
            slow = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0;
        }

        @Override
        public ChangeEvent map(ChangeEvent e) throws InterruptedException {
            if (slow && ++count % 40 == 0) {
                Thread.sleep(20);
            }
            return e;
        }
    }

    /** Counts changes of a row that arrive after a change of the row committed later. */
    static final class CountOrderViolations
            extends KeyedProcessFunction<String, ChangeEvent, ChangeEvent> {
        private transient ValueState<Instant> latest;

        @Override
        public void open(OpenContext openContext) {
            latest =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("latest", Types.INSTANT));
        }

        @Override
        public void processElement(ChangeEvent e, Context ctx, Collector<ChangeEvent> out)
                throws Exception {
            Instant previous = latest.value();
            if (previous != null && e.getCommitTimestamp().isBefore(previous)) {
                SHUFFLED_VIOLATIONS.incrementAndGet();
            } else {
                latest.update(e.getCommitTimestamp());
            }
        }
    }

    static final class CountLate implements MapFunction<ChangeEvent, ChangeEvent> {
        @Override
        public ChangeEvent map(ChangeEvent e) {
            LATE.incrementAndGet();
            return e;
        }
    }
}
