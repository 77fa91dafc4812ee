package io.spannercs.benchmarks;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.BatchClient;
import com.google.cloud.spanner.BatchReadOnlyTransaction;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.TimestampBound;
import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.StartupMode;
import io.spannercs.flink.source.enumerator.ChangeStreamSplitEnumerator;
import io.spannercs.flink.source.spanner.SnapshotPlanner;
import io.spannercs.flink.source.spanner.SnapshotValues;
import io.spannercs.flink.source.spanner.SpannerSnapshotPlanner;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Snapshot throughput of the source against a plain reader of the same key ranges. A table is
 * preloaded with N rows; the source's planner cuts it into splits at T. Then, in the same run:
 *
 * <ul>
 *   <li>(a) a plain reader: {@code BatchClient} read-only transactions at T, one per split, read on
 *       as many threads as the source reads splits at once (parallelism x splits per reader), each
 *       row's values converted as the source converts them into a {@link ChangeEvent}, as the plain
 *       reader of {@link ThroughputBenchmark} does with changes;
 *   <li>(b) the source: a bounded job, {@code StartupMode.snapshotOnly(T)}, into a discarding sink
 *       chained to it.
 * </ul>
 *
 * <p>Rates count rows between the first and the last one (planning and start-up excluded); both
 * readers must read exactly N rows. {@code --warmup} rounds run first and do not count (the
 * emulator runs in this JVM and its reads get several times faster as the JIT compiles them). Then
 * each of {@code --rounds} rounds runs both readers, the plain one first in odd rounds and the
 * source first in even ones; the report gives each round's ratio, their median and the best rates'
 * ratio.
 */
public final class SnapshotBenchmark {
    private SnapshotBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchArgs a = new BenchArgs(args);
        int rows = a.intValue("rows", 200_000, "rows preloaded into the table");
        int parallelism = a.intValue("parallelism", 2, "parallelism of the Flink job");
        int chunkRows = a.intValue("chunk-rows", 10_000, "rows per snapshot split");
        int warmup = a.intValue("warmup", 1, "rounds run first that do not count");
        int rounds = a.intValue("rounds", 3, "rounds that count");
        if (!a.finish("SnapshotBenchmark")) {
            return;
        }
        BenchReport.machine(System.out);
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(BenchSchema.DDL).start()) {
            preload(emulator, rows);
            Instant at = Instant.now();
            SpannerChangeStreamSource<ChangeEvent> source =
                    FlinkJobs.source(emulator, 0)
                            .setStartTimestamp(null)
                            .setStartupMode(StartupMode.snapshotOnly(at))
                            .setSnapshotChunkRows(chunkRows)
                            .build();
            List<SnapshotSplit> splits;
            try (SpannerSnapshotPlanner planner =
                    new SpannerSnapshotPlanner(source.config(), ChangeFilter.ALL)) {
                SnapshotPlanner.Plan plan = planner.plan();
                splits = plan.splits();
            }
            int threads = parallelism * ChangeStreamSplitEnumerator.SNAPSHOT_SPLITS_PER_READER;
            System.out.printf(
                    Locale.ROOT,
                    "%,d rows in %d splits of %,d rows; plain reader on %d threads, source at"
                            + " parallelism %d (%d splits per reader at a time)%n",
                    rows,
                    splits.size(),
                    chunkRows,
                    threads,
                    parallelism,
                    ChangeStreamSplitEnumerator.SNAPSHOT_SPLITS_PER_READER);
            for (int round = 1; round <= warmup; round++) {
                double plain = plain(emulator, splits, at, threads, rows);
                double src = source(source, parallelism, rows, -round);
                System.out.printf(
                        Locale.ROOT,
                        "warm-up %d: a (plain) %,.0f rows/s, b (source) %,.0f rows/s%n",
                        round,
                        plain,
                        src);
            }
            double bestPlain = 0;
            double bestSource = 0;
            List<Double> ratios = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                boolean plainFirst = round % 2 == 1;
                double plain = 0;
                double src;
                if (plainFirst) {
                    plain = plain(emulator, splits, at, threads, rows);
                }
                src = source(source, parallelism, rows, round);
                if (!plainFirst) {
                    plain = plain(emulator, splits, at, threads, rows);
                }
                System.out.printf(
                        Locale.ROOT,
                        "round %d (%s first): a (plain) %,.0f rows/s, b (source) %,.0f rows/s,"
                                + " b/a %.2f%n",
                        round,
                        plainFirst ? "plain" : "source",
                        plain,
                        src,
                        src / plain);
                bestPlain = Math.max(bestPlain, plain);
                bestSource = Math.max(bestSource, src);
                ratios.add(src / plain);
            }
            ratios.sort(null);
            double median =
                    ratios.size() % 2 == 1
                            ? ratios.get(ratios.size() / 2)
                            : (ratios.get(ratios.size() / 2 - 1) + ratios.get(ratios.size() / 2))
                                    / 2;
            System.out.printf(
                    Locale.ROOT,
                    "best: a %,.0f rows/s, b %,.0f rows/s, b/a %.2f; median of the rounds' b/a"
                            + " %.2f%n",
                    bestPlain,
                    bestSource,
                    bestSource / bestPlain,
                    median);
        }
        System.exit(0); // Flink and gRPC leave non-daemon threads behind
    }

    private static void preload(SpannerEmulator emulator, int rows) {
        long t0 = System.nanoTime();
        List<Mutation> batch = new ArrayList<>();
        for (long id = 0; id < rows; id++) {
            batch.add(BenchSchema.upsert(id, 0));
            if (batch.size() == 1000 || id == rows - 1) {
                emulator.database().database().commit(batch, "", false);
                batch = new ArrayList<>();
            }
        }
        System.out.printf(
                Locale.ROOT,
                "preloaded %,d rows in %.1f s%n",
                rows,
                (System.nanoTime() - t0) / 1e9);
    }

    /** Rows per second of the plain reader over the splits. */
    private static double plain(
            SpannerEmulator emulator, List<SnapshotSplit> splits, Instant at, int threads, int rows)
            throws Exception {
        try (Spanner spanner = EmulatorClient.create(emulator)) {
            BatchClient client =
                    spanner.getBatchClient(
                            DatabaseId.of(
                                    emulator.projectId(),
                                    emulator.instanceId(),
                                    emulator.databaseId()));
            AtomicLong count = new AtomicLong();
            AtomicLong first = new AtomicLong();
            AtomicLong last = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (SnapshotSplit split : splits) {
                    done.add(
                            pool.submit(
                                    () -> {
                                        readSplit(client, split, at, count, first, last);
                                        return null;
                                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            if (count.get() != rows) {
                throw new IllegalStateException(
                        "the plain reader read " + count.get() + " rows, not " + rows);
            }
            return count.get() * 1e9 / (last.get() - first.get());
        }
    }

    private static void readSplit(
            BatchClient client,
            SnapshotSplit split,
            Instant at,
            AtomicLong count,
            AtomicLong first,
            AtomicLong last) {
        BatchReadOnlyTransaction txn =
                client.batchReadOnlyTransaction(
                        TimestampBound.ofReadTimestamp(
                                Timestamp.ofTimeSecondsAndNanos(
                                        at.getEpochSecond(), at.getNano())));
        try (ResultSet rs = txn.read(split.table(), split.remaining(null), split.columns())) {
            long n = 0;
            while (rs.next()) {
                if (n == 0) {
                    long now = System.nanoTime();
                    first.accumulateAndGet(now, (x, y) -> x == 0 ? y : Math.min(x, y));
                }
                // What a user needs of a row to hand it on: the typed values, as an event.
                Map<String, Object> keys = new LinkedHashMap<>();
                Map<String, Object> values = new LinkedHashMap<>();
                for (int i = 0; i < split.columns().size(); i++) {
                    String column = split.columns().get(i);
                    (split.keyColumns().contains(column) ? keys : values)
                            .put(column, SnapshotValues.value(rs, i));
                }
                ChangeEvent row =
                        ChangeEvent.builder()
                                .table(split.table())
                                .changeType(ChangeType.INSERT)
                                .keys(keys)
                                .newValues(values)
                                .oldValues(Map.of())
                                .commitTimestamp(at)
                                .serverTransactionId("")
                                .recordSequence("")
                                .modNumber(0)
                                .transactionTag("")
                                .systemTransaction(false)
                                .partitionToken("")
                                .numberOfRecordsInTransaction(0)
                                .numberOfPartitionsInTransaction(0)
                                .valueCaptureType("NEW_ROW")
                                .build();
                n += row.getKeys().isEmpty() ? 0 : 1;
            }
            count.addAndGet(n);
            last.accumulateAndGet(System.nanoTime(), Math::max);
        } finally {
            txn.close();
        }
    }

    /** Rows per second of the source, from its first row to its last. */
    private static double source(
            SpannerChangeStreamSource<ChangeEvent> source, int parallelism, int rows, int round)
            throws Exception {
        String tally = "snapshot-" + round;
        StreamExecutionEnvironment env = FlinkJobs.localEnvironment(parallelism, false);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner snapshot")
                .sinkTo(new CountingDiscardingSink(tally));
        long t0 = System.nanoTime();
        env.execute("snapshot benchmark " + round);
        ReadResult r = Tally.remove(tally).result(System.nanoTime() - t0);
        if (r.rowChanges() != rows) {
            throw new IllegalStateException(
                    "the source read " + r.rowChanges() + " rows, not " + rows);
        }
        return r.perSecond();
    }
}
