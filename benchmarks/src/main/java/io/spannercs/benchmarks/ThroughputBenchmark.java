package io.spannercs.benchmarks;

import io.spannercs.emulator.SpannerEmulator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Throughput of the source against the practical limit. For each partition count M, an emulator
 * with M partitions (no churn) is preloaded with N row changes. Then, in the same run, each reader
 * reads all of them, and the benchmark prints their rates and the ratios:
 *
 * <ul>
 *   <li>(a) the {@link PlainClientReader} with blocking result sets: the practical limit;
 *   <li>(a') the same with the client's async result sets, the API the source uses;
 *   <li>(b) the source in a bounded local Flink job ({@link FlinkJobReader}).
 * </ul>
 *
 * <p>Every reader must read exactly the N preloaded changes, each once, or the benchmark fails.
 */
public final class ThroughputBenchmark {
    private ThroughputBenchmark() {}

    /** The readers compared. */
    enum Reader {
        BLOCKING("a: plain /s"),
        ASYNC("a': async /s"),
        SOURCE("b: source /s");

        final String column;

        Reader(String column) {
            this.column = column;
        }
    }

    /** Settings from the command line. */
    private record Settings(
            long changes,
            List<Integer> partitions,
            List<Reader> readers,
            int parallelism,
            int rowsPerTransaction,
            int plainThreads,
            int plainBufferRows,
            int rounds,
            long warmupChanges,
            boolean objectReuse,
            String svg,
            Duration timeout) {}

    public static void main(String[] args) throws Exception {
        BenchArgs a = new BenchArgs(args);
        List<Reader> readers = new ArrayList<>();
        for (String r :
                a.string("readers", "blocking,async,source", "readers to run, for profiling")
                        .split(",")) {
            readers.add(Reader.valueOf(r.trim().toUpperCase(Locale.ROOT)));
        }
        Settings s =
                new Settings(
                        a.longValue(
                                "changes", 100_000, "row changes preloaded per partition count"),
                        a.intList("partitions", "1,16,256", "partition counts M to measure"),
                        readers,
                        a.intValue("parallelism", 2, "parallelism of the Flink job"),
                        a.intValue("rows-per-txn", 1, "rows changed per preloaded transaction"),
                        a.intValue("plain-threads", 2, "threads of the plain readers"),
                        a.intValue(
                                "plain-buffer-rows", 0, "rows an async query buffers; 0: default"),
                        a.intValue("rounds", 2, "reads per reader and M; the best one counts"),
                        a.longValue("warmup-changes", 20_000, "changes read once before measuring"),
                        Boolean.parseBoolean(
                                a.string("object-reuse", "false", "Flink's pipeline.object-reuse")),
                        a.string("svg", "", "write the throughput plot to this SVG file"),
                        a.duration("timeout", "5m", "longest one read may take"));
        if (!a.finish("ThroughputBenchmark")) {
            return;
        }
        BenchReport.machine(System.out);
        System.out.printf(
                Locale.ROOT,
                "N = %,d row changes per M, %d row(s) per transaction, Flink parallelism %d,"
                        + " object reuse %s, plain readers on %d threads, best of %d rounds%n%n",
                s.changes(),
                s.rowsPerTransaction(),
                s.parallelism(),
                s.objectReuse(),
                s.plainThreads(),
                s.rounds());
        if (s.warmupChanges() > 0) {
            System.out.printf(
                    Locale.ROOT, "Warm-up (JIT): %,d changes on M=16%n", s.warmupChanges());
            measure(s, 16, s.warmupChanges(), 1);
            System.out.println();
        }
        List<ThroughputChart.Point> points = new ArrayList<>();
        for (int m : s.partitions()) {
            points.add(measure(s, m, s.changes(), s.rounds()));
        }
        System.out.println();
        System.out.println(ThroughputChart.ascii(points));
        if (!s.svg().isEmpty()) {
            Path out = Path.of(s.svg());
            Files.writeString(
                    out,
                    ThroughputChart.svg(
                            points,
                            String.format(
                                    Locale.ROOT,
                                    "Row changes/s against partitions (N = %,d, %d cores)",
                                    s.changes(),
                                    Runtime.getRuntime().availableProcessors())),
                    StandardCharsets.UTF_8);
            System.out.println("Wrote " + out.toAbsolutePath());
        }
        System.exit(0); // Flink and gRPC leave non-daemon threads behind
    }

    private static ThroughputChart.Point measure(Settings s, int m, long changes, int rounds)
            throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(BenchSchema.DDL)
                        .initialPartitions(m)
                        .maxPartitions(m)
                        .start()) {
            Preloader.Preloaded pre =
                    Preloader.preload(
                            emulator.database(), changes, s.rowsPerTransaction(), changes);
            Map<Reader, ReadResult> best = new EnumMap<>(Reader.class);
            for (int r = 0; r < rounds; r++) {
                // Rotated, so that no reader always runs first (coldest) or last.
                for (int i = 0; i < s.readers().size(); i++) {
                    Reader reader = s.readers().get((i + r) % s.readers().size());
                    ReadResult result = read(s, reader, emulator, pre);
                    result.verify(reader.name(), pre);
                    best.merge(reader, result, (x, y) -> y.perSecond() > x.perSecond() ? y : x);
                }
            }
            double a = rate(best, Reader.BLOCKING);
            double async = rate(best, Reader.ASYNC);
            double b = rate(best, Reader.SOURCE);
            System.out.printf(
                    Locale.ROOT,
                    "M=%-4d N=%,d (preload %.1f s): a %,.0f/s  a' %,.0f/s  b %,.0f/s"
                            + "  b/a %.2f  b/a' %.2f  (source job %.1f s)%n",
                    m,
                    pre.rowChanges(),
                    pre.elapsed().toMillis() / 1000.0,
                    a,
                    async,
                    b,
                    b / a,
                    b / async,
                    best.getOrDefault(Reader.SOURCE, ReadResult.NONE).wallNanos() / 1e9);
            return new ThroughputChart.Point(m, a, async, b);
        }
    }

    private static double rate(Map<Reader, ReadResult> best, Reader reader) {
        return best.getOrDefault(reader, ReadResult.NONE).perSecond();
    }

    private static ReadResult read(
            Settings s, Reader reader, SpannerEmulator emulator, Preloader.Preloaded pre)
            throws Exception {
        if (reader == Reader.SOURCE) {
            return new FlinkJobReader(emulator, s.parallelism(), s.objectReuse())
                    .read(pre.startMicros(), pre.endMicros());
        }
        PlainClientReader.Mode mode =
                reader == Reader.ASYNC
                        ? PlainClientReader.Mode.ASYNC
                        : PlainClientReader.Mode.BLOCKING;
        try (PlainClientReader plain =
                new PlainClientReader(
                        emulator,
                        BenchSchema.STREAM,
                        s.plainThreads(),
                        mode,
                        s.plainBufferRows(),
                        null)) {
            return plain.read(pre.startMicros(), pre.endMicros(), s.timeout());
        }
    }
}
