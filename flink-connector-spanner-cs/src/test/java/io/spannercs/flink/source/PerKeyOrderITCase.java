package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.changestream.ChurnOp;
import io.spannercs.emulator.changestream.FaultInjector;
import io.spannercs.emulator.schema.PartitionMode;
import io.spannercs.flink.format.ChangeEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Per-key order across key-range moves (DESIGN.md section 3, barriers). Hot keys are updated in
 * bursts and moved between partitions again and again, every partition is slowed down so the
 * partition a key left lags behind the one it moved to, and a map chained to the source records the
 * global emission order. With barriers every key's changes come out in commit order; with barriers
 * off the same workload shows violations, which proves the check can fail.
 *
 * <p>In MUTABLE_KEY_RANGE mode the emulator also holds back the partition the keys started in
 * (ground truth says some of its keys' later changes went elsewhere). Without barriers it is
 * released only once every change outside it has been emitted, so violations do not depend on the
 * machine's speed; with barriers those changes wait for it, so it is released after a while.
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class PerKeyOrderITCase {
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .build());

    private static final String DDL =
            "CREATE TABLE Hot (K INT64 NOT NULL, V INT64) PRIMARY KEY (K);\n"
                    + "CREATE CHANGE STREAM hot_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM hot_legacy_cs FOR ALL;\n";

    /** Emissions seen by the chained recorder: global sequence, key, commit timestamp. */
    static final ConcurrentLinkedQueue<Object[]> EMITTED = new ConcurrentLinkedQueue<>();

    static final AtomicLong SEQUENCE = new AtomicLong();

    /** Barriers the last job's readers released without the enumerator. */
    private long releasedLocally;

    /** How long the held partition lags when barriers are on (any lag keeps the order). */
    private static final Duration HOLD_WITH_BARRIERS = Duration.ofSeconds(2);

    /** How long the changes outside the held partition may take to come out without barriers. */
    private static final Duration OTHERS_DEADLINE = Duration.ofSeconds(90);

    @ParameterizedTest
    @ValueSource(strings = {"hot_cs", "hot_legacy_cs"})
    void barriersKeepEveryKeyInCommitOrder(String stream) throws Exception {
        assertThat(run(stream, true, EdgeCases.none()))
                .as("order violations with barriers")
                .isZero();
    }

    /**
     * One reader reads every partition, so it releases every barrier itself (LocalBarriers), with
     * every edge on.
     */
    @org.junit.jupiter.api.Test
    void aSingleReaderReleasesBarriersItselfInCommitOrder() throws Exception {
        assertThat(run("hot_cs", true, EdgeCases.all(), 1))
                .as("order violations with barriers released by the one reader")
                .isZero();
        assertThat(releasedLocally).as("barriers released by the reader").isPositive();
    }

    @org.junit.jupiter.api.Test
    void aSingleReaderWithoutBarriersShowsViolations() throws Exception {
        assertThat(run("hot_cs", false, EdgeCases.none(), 1))
                .as("order violations of one reader without barriers")
                .isPositive();
    }

    /**
     * With every specification edge on: several records per timestamp out of sequence order,
     * partition records in several records (a swap's move-ins first) and after a heartbeat of their
     * timestamp, shared commit timestamps, windows ending without end records, faults.
     */
    @ParameterizedTest
    @ValueSource(strings = {"hot_cs", "hot_legacy_cs"})
    void barriersKeepEveryKeyInCommitOrderWithEveryEdge(String stream) throws Exception {
        assertThat(run(stream, true, EdgeCases.all()))
                .as("order violations with barriers")
                .isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"hot_cs", "hot_legacy_cs"})
    void withoutBarriersTheSameWorkloadShowsViolations(String stream) throws Exception {
        assertThat(run(stream, false, EdgeCases.none()))
                .as("order violations without barriers")
                .isPositive();
    }

    private int run(String stream, boolean perKeyOrdering, EdgeCases edges) throws Exception {
        return run(stream, perKeyOrdering, edges, 2);
    }

    private int run(String stream, boolean perKeyOrdering, EdgeCases edges, int parallelism)
            throws Exception {
        EMITTED.clear();
        releasedLocally = 0;
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .edgeCases(edges)
                        .initialPartitions(4)
                        .maxPartitions(8)
                        .seed(5)
                        .start()) {
            Instant start = Instant.now();
            ChangeStream cs = emulator.database().changeStream(stream);
            boolean legacy = cs.def().partitionMode() == PartitionMode.IMMUTABLE_KEY_RANGE;
            Random random = new Random(9);
            // Ground truth for the held partition: the changes outside it, and whether a key it
            // had changes of later changed elsewhere (what makes a violation without barriers).
            String held = legacy ? null : cs.ownerOf("Hot", List.of(int64(0)));
            long changesOutsideHeld = 0;
            Set<Long> keysSeenInHeld = new HashSet<>();
            boolean aKeyLeftTheHeldPartition = false;
            long value = 0;
            for (int round = 0; round < 15; round++) {
                for (long k = 0; k < 6; k++) {
                    for (int burst = 0; burst < 4; burst++) {
                        String owner = cs.ownerOf("Hot", List.of(int64(k)));
                        if (owner.equals(held)) {
                            keysSeenInHeld.add(k);
                        } else {
                            changesOutsideHeld++;
                            aKeyLeftTheHeldPartition |= keysSeenInHeld.contains(k);
                        }
                        emulator.database().commit(List.of(upsert(k, value++)), "");
                    }
                    if (!random.nextBoolean()) {
                        continue;
                    }
                    if (!legacy) {
                        cs.moveKey("Hot", List.of(int64(k)));
                    } else {
                        // Legacy keys move through splits and merges; a merged child must wait
                        // for both parents.
                        int live = cs.liveTokens().size();
                        cs.churn(
                                live <= 2 || (live < 8 && random.nextBoolean())
                                        ? ChurnOp.SPLIT
                                        : ChurnOp.MERGE);
                    }
                }
            }
            Instant end = Instant.now();
            if (held != null) {
                assertThat(aKeyLeftTheHeldPartition)
                        .as("a key of the held partition %s changed elsewhere later", held)
                        .isTrue();
                emulator.faults().hold(held);
            }
            // Every partition answers slowly, so a partition a key left lags behind the one it
            // joined unless the barrier holds the newcomer back.
            emulator.faults().setLatency(FaultInjector.ANY_PARTITION, Duration.ofMillis(3));
            if (parallelism == 1) {
                // One reader reads every partition side by side: only partitions answering at
                // different speeds make the one a key left lag behind the one it joined.
                int i = 0;
                for (String token : cs.liveTokens()) {
                    emulator.faults().setLatency(token, Duration.ofMillis(1 + 5 * (i++ % 4)));
                }
            }

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(parallelism);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, stream, start, end)
                            .setPerKeyOrdering(perKeyOrdering)
                            .setUnknownValueHandling(UnknownValueHandling.RAW)
                            .build();
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                    .map(new EmissionRecorder())
                    .sinkTo(new DiscardingSink<>());
            JobClient client =
                    env.executeAsync(
                            stream
                                    + " per-key order, barriers "
                                    + (perKeyOrdering ? "on" : "off")
                                    + ", edges "
                                    + edges);
            if (held != null) {
                release(emulator, held, perKeyOrdering, changesOutsideHeld, client);
            }
            JobID job = client.getJobExecutionResult().get().getJobID();
            for (Metric m : REPORTER.findMetrics(job, "numBarriersReleasedLocally").values()) {
                releasedLocally += ((Counter) m).getCount();
            }

            long expectedChanges = 15 * 6 * 4;
            assertThat(EMITTED).hasSize((int) expectedChanges);
            return countViolations();
        }
    }

    /**
     * Without barriers, releases the held partition once every change outside it came out; with
     * barriers those changes wait for it, so it lags for a fixed time instead.
     */
    private static void release(
            SpannerEmulator emulator,
            String held,
            boolean perKeyOrdering,
            long changesOutside,
            JobClient job)
            throws InterruptedException {
        if (perKeyOrdering) {
            Thread.sleep(HOLD_WITH_BARRIERS.toMillis());
        } else {
            long deadline = System.nanoTime() + OTHERS_DEADLINE.toNanos();
            // A failed job is reported by its result, not as a missed deadline.
            while (EMITTED.size() < changesOutside && !job.getJobExecutionResult().isDone()) {
                assertThat(System.nanoTime())
                        .as(
                                "changes outside the held partition emitted in time: %s of %s",
                                EMITTED.size(), changesOutside)
                        .isLessThan(deadline);
                Thread.sleep(10);
            }
        }
        emulator.faults().release(held);
    }

    /** A key's change emitted after a change of the same key with a later commit timestamp. */
    private static int countViolations() {
        List<Object[]> emitted = new ArrayList<>(EMITTED);
        emitted.sort((a, b) -> Long.compare((long) a[0], (long) b[0]));
        Map<Object, Instant> last = new HashMap<>();
        int violations = 0;
        for (Object[] e : emitted) {
            Instant previous = last.get(e[1]);
            Instant ts = (Instant) e[2];
            if (previous != null && ts.isBefore(previous)) {
                violations++;
            } else {
                last.put(e[1], ts);
            }
        }
        return violations;
    }

    /** Chained to the source: records the order in which changes leave it. */
    static final class EmissionRecorder implements MapFunction<ChangeEvent, ChangeEvent> {
        @Override
        public ChangeEvent map(ChangeEvent e) {
            EMITTED.add(
                    new Object[] {
                        SEQUENCE.incrementAndGet(), e.getKeys().get("K"), e.getCommitTimestamp()
                    });
            return e;
        }
    }

    private static Value int64(long v) {
        return Value.newBuilder().setStringValue(Long.toString(v)).build();
    }

    private static Mutation upsert(long k, long v) {
        return Mutation.newBuilder()
                .setInsertOrUpdate(
                        Mutation.Write.newBuilder()
                                .setTable("Hot")
                                .addColumns("K")
                                .addColumns("V")
                                .addValues(
                                        ListValue.newBuilder()
                                                .addValues(int64(k))
                                                .addValues(int64(v))))
                .build();
    }
}
