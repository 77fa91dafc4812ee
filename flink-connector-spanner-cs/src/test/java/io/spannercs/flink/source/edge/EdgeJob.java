package io.spannercs.flink.source.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.GroundTruth;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.SpannerChangeStreamSourceBuilder;
import io.spannercs.flink.source.UnknownValueHandling;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs the source over an emulator in specification-edge mode and checks what it emitted: every
 * change of the ground truth exactly once (unknown mod types as Spanner sent them), every key in
 * commit order as it left the source, and the job never failing (no restart strategy: a failure
 * fails the test).
 */
final class EdgeJob {
    /** Emissions seen by the chained recorder: global sequence, row, commit timestamp. */
    static final ConcurrentLinkedQueue<Object[]> EMITTED = new ConcurrentLinkedQueue<>();

    private static final AtomicLong SEQUENCE = new AtomicLong();

    private EdgeJob() {}

    /** What a job emitted. */
    record Outcome(List<String> identities, int orderViolations) {}

    /** How long a bounded job may take before it is cancelled and the test fails. */
    static final Duration BOUNDED_JOB_LIMIT = Duration.ofSeconds(100);

    /**
     * Runs a bounded read of [start, end] to its end; a job still running after {@link
     * #BOUNDED_JOB_LIMIT} (a partition waiting forever, say) is cancelled and fails the test.
     */
    static Outcome bounded(
            SpannerEmulator emulator,
            String stream,
            Instant start,
            Instant end,
            int parallelism,
            UnaryOperator<SpannerChangeStreamSourceBuilder<ChangeEvent>> customize)
            throws Exception {
        EMITTED.clear();
        List<String> identities = new ArrayList<>();
        java.util.concurrent.ScheduledExecutorService watchdog =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        java.util.concurrent.atomic.AtomicBoolean cancelled =
                new java.util.concurrent.atomic.AtomicBoolean();
        try (CloseableIterator<ChangeEvent> it =
                stream(emulator, stream, start, end, parallelism, customize)
                        .executeAndCollect("edge cases " + emulator.edgeCases() + " " + stream)) {
            watchdog.schedule(
                    () -> {
                        cancelled.set(true);
                        try {
                            it.close(); // cancels the job
                        } catch (Exception ignored) {
                            // the job is going away either way
                        }
                    },
                    BOUNDED_JOB_LIMIT.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS);
            it.forEachRemaining(e -> identities.add(GroundTruth.identity(e)));
        } catch (RuntimeException e) {
            if (!cancelled.get()) {
                throw e;
            }
        } finally {
            watchdog.shutdownNow();
        }
        assertThat(cancelled.get())
                .as(
                        "the bounded job was still running after %s and was cancelled",
                        BOUNDED_JOB_LIMIT)
                .isFalse();
        return new Outcome(identities, orderViolations());
    }

    /**
     * Runs an unbounded read from {@code start} until it has emitted every change {@code expected}
     * lists (asked again while waiting, as the workload goes on) or {@code timeout} passes, then
     * cancels the job.
     */
    static Outcome unboundedUntil(
            SpannerEmulator emulator,
            String stream,
            Instant start,
            int parallelism,
            UnaryOperator<SpannerChangeStreamSourceBuilder<ChangeEvent>> customize,
            Supplier<List<String>> expected,
            Duration timeout)
            throws Exception {
        EMITTED.clear();
        List<String> identities = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        java.util.concurrent.BlockingQueue<String> arrived =
                new java.util.concurrent.LinkedBlockingQueue<>();
        try (CloseableIterator<ChangeEvent> it =
                stream(emulator, stream, start, null, parallelism, customize)
                        .executeAndCollect("edge cases " + emulator.edgeCases() + " " + stream)) {
            // Drained on a thread of its own: the iterator blocks while nothing arrives, and the
            // deadline must still end the test (closing the iterator cancels the job).
            Thread drain =
                    new Thread(
                            () -> {
                                try {
                                    it.forEachRemaining(e -> arrived.add(GroundTruth.identity(e)));
                                } catch (RuntimeException closed) {
                                    // the job was cancelled
                                }
                            },
                            "edge-job-drain");
            drain.setDaemon(true);
            drain.start();
            List<String> wanted = expected.get();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!seen.containsAll(wanted) && System.nanoTime() < deadline) {
                String id = arrived.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (id != null) {
                    identities.add(id);
                    seen.add(id);
                }
            }
        }
        return new Outcome(identities, orderViolations());
    }

    private static org.apache.flink.streaming.api.datastream.DataStream<ChangeEvent> stream(
            SpannerEmulator emulator,
            String stream,
            Instant start,
            Instant end,
            int parallelism,
            UnaryOperator<SpannerChangeStreamSourceBuilder<ChangeEvent>> customize) {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(200);
        SpannerChangeStreamSourceBuilder<ChangeEvent> b =
                EmulatorSources.builder(emulator, stream, start, end == null ? start : end)
                        .setUnknownValueHandling(UnknownValueHandling.RAW);
        if (end == null) {
            b.setEndTimestamp(null);
        }
        SpannerChangeStreamSource<ChangeEvent> source = customize.apply(b).build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                .map(new EmissionRecorder(), ChangeEventTypeInfo.INSTANCE);
    }

    /** The changes the stream recorded in [start, end], as the source must emit them. */
    static List<String> expected(
            SpannerEmulator emulator, String stream, long startMicros, long endMicros) {
        return GroundTruth.expectedAsSent(emulator, stream, startMicros, endMicros);
    }

    /** Asserts the outcome: exactly the expected changes, once, every key in commit order. */
    static void assertExactlyOnceInOrder(Outcome outcome, List<String> expected, int atLeast) {
        assertThat(expected).as("changes written").hasSizeGreaterThan(atLeast);
        assertThat(outcome.identities())
                .as("changes emitted")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(outcome.orderViolations()).as("per-key order violations").isZero();
    }

    /** A key's change emitted after a change of the same key with a later commit timestamp. */
    static int orderViolations() {
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

    static long micros(Instant i) {
        return EmulatorSources.micros(i);
    }

    /** Chained to the source: records the order in which changes leave it. */
    static final class EmissionRecorder implements MapFunction<ChangeEvent, ChangeEvent> {
        @Override
        public ChangeEvent map(ChangeEvent e) {
            EMITTED.add(
                    new Object[] {
                        SEQUENCE.incrementAndGet(),
                        e.getTable() + "|" + e.getKeys(),
                        e.getCommitTimestamp()
                    });
            return e;
        }
    }
}
