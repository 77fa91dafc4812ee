package io.spannercs.benchmarks;

import io.spannercs.emulator.EdgeCases;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Commit-to-emit latency under a steady load: the emulator's workload commits a fixed rate of row
 * changes over partitions that churn, and a reader notes each change's latency when it has it.
 * After a warm-up, changes committed in the measurement window count; the benchmark prints their
 * percentiles, the rate the machine actually sustained, and how many of the window's changes
 * arrived at all. Readers, each on a fresh emulator, one after the other:
 *
 * <ul>
 *   <li>{@code source}: the source, unbounded, in a local job, into a sink chained to it ({@link
 *       LatencyProbeSink});
 *   <li>{@code plain}: a reference, the {@link PlainClientReader} with a blocking thread per
 *       partition, noting the latency when it has decoded a change (no per-key order, no Flink).
 * </ul>
 */
public final class LatencyBenchmark {
    private LatencyBenchmark() {}

    /** Settings from the command line. */
    private record Settings(
            List<String> readers,
            int rate,
            int rowsPerTxn,
            int partitions,
            int maxPartitions,
            Duration churn,
            Duration heartbeat,
            Duration warmup,
            Duration window,
            Duration grace,
            int parallelism,
            EdgeCases edgeCases) {}

    /** One running reader. */
    private interface Running extends AutoCloseable {
        /** Fails if the reader died. */
        void check() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = new BenchArgs(args);
        Settings s =
                new Settings(
                        List.of(
                                a.string(
                                                "readers",
                                                "source,plain",
                                                "readers in turn: source, plain")
                                        .split(",")),
                        a.intValue("rate", 5_000, "row changes committed per second"),
                        a.intValue("rows-per-txn", 2, "rows changed per transaction"),
                        a.intValue("partitions", 64, "initial partitions"),
                        a.intValue("max-partitions", 64, "churn never splits beyond this"),
                        a.duration("churn-interval", "1s", "one churn operation this often"),
                        a.duration("heartbeat", "100ms", "heartbeat interval of the queries"),
                        a.duration("warmup", "10s", "load before the window opens"),
                        a.duration("window", "30s", "changes committed in it are measured"),
                        a.duration("grace", "3s", "wait for the window's last changes"),
                        a.intValue("parallelism", 2, "parallelism of the Flink job"),
                        EdgeCases.parse(
                                a.string(
                                        "edge-cases",
                                        "none",
                                        "the emulator's specification edges: all, none or a"
                                                + " list, e.g. stream-limit")));
        if (!a.finish("LatencyBenchmark")) {
            return;
        }
        BenchReport.machine(System.out);
        System.out.printf(
                Locale.ROOT,
                "Target %,d changes/s (%d rows/txn) over %d partitions (max %d), churn every %d ms,"
                        + " heartbeats %d ms, Flink parallelism %d; warm-up %d s, window %d s;"
                        + " emulator edges: %s%n",
                s.rate(),
                s.rowsPerTxn(),
                s.partitions(),
                s.maxPartitions(),
                s.churn().toMillis(),
                s.heartbeat().toMillis(),
                s.parallelism(),
                s.warmup().toSeconds(),
                s.window().toSeconds(),
                s.edgeCases());
        List<String> verdicts = new ArrayList<>();
        for (String reader : s.readers()) {
            System.out.printf("%n== %s ==%n", reader);
            LatencyRecorder.INSTANCE.reset();
            try (SpannerEmulator emulator =
                    SpannerEmulator.builder()
                            .ddl(BenchSchema.DDL)
                            .initialPartitions(s.partitions())
                            .maxPartitions(s.maxPartitions())
                            .churnInterval(s.churn())
                            .edgeCases(s.edgeCases())
                            .start()) {
                verdicts.add(reader + ": " + measure(s, reader, emulator));
            }
        }
        System.out.println();
        verdicts.forEach(System.out::println);
        System.exit(0); // Flink and gRPC leave non-daemon threads behind
    }

    private static String measure(Settings s, String reader, SpannerEmulator emulator)
            throws Exception {
        long startMicros = emulator.database().database().safeMicros();
        WorkloadGenerator workload = null;
        try (Running running =
                reader.equals("plain")
                        ? startPlain(emulator, startMicros)
                        : startSource(s, emulator, startMicros)) {
            workload = new WorkloadGenerator(emulator.database(), workload(s));
            workload.start();
            Thread.sleep(s.warmup().toMillis());
            long windowStart = emulator.database().database().safeMicros();
            long windowEnd = windowStart + s.window().toNanos() / 1000;
            LatencyRecorder.INSTANCE.measureCommitsBetween(windowStart, windowEnd);
            Thread.sleep(s.window().toMillis());
            workload.stop();
            Thread.sleep(s.grace().toMillis());
            running.check();
            return report(s, emulator, windowStart, windowEnd);
        } finally {
            if (workload != null) {
                workload.stop();
            }
        }
    }

    private static WorkloadConfig workload(Settings s) {
        return WorkloadConfig.builder()
                .tables(BenchSchema.TABLE)
                .rowsPerTransaction(s.rowsPerTxn(), s.rowsPerTxn())
                .transactionsPerSecond((double) s.rate() / s.rowsPerTxn())
                .mix(40, 50, 10)
                .keySpace(100_000)
                .seed(42)
                .transactionTag("bench")
                .build();
    }

    private static Running startSource(Settings s, SpannerEmulator emulator, long startMicros)
            throws Exception {
        StreamExecutionEnvironment env = FlinkJobs.localEnvironment(s.parallelism(), false);
        env.fromSource(
                        FlinkJobs.source(emulator, startMicros)
                                .setHeartbeatInterval(s.heartbeat())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "spanner")
                .sinkTo(new LatencyProbeSink())
                .name("latency probe");
        JobClient job = env.executeAsync("spanner source latency");
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (job.getJobStatus().get() != JobStatus.RUNNING) {
            if (System.nanoTime() > deadline || job.getJobStatus().get().isTerminalState()) {
                throw new IllegalStateException("The job did not start: " + job.getJobStatus());
            }
            Thread.sleep(50);
        }
        return new Running() {
            @Override
            public void check() throws Exception {
                JobStatus status = job.getJobStatus().get();
                if (status != JobStatus.RUNNING) {
                    throw new IllegalStateException("The job is " + status + ", not running");
                }
            }

            @Override
            public void close() throws Exception {
                job.cancel().get();
                env.close();
            }
        };
    }

    private static Running startPlain(SpannerEmulator emulator, long startMicros) {
        Clock clock = Clock.systemUTC();
        // One blocking thread per partition: churn keeps the count near the initial one.
        PlainClientReader plain =
                new PlainClientReader(
                        emulator,
                        BenchSchema.STREAM,
                        512,
                        PlainClientReader.Mode.BLOCKING,
                        0,
                        e ->
                                LatencyRecorder.INSTANCE.record(
                                        e.getPartitionToken(),
                                        LatencyProbeSink.micros(e.getCommitTimestamp()),
                                        LatencyProbeSink.micros(clock.instant())));
        // Mutable-mode queries end at most 30 minutes after their start.
        PlainClientReader.Run run =
                plain.start(startMicros, startMicros + Duration.ofMinutes(29).toNanos() / 1000);
        return new Running() {
            @Override
            public void check() throws Exception {
                if (run.done.isCompletedExceptionally()) {
                    run.done.get(); // throws the failure
                }
            }

            @Override
            public void close() {
                plain.close();
            }
        };
    }

    private static String report(
            Settings s, SpannerEmulator emulator, long windowStart, long windowEnd) {
        long committed = 0;
        for (CommittedTransaction t : emulator.database().groundTruth()) {
            if (t.commitMicros() >= windowStart && t.commitMicros() <= windowEnd) {
                committed += t.changes().size();
            }
        }
        double achieved = committed / (s.window().toNanos() / 1e9);
        boolean sustained = achieved >= 0.95 * s.rate();
        LatencyRecorder.Summary sum = LatencyRecorder.INSTANCE.summary();
        long lastSeconds = windowEnd - Duration.ofSeconds(5).toNanos() / 1000;
        System.out.printf(
                Locale.ROOT,
                "Committed in the window: %,d changes = %,.0f changes/s (target %,d: %s)%n",
                committed,
                achieved,
                s.rate(),
                sustained ? "sustained" : "NOT sustained on this machine");
        System.out.printf(
                Locale.ROOT,
                "Delivered: %,d of them (%.2f%%); %d partitions live at the end, %d delivered"
                        + " changes in the window's last 5 s, %d ever%n",
                sum.count(),
                100.0 * sum.count() / Math.max(1, committed),
                emulator.database().changeStream(BenchSchema.STREAM).liveTokens().size(),
                LatencyRecorder.INSTANCE.partitionsDeliveringSince(lastSeconds),
                LatencyRecorder.INSTANCE.partitionsSeen());
        System.out.println("Commit-to-emit latency: " + sum);
        String verdict;
        if (sum.count() < committed) {
            verdict = "p99 <= 200 ms NOT MET: " + (committed - sum.count()) + " changes missing";
        } else {
            verdict =
                    String.format(
                            Locale.ROOT,
                            "p50 %.1f ms, p99 %.1f ms at %,.0f changes/s: p99 <= 200 ms %s%s",
                            sum.millis(0.5),
                            sum.millis(0.99),
                            achieved,
                            sum.millis(0.99) <= 200 ? "met" : "NOT MET",
                            sustained ? "" : " (rate not sustained)");
        }
        System.out.println(verdict);
        return verdict;
    }
}
