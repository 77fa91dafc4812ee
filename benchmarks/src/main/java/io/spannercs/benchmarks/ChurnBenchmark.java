package io.spannercs.benchmarks;

import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.emulator.testing.GoogleSpannerEmulator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Catch-up across partition churn: a history of N row changes during which the partitions split,
 * merge and move hundreds of times is read back, in the same run, by
 *
 * <ul>
 *   <li>(a) the {@link FollowingPlainReader}: the official client, one thread per partition,
 *       children started as soon as a record names them, typed events, no order kept;
 *   <li>(b) the source in a bounded local Flink job at each parallelism of {@code --parallelism},
 *       into a counting sink chained to it (per-key order, barriers and checkpoints as always).
 * </ul>
 *
 * <p>Targets: this project's emulator in MUTABLE_KEY_RANGE and in IMMUTABLE_KEY_RANGE mode (the
 * history is committed straight into the database, with a churn operation every few transactions),
 * and Google's emulator (legacy mode only; its partitions churn on their own, every 1-2 s with
 * {@code --override_change_stream_partition_token_alive_seconds 1}, while the history is written
 * through the official client for {@code --google-history}). Rates count changes from the first to
 * the last; each reader must read exactly the changes committed, each once. The source's job time
 * (submission to end) and time to its first change are printed too.
 *
 * <p>Each reader runs in a JVM of its own ({@code --reader-jvms own}, the default), as the issue
 * that set the target measured them; the emulator stays in this JVM. In one shared JVM the readers'
 * code and the emulator's compete for the JIT, which still compiled a second per read after ten.
 */
public final class ChurnBenchmark {
    private ChurnBenchmark() {}

    private record Settings(
            List<String> targets,
            long changes,
            int rowsPerTransaction,
            int generations,
            List<Integer> parallelism,
            int warmup,
            int rounds,
            Duration googleHistory,
            int googleAliveSeconds,
            Duration timeout,
            boolean trace,
            boolean cpuBreakdown,
            boolean ownJvms) {}

    public static void main(String[] args) throws Exception {
        BenchArgs a = new BenchArgs(args);
        Settings s =
                new Settings(
                        List.of(
                                a.string("targets", "mutable,legacy,google", "histories to read")
                                        .split(",")),
                        a.longValue("changes", 20_000, "row changes in the history"),
                        a.intValue("rows-per-txn", 10, "rows changed per transaction"),
                        a.intValue(
                                "generations",
                                400,
                                "churn operations in the history (this project's emulator)"),
                        a.intList("parallelism", "1,2", "parallelisms of the source to measure"),
                        a.intValue(
                                "warmup",
                                1,
                                "rounds run first that do not count (the JIT compiles the"
                                        + " source's wider code path later than the plain"
                                        + " reader's)"),
                        a.intValue("rounds", 2, "counted reads per reader"),
                        a.duration(
                                "google-history",
                                "5m",
                                "how long the history on Google's emulator" + " is written for"),
                        a.intValue(
                                "google-alive-seconds",
                                1,
                                "Google's emulator: partition tokens live this to twice this long"),
                        a.duration("timeout", "10m", "longest one read may take"),
                        Boolean.parseBoolean(
                                a.string(
                                        "trace",
                                        "true",
                                        "after the rounds, one more source read per parallelism"
                                                + " with a per-generation breakdown")),
                        Boolean.parseBoolean(
                                a.string(
                                        "cpu-breakdown",
                                        "false",
                                        "print each read's CPU by thread group (samples every"
                                                + " thread every 20 ms)")),
                        switch (a.string(
                                "reader-jvms",
                                "own",
                                "own: each reader runs in a JVM of its own (the emulator stays"
                                        + " in this one); shared: every reader runs in this JVM")) {
                            case "own" -> true;
                            case "shared" -> false;
                            default ->
                                    throw new IllegalArgumentException(
                                            "--reader-jvms: own or shared");
                        });
        if (!a.finish("ChurnBenchmark")) {
            return;
        }
        BenchReport.machine(System.out);
        for (String target : s.targets()) {
            switch (target.trim()) {
                case "mutable" -> ours(s, false);
                case "legacy" -> ours(s, true);
                case "google" -> google(s);
                default ->
                        throw new IllegalArgumentException(
                                "--targets: unknown target "
                                        + target
                                        + "; known: mutable, legacy, google");
            }
        }
        System.exit(0); // Flink and gRPC leave non-daemon threads behind
    }

    private static void ours(Settings s, boolean legacy) throws Exception {
        String ddl =
                "CREATE TABLE Events (Id INT64 NOT NULL, Name STRING(MAX), Amount FLOAT64,"
                        + " Active BOOL, UpdatedAt TIMESTAMP) PRIMARY KEY (Id);\n"
                        + "CREATE CHANGE STREAM bench_cs FOR ALL OPTIONS (partition_mode = '"
                        + (legacy ? "IMMUTABLE_KEY_RANGE" : "MUTABLE_KEY_RANGE")
                        + "', value_capture_type = 'NEW_ROW');\n";
        try (SpannerEmulator emulator =
                SpannerEmulator.builder().ddl(ddl).initialPartitions(2).maxPartitions(8).start()) {
            ChangeStream cs = emulator.database().changeStream(BenchSchema.STREAM);
            long transactions = (s.changes() + s.rowsPerTransaction() - 1) / s.rowsPerTransaction();
            long churnEvery = Math.max(1, transactions / s.generations());
            long t0 = System.nanoTime();
            long first = Long.MIN_VALUE;
            long last = 0;
            long rows = 0;
            long checksum = 0;
            int churns = 0;
            for (long txn = 0; rows < s.changes(); txn++) {
                int n = (int) Math.min(s.rowsPerTransaction(), s.changes() - rows);
                List<com.google.spanner.v1.Mutation> mutations = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    long id = rows + i;
                    mutations.add(BenchSchema.upsert(id % 5_000, id / 5_000));
                }
                CommittedTransaction c = emulator.database().commit(mutations, "bench");
                for (RowChange change : c.changes()) {
                    checksum +=
                            Checksum.of(
                                    c.serverTransactionId(),
                                    Long.parseLong(change.key().get(0).getStringValue()));
                }
                first = first == Long.MIN_VALUE ? c.commitMicros() : first;
                last = c.commitMicros();
                rows += n;
                if (txn % churnEvery == churnEvery - 1 && churns < s.generations()) {
                    if (cs.churnRandomly() != null) {
                        churns++;
                    }
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "%n== This project's emulator, %s: %,d row changes in transactions of %d,"
                            + " %d churn operations (split, merge, move%s) among them, written in"
                            + " %.1f s%n",
                    legacy ? "IMMUTABLE_KEY_RANGE" : "MUTABLE_KEY_RANGE",
                    rows,
                    s.rowsPerTransaction(),
                    churns,
                    legacy ? "" : ", swap",
                    (System.nanoTime() - t0) / 1e9);
            measure(
                    s,
                    new ChurnHistory(
                            legacy ? "ours-legacy" : "ours-mutable",
                            emulator.projectId(),
                            emulator.instanceId(),
                            emulator.databaseId(),
                            emulator.hostPort(),
                            legacy,
                            first,
                            last,
                            rows,
                            checksum,
                            churns + " churn operations"));
        }
    }

    private static void google(Settings s) throws Exception {
        Optional<Path> gateway = GoogleSpannerEmulator.locate();
        if (gateway.isEmpty()) {
            System.out.println(
                    "\n== Google's emulator: SKIPPED, gateway_main is not installed (set"
                            + " GOOGLE_SPANNER_EMULATOR or install the gcloud component"
                            + " cloud-spanner-emulator)");
            return;
        }
        try (GoogleSpannerEmulator emulator =
                GoogleSpannerEmulator.start(
                        gateway.get(),
                        List.of(
                                "--override_change_stream_partition_token_alive_seconds",
                                Integer.toString(s.googleAliveSeconds())))) {
            DatabaseId id = DatabaseId.of("bench-project", "bench-instance", "bench-db");
            try (Spanner spanner =
                    SpannerOptions.newBuilder()
                            .setProjectId(id.getInstanceId().getProject())
                            .setEmulatorHost(emulator.hostPort())
                            .setCredentials(NoCredentials.getInstance())
                            .setBuiltInMetricsEnabled(false)
                            .build()
                            .getService()) {
                emulator.createDatabase(
                        spanner,
                        id,
                        List.of(
                                "CREATE TABLE Events (Id INT64 NOT NULL, Name STRING(MAX), Amount"
                                        + " FLOAT64, Active BOOL, UpdatedAt TIMESTAMP) PRIMARY KEY"
                                        + " (Id)",
                                "CREATE CHANGE STREAM bench_cs FOR ALL OPTIONS"
                                        + " (value_capture_type = 'NEW_ROW')"));
                DatabaseClient client = spanner.getDatabaseClient(id);
                long transactions =
                        (s.changes() + s.rowsPerTransaction() - 1) / s.rowsPerTransaction();
                long pauseNanos = s.googleHistory().toNanos() / transactions;
                long t0 = System.nanoTime();
                long first = Long.MIN_VALUE;
                long last = 0;
                long rows = 0;
                for (long txn = 0; rows < s.changes(); txn++) {
                    int n = (int) Math.min(s.rowsPerTransaction(), s.changes() - rows);
                    List<Mutation> mutations = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        long row = rows + i;
                        mutations.add(
                                Mutation.newInsertOrUpdateBuilder(BenchSchema.TABLE)
                                        .set("Id")
                                        .to(row % 5_000)
                                        .set("Name")
                                        .to("customer-" + row)
                                        .set("Amount")
                                        .to(row / 100.0)
                                        .set("Active")
                                        .to(row % 2 == 0)
                                        .set("UpdatedAt")
                                        .to(Timestamp.ofTimeMicroseconds(row))
                                        .build());
                    }
                    Timestamp commit = client.write(mutations);
                    long micros = commit.getSeconds() * 1_000_000L + commit.getNanos() / 1000;
                    first = first == Long.MIN_VALUE ? micros : first;
                    last = micros;
                    rows += n;
                    long wait = t0 + (txn + 1) * pauseNanos - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                }
                System.out.printf(
                        Locale.ROOT,
                        "%n== Google's emulator (gateway_main, legacy stream, partition tokens"
                                + " alive %d-%d s): %,d row changes in transactions of %d,"
                                + " written through the official client over %.0f s%n",
                        s.googleAliveSeconds(),
                        2 * s.googleAliveSeconds(),
                        rows,
                        s.rowsPerTransaction(),
                        (System.nanoTime() - t0) / 1e9);
                measure(
                        s,
                        new ChurnHistory(
                                "google",
                                id.getInstanceId().getProject(),
                                id.getInstanceId().getInstance(),
                                id.getDatabase(),
                                emulator.hostPort(),
                                true,
                                first,
                                last,
                                rows,
                                ChurnHistory.UNKNOWN_CHECKSUM,
                                "the partitions the plain reader counts"));
            }
        }
    }

    private static void measure(Settings s, ChurnHistory h) throws Exception {
        List<String> names = new ArrayList<>();
        names.add("plain");
        s.parallelism().forEach(p -> names.add("source-" + p));
        List<ChurnReader> readers = new ArrayList<>();
        try {
            for (String name : names) {
                readers.add(
                        s.ownJvms()
                                ? new ChurnReaderJvm(name, h, s.timeout())
                                : ChurnReader.inProcess(name, h, s.timeout()));
            }
            measure(s, h, names, readers);
        } finally {
            for (ChurnReader reader : readers) {
                reader.close();
            }
        }
    }

    private static void measure(
            Settings s, ChurnHistory h, List<String> names, List<ChurnReader> readers)
            throws Exception {
        ReadResult[] best = new ReadResult[readers.size()];
        List<List<Double>> ratios = new ArrayList<>();
        readers.forEach(r -> ratios.add(new ArrayList<>()));
        int partitions = -1;
        long checksum = h.checksum();
        for (int round = 0; round < s.warmup() + s.rounds(); round++) {
            boolean counted = round >= s.warmup();
            String roundName =
                    counted ? "round " + (round - s.warmup() + 1) : "warm-up " + (round + 1);
            double[] rates = new double[readers.size()];
            for (int k = 0; k < readers.size(); k++) {
                int i = (k + round) % readers.size();
                String name = names.get(i);
                long hostCpuBefore = ChurnReads.processCpuNanos();
                ChurnReader.Outcome o = readers.get(i).read(s.cpuBreakdown());
                long hostCpu = ChurnReads.processCpuNanos() - hostCpuBefore;
                ReadResult r = o.read();
                partitions = o.partitions() >= 0 ? o.partitions() : partitions;
                if (checksum == ChurnHistory.UNKNOWN_CHECKSUM) {
                    checksum = r.checksum();
                }
                if (r.rowChanges() != h.rowChanges() || r.checksum() != checksum) {
                    throw new IllegalStateException(
                            name
                                    + " read "
                                    + r.rowChanges()
                                    + " changes (checksum "
                                    + Long.toHexString(r.checksum())
                                    + "), not the "
                                    + h.rowChanges()
                                    + " committed (checksum "
                                    + Long.toHexString(checksum)
                                    + ")");
                }
                System.out.printf(
                        Locale.ROOT,
                        "  %-9s %-9s %,8.0f changes/s, first change after %.2f s, done"
                                + " after %.2f s, %s%n",
                        roundName,
                        name,
                        r.perSecond(),
                        r.startNanosToFirst() / 1e9,
                        r.wallNanos() / 1e9,
                        s.ownJvms()
                                ? String.format(
                                        Locale.ROOT,
                                        "reader's JVM CPU %.1f s, benchmark JVM (emulator) %.1f s",
                                        o.cpuNanos() / 1e9,
                                        hostCpu / 1e9)
                                : String.format(
                                        Locale.ROOT, "process CPU %.1f s", o.cpuNanos() / 1e9));
                if (!o.cpuBreakdown().isEmpty()) {
                    System.out.println("            CPU s: " + o.cpuBreakdown());
                }
                rates[i] = r.perSecond();
                if (counted && (best[i] == null || r.perSecond() > best[i].perSecond())) {
                    best[i] = r;
                }
            }
            if (counted) {
                for (int i = 1; i < readers.size(); i++) {
                    ratios.get(i).add(rates[i] / rates[0]);
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "  %s: %d partitions read by the plain reader besides the root query (%s)%n",
                h.name(),
                partitions,
                h.generations());
        if (s.trace()) {
            for (int i = 1; i < readers.size(); i++) {
                readers.get(i).traceRead();
            }
        }
        double a = best[0].perSecond();
        System.out.printf(Locale.ROOT, "  best: a (plain) %,.0f changes/s%n", a);
        for (int i = 1; i < readers.size(); i++) {
            System.out.printf(
                    Locale.ROOT,
                    "  best: b (%s) %,.0f changes/s, b/a %.2f; median of the rounds' b/a %.2f%n",
                    names.get(i),
                    best[i].perSecond(),
                    best[i].perSecond() / a,
                    median(ratios.get(i)));
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
