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
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

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
 */
public final class ChurnBenchmark {
    private ChurnBenchmark() {}

    /** A database with a history to read. */
    private record History(
            String name,
            String projectId,
            String instanceId,
            String databaseId,
            String hostPort,
            boolean legacy,
            long startMicros,
            long endMicros,
            long rowChanges,
            long checksum,
            String generations) {}

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
            boolean cpuBreakdown) {}

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
                                                + " thread every 20 ms)")));
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
                    new History(
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
                        new History(
                                "google",
                                id.getInstanceId().getProject(),
                                id.getInstanceId().getInstance(),
                                id.getDatabase(),
                                emulator.hostPort(),
                                true,
                                first,
                                last,
                                rows,
                                UNKNOWN_CHECKSUM,
                                "the partitions the plain reader counts"));
            }
        }
    }

    /** For histories written through the client: the readers must agree with each other. */
    private static final long UNKNOWN_CHECKSUM = Long.MIN_VALUE;

    private static void measure(Settings s, History h) throws Exception {
        List<String> readers = new ArrayList<>();
        readers.add("plain");
        s.parallelism().forEach(p -> readers.add("source-" + p));
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
                String reader = readers.get(i);
                long cpuBefore = processCpuNanos();
                ThreadCpuSampler sampler = s.cpuBreakdown() ? new ThreadCpuSampler() : null;
                ReadResult r;
                if (reader.equals("plain")) {
                    FollowingPlainReader.Result plain = plain(h, s.timeout());
                    partitions = plain.partitions();
                    r = plain.read();
                } else {
                    r = source(h, Integer.parseInt(reader.substring("source-".length())));
                }
                long cpu = processCpuNanos() - cpuBefore;
                if (checksum == UNKNOWN_CHECKSUM) {
                    checksum = r.checksum();
                }
                if (r.rowChanges() != h.rowChanges() || r.checksum() != checksum) {
                    throw new IllegalStateException(
                            reader
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
                                + " after %.2f s, process CPU %.1f s%n",
                        roundName,
                        reader,
                        r.perSecond(),
                        r.startNanosToFirst() / 1e9,
                        r.wallNanos() / 1e9,
                        cpu / 1e9);
                if (sampler != null) {
                    System.out.println("            CPU s: " + sampler.breakdown());
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
            for (int p : s.parallelism()) {
                try (GenerationTrace trace = new GenerationTrace()) {
                    source(h, p);
                    trace.print("source-" + p + " (traced read, not counted)", h.legacy());
                }
            }
        }
        double a = best[0].perSecond();
        System.out.printf(Locale.ROOT, "  best: a (plain) %,.0f changes/s%n", a);
        for (int i = 1; i < readers.size(); i++) {
            System.out.printf(
                    Locale.ROOT,
                    "  best: b (%s) %,.0f changes/s, b/a %.2f; median of the rounds' b/a %.2f%n",
                    readers.get(i),
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

    /** CPU time of this whole process (emulator, Flink and readers share it). */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static FollowingPlainReader.Result plain(History h, Duration timeout) throws Exception {
        try (Spanner spanner =
                SpannerOptions.newBuilder()
                        .setProjectId(h.projectId())
                        .setEmulatorHost(h.hostPort())
                        .setCredentials(NoCredentials.getInstance())
                        .setBuiltInMetricsEnabled(false)
                        .build()
                        .getService()) {
            DatabaseClient client =
                    spanner.getDatabaseClient(
                            DatabaseId.of(h.projectId(), h.instanceId(), h.databaseId()));
            return new FollowingPlainReader(client, BenchSchema.STREAM, h.legacy())
                    .read(h.startMicros(), h.endMicros(), timeout);
        }
    }

    /** A bounded job on the running cluster, timed from its submission. */
    private static ReadResult source(History h, int parallelism) throws Exception {
        String tally = "churn-" + UUID.randomUUID();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.fromSource(
                        SpannerChangeStreamSource.<ChangeEvent>builder()
                                .setProjectId(h.projectId())
                                .setInstanceId(h.instanceId())
                                .setDatabaseId(h.databaseId())
                                .setChangeStream(BenchSchema.STREAM)
                                .setEmulatorHost(h.hostPort())
                                .setStartTimestamp(FlinkJobs.instant(h.startMicros()))
                                .setEndTimestamp(FlinkJobs.instant(h.endMicros()))
                                .setDeserializer(ChangeEventDeserializer.changeEvents())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "spanner")
                .sinkTo(new CountingDiscardingSink(tally))
                .name("counting discarding sink");
        StreamGraph job = env.getStreamGraph();
        job.setJobId(new JobID());
        long t0 = System.nanoTime();
        try {
            CLUSTER.submitJob(job).get();
            JobResult result = CLUSTER.requestJobResult(job.getJobID()).get();
            if (!result.isSuccess()) {
                throw new IllegalStateException(
                        "The source job failed",
                        result.getSerializedThrowable()
                                .map(t -> t.deserializeError(ChurnBenchmark.class.getClassLoader()))
                                .orElse(null));
            }
            return Tally.remove(tally).result(System.nanoTime() - t0).from(t0);
        } finally {
            Tally.remove(tally);
        }
    }

    /** One local cluster for every job of the run: jobs are timed once Flink runs. */
    private static final MiniCluster CLUSTER = startCluster();

    private static MiniCluster startCluster() {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(RestOptions.BIND_PORT, "0"); // any free port: runs may overlap
        try {
            MiniCluster cluster =
                    new MiniCluster(
                            new MiniClusterConfiguration.Builder()
                                    .setConfiguration(conf)
                                    .setNumTaskManagers(1)
                                    .setNumSlotsPerTaskManager(2)
                                    .build());
            cluster.start();
            return cluster;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start the local Flink cluster", e);
        }
    }
}
