package io.spannercs.benchmarks;

import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorStateSerializer;
import io.spannercs.flink.source.enumerator.ChangeStreamSplitEnumerator;
import io.spannercs.flink.source.event.ReaderReportsEvent;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionReport.BarrierReached;
import io.spannercs.flink.source.split.PartitionReport.Discovered;
import io.spannercs.flink.source.split.PartitionReport.Finished;
import io.spannercs.flink.source.split.PartitionReport.MovedOut;
import io.spannercs.flink.source.split.PartitionReport.NewPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The enumerator at scale, without a job: it is driven directly, as the coordinator thread would,
 * with synthetic reader reports for a change stream of 10,000 partitions. Measured: time to assign
 * every split after the root query, coordinator time per progress round (every reader reporting
 * every partition, which readers do each progress interval), time to register and to release N
 * move-in barriers, time per churn operation (split, merge, move, swap, each with its barrier), and
 * the checkpoint: size, snapshot, serialization and acknowledgement times.
 */
public final class EnumeratorScaleBenchmark {
    private static final long START = 1_800_000_000_000_000L;
    private static final ChangeStreamEnumeratorStateSerializer SERIALIZER =
            ChangeStreamEnumeratorStateSerializer.INSTANCE;

    private final int parallelism;
    private final BenchEnumeratorContext context;
    private final ChangeStreamSplitEnumerator enumerator;
    private final SyntheticPartitions stream;
    private final boolean print;
    private long checkpointId;
    private long barriersReported;

    private EnumeratorScaleBenchmark(int partitions, int parallelism, boolean print) {
        this.parallelism = parallelism;
        this.print = print;
        this.context = new BenchEnumeratorContext(parallelism);
        this.stream = new SyntheticPartitions(42, START);
        List<NewPartition> root = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            String token = stream.newToken();
            stream.add(token);
            root.add(new NewPartition(token, START, List.of()));
        }
        this.enumerator =
                new ChangeStreamSplitEnumerator(
                        context,
                        config(),
                        startMicros -> root,
                        ChangeStreamEnumeratorState.initial());
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = new BenchArgs(args);
        int partitions = a.intValue("partitions", 10_000, "partitions of the stream");
        int parallelism = a.intValue("parallelism", 32, "source readers (subtasks)");
        int rounds = a.intValue("progress-rounds", 20, "progress rounds measured");
        int barriers = a.intValue("barriers", 5_000, "barriers registered and released at once");
        int churnOps = a.intValue("churn-ops", 2_000, "churn operations");
        if (!a.finish("EnumeratorScaleBenchmark")) {
            return;
        }
        BenchReport.machine(System.out);
        // The same scenario, small and unprinted, first: the JIT compiles the enumerator.
        new EnumeratorScaleBenchmark(Math.min(1_000, partitions), parallelism, false)
                .run(5, Math.min(barriers, 500), Math.min(churnOps, 500));
        System.out.printf(
                Locale.ROOT,
                "%,d partitions, %d readers; figures are wall-clock times on the calling thread%n%n",
                partitions,
                parallelism);
        new EnumeratorScaleBenchmark(partitions, parallelism, true).run(rounds, barriers, churnOps);
    }

    private void run(int rounds, int barriers, int churnOps) throws Exception {
        assignAll();
        checkpoint("after assignment");
        progressRounds(rounds);
        barriers(barriers);
        churn(churnOps);
        checkpoint("after churn");
        enumerator.close();
    }

    private void assignAll() {
        long t0 = System.nanoTime();
        for (int r = 0; r < parallelism; r++) {
            enumerator.addReader(r);
        }
        enumerator.start(); // the root query answers at once
        long t1 = System.nanoTime();
        require(context.splitsAssigned() == stream.size(), "every partition assigned");
        out(
                "Assign %,d splits after the root query: %.1f ms",
                context.splitsAssigned(), ms(t1 - t0));
    }

    /** Every reader reports progress of all its partitions, as each does every interval. */
    private void progressRounds(int rounds) {
        double[] times = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            times[i] = progressRound(stream.tick(100_000));
        }
        Arrays.sort(times);
        out(
                "Progress round (%d events, one per reader, %,d partitions): median %.2f ms, max"
                        + " %.2f ms; at a 100 ms progress interval the coordinator is busy %.1f%%",
                parallelism,
                stream.size(),
                times[rounds / 2],
                times[rounds - 1],
                times[rounds / 2] / 100.0 * 100);
    }

    private double progressRound(long micros) {
        Map<Integer, Map<String, Long>> byReader = new HashMap<>();
        for (String t : stream.live()) {
            byReader.computeIfAbsent(owner(t), r -> new HashMap<>()).put(t, micros);
        }
        long t0 = System.nanoTime();
        byReader.forEach(
                (reader, progress) ->
                        enumerator.handleSourceEvent(
                                reader, new ReaderReportsEvent(List.of(), progress)));
        return ms(System.nanoTime() - t0);
    }

    /** N partitions block at one timestamp on N others; then the others reach it. */
    private void barriers(int n) throws Exception {
        require(2 * n <= stream.size(), "barriers at most half the partitions");
        long at = stream.tick(1_000);
        List<String> live = new ArrayList<>(stream.live());
        Map<Integer, List<PartitionReport>> reports = new HashMap<>();
        Map<Integer, Map<String, Long>> blockedProgress = new HashMap<>();
        Map<Integer, Map<String, Long>> sourceProgress = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String blocked = live.get(i);
            String source = live.get(n + i);
            reports.computeIfAbsent(owner(blocked), r -> new ArrayList<>())
                    .add(new BarrierReached(blocked, at, List.of(source)));
            blockedProgress
                    .computeIfAbsent(owner(blocked), r -> new HashMap<>())
                    .put(blocked, at - 1);
            sourceProgress.computeIfAbsent(owner(source), r -> new HashMap<>()).put(source, at);
        }
        long releasesBefore = context.releases();
        long t0 = System.nanoTime();
        reports.forEach(
                (reader, list) ->
                        enumerator.handleSourceEvent(
                                reader, new ReaderReportsEvent(list, blockedProgress.get(reader))));
        long t1 = System.nanoTime();
        barriersReported += n;
        require(context.releases() == releasesBefore, "no barrier released early");
        out("Register %,d barriers (%d events): %.1f ms", n, reports.size(), ms(t1 - t0));
        checkpoint("with " + n + " pending barriers");
        long t2 = System.nanoTime();
        sourceProgress.forEach(
                (reader, progress) ->
                        enumerator.handleSourceEvent(
                                reader, new ReaderReportsEvent(List.of(), progress)));
        long t3 = System.nanoTime();
        require(context.releases() - releasesBefore == n, "every barrier released");
        out(
                "Release %,d barriers (their sources' progress, %d events): %.1f ms",
                n, sourceProgress.size(), ms(t3 - t2));
        progressRound(stream.tick(1_000));
    }

    /** Random splits, merges, moves and swaps, keeping the partition count about level. */
    private void churn(int ops) throws Exception {
        int target = stream.size();
        long releasesBefore = context.releases();
        long barriersBefore = barriersReported;
        long churnNanos = 0;
        int[] counts = new int[4];
        for (int i = 0; i < ops; i++) {
            int op =
                    stream.size() < target
                            ? 0
                            : stream.size() > target ? 1 : stream.random().nextInt(4);
            counts[op]++;
            long t0 = System.nanoTime();
            switch (op) {
                case 0 -> split(stream.pick(null));
                case 1 -> merge(stream.pick(null));
                case 2 -> move(stream.pick(null));
                default -> swap(stream.pick(null));
            }
            churnNanos += System.nanoTime() - t0;
            if ((i + 1) % 100 == 0) {
                // What readers and checkpoints do meanwhile: progress lets the low watermark
                // rise, so finished partitions get pruned; checkpoints acknowledge reports.
                progressRound(stream.tick(1_000));
                checkpointQuietly();
            }
        }
        long barriers = barriersReported - barriersBefore;
        require(context.releases() - releasesBefore == barriers, "every churn barrier released");
        out(
                "Churn: %,d operations (split %d, merge %d, move %d, swap %d) with %,d barriers,"
                        + " all released: %.3f ms per operation (%.1f ms in all); %,d partitions"
                        + " live",
                ops,
                counts[0],
                counts[1],
                counts[2],
                counts[3],
                barriers,
                ms(churnNanos) / ops,
                ms(churnNanos),
                stream.size());
    }

    /** A new partition takes part of {@code a}'s keys and waits for {@code a} to move out. */
    private void split(String a) {
        long at = stream.tick(1_000);
        String b = stream.newToken();
        report(
                a,
                new Discovered(a, at, List.of(new NewPartition(b, at, List.of()))),
                new MovedOut(a, at, List.of(b)));
        stream.add(b);
        require(context.ownerOf(b) != null, "a discovered partition is assigned");
        block(b, at, a);
    }

    /** {@code a} moves all its keys into another partition and ends. */
    private void merge(String a) {
        String b = stream.pick(a);
        long at = stream.tick(1_000);
        block(b, at, a);
        report(a, new MovedOut(a, at, List.of(b)), new Finished(a, at));
        stream.remove(a);
    }

    private void move(String a) {
        String b = stream.pick(a);
        long at = stream.tick(1_000);
        block(b, at, a);
        report(a, new MovedOut(a, at, List.of(b)));
    }

    /** Two partitions exchange keys at one timestamp: move-outs are reported first. */
    private void swap(String a) {
        String b = stream.pick(a);
        long at = stream.tick(1_000);
        report(a, new MovedOut(a, at, List.of(b)), new BarrierReached(a, at, List.of(b)));
        report(b, new MovedOut(b, at, List.of(a)), new BarrierReached(b, at, List.of(a)));
        barriersReported += 2;
    }

    private void block(String blocked, long at, String source) {
        enumerator.handleSourceEvent(
                owner(blocked),
                new ReaderReportsEvent(
                        List.of(new BarrierReached(blocked, at, List.of(source))),
                        Map.of(blocked, at - 1)));
        barriersReported++;
    }

    private void report(String token, PartitionReport... reports) {
        enumerator.handleSourceEvent(
                owner(token), new ReaderReportsEvent(List.of(reports), Map.of()));
    }

    private int owner(String token) {
        Integer owner = context.ownerOf(token);
        require(owner != null, "partition " + token + " is assigned");
        return owner;
    }

    private void checkpoint(String when) throws Exception {
        long id = ++checkpointId;
        long t0 = System.nanoTime();
        ChangeStreamEnumeratorState state = enumerator.snapshotState(id);
        long t1 = System.nanoTime();
        byte[] bytes = SERIALIZER.serialize(state);
        long t2 = System.nanoTime();
        SERIALIZER.deserialize(SERIALIZER.getVersion(), bytes);
        long t3 = System.nanoTime();
        enumerator.notifyCheckpointComplete(id);
        long t4 = System.nanoTime();
        out(
                "Checkpoint %s (%,d partitions, %,d barriers, %,d pruned tokens): %,d bytes"
                        + " (%.0f per partition); snapshot %.1f ms, serialize %.1f ms, deserialize"
                        + " %.1f ms, complete (acks) %.1f ms",
                when,
                state.partitions().size(),
                state.barriers().size(),
                state.prunedEndMicros().size(),
                bytes.length,
                (double) bytes.length / Math.max(1, state.partitions().size()),
                ms(t1 - t0),
                ms(t2 - t1),
                ms(t3 - t2),
                ms(t4 - t3));
    }

    private void checkpointQuietly() throws Exception {
        long id = ++checkpointId;
        SERIALIZER.serialize(enumerator.snapshotState(id));
        enumerator.notifyCheckpointComplete(id);
    }

    private void out(String format, Object... args) {
        if (print) {
            System.out.println(String.format(Locale.ROOT, format, args));
        }
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("Expected: " + what);
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static SpannerSourceConfig config() {
        return new SpannerSourceConfig(
                "bench-project",
                "bench-instance",
                "bench-db",
                "bench_cs",
                START,
                SpannerSourceConfig.NO_END,
                Duration.ofSeconds(1),
                null,
                null,
                null,
                null,
                true,
                Duration.ofMinutes(5),
                1000,
                Duration.ofMinutes(30),
                true,
                1000,
                Duration.ofMillis(100),
                null,
                null,
                io.spannercs.flink.source.UnknownValueHandling.FAIL);
    }
}
