package io.spannercs.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.testcluster.Jcmd;
import io.spannercs.testcluster.StandaloneFlinkCluster;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A session cluster that runs job after job, the way a SQL gateway or a SQL client session uses
 * one: every job loads the SQL jar with {@code ADD JAR}, so the JobManager (enumerator) and the
 * TaskManager (readers) load the connector and its Spanner client in a new user-code class loader
 * per job. With Flink's default metaspace (256 MB), and the default leaked-class-loader check on:
 *
 * <ul>
 *   <li>every bounded job finishes with the rows written;
 *   <li>a last, unbounded job counts the rows in 1-second TUMBLE windows over the commit time with
 *       {@code WATERMARK ... AS SOURCE_WATERMARK()}: nothing is written while the jobs run, so its
 *       windows close on the change stream's heartbeats alone; it is cancelled once they have
 *       counted every row;
 *   <li>no client thread (gRPC, grpc-gcp, the Spanner client's maintainers, the connector's query
 *       threads) is alive on the cluster once a job has ended;
 *   <li>a job whose start is older than the stream's retention fails fast, with a message that
 *       names the option and no relocated class name;
 *   <li>after all jobs, a full GC leaves no job's class loader alive, and neither JVM logged an
 *       access to a closed class loader, a {@code NoClassDefFoundError} or an {@code
 *       OutOfMemoryError};
 *   <li>the driver (the SQL client's JVM, where planning reads the schema) has no client thread
 *       left either;
 *   <li>the client's java.util.logging output reaches neither the JVMs' stdout nor the SQL client's
 *       console, and Flink's logs (at INFO) do not show its banner.
 * </ul>
 *
 * <p>The same holds with the SQL jar in the cluster's lib/ instead (fewer jobs): the connector is
 * loaded once per JVM, and the clients of all jobs share its class loader.
 *
 * <p>Run by two failsafe tests (they need the SQL jar), one per way the jar comes, so that the two
 * clusters run in separate test JVMs at once: {@link SqlJarSessionClusterIT} ({@code ADD JAR}, its
 * JVMs log to {@code target/session-cluster-it}) and {@link SqlJarInLibSessionClusterIT} ({@code
 * lib/}, {@code target/session-cluster-it-lib}); each driver.log gives per job the time from the
 * query's submission to its first row ({@code FIRST}, see docs/benchmarks.md).
 */
abstract class SessionClusterJobs {
    private static final Path JAR = Paths.get("target", "flink-sql-connector-spanner-cs.jar");

    /**
     * Jobs that finish with {@code ADD JAR}: 6 in {@code mvn verify}; {@code
     * -DsessionClusterIT.jobs=N} (at least 4) for more or fewer. 6 are enough because a leak shows
     * after one job: after every job no client thread may be left on the cluster, and after the
     * last, a full GC must leave no job's class loader alive in either JVM, so a loader (or a
     * thread) that outlives its job fails the test whatever the count. Many more jobs (say 40) only
     * add what a leak would do in the end, metaspace exhausted ({@code OutOfMemoryError:
     * Metaspace}, which the logs are checked for): a long run for that, not for every build.
     */
    static final int ADD_JAR_JOBS = Integer.getInteger("sessionClusterIT.jobs", 6);

    /**
     * How long one job may take from its start (the driver's {@code JOB <i> START}) to the next
     * job's: its statements, its result and the check for client threads after it. Bounded jobs
     * took 20-36 s each at a load of 15-28 on 2 cores; the whole run's bound follows from the
     * number of jobs ({@link #runBound}), so more jobs never make a loaded run fail.
     */
    static final Duration PER_JOB = Duration.ofMinutes(3);

    /** Jobs that finish with the SQL jar in lib/: the connector is loaded once per JVM there. */
    static final int LIB_JOBS = Math.min(ADD_JAR_JOBS, 6);

    private static final int ROWS = 5;

    // Per test: where the JVMs log, how the jar comes, which jobs finish and which must fail.
    private Path home;
    private boolean jarInLib;
    private int boundedJobs;

    /** Jobs (by index) that start before the change stream existed, and so must fail. */
    private List<Integer> failingJobs;

    /**
     * What a whole run may take with {@code boundedJobs}: per job of the driver (with the failing
     * and the windowed ones, and its own start) {@link #PER_JOB}, plus the emulator, the cluster
     * and the checks after the jobs. The per-job bound fails first, naming the job.
     */
    static Duration runBound(int boundedJobs) {
        return Duration.ofMinutes(5).plus(PER_JOB.multipliedBy(boundedJobs + 4));
    }

    /** Runs the jobs within {@link #runBound}: see the class's description for what must hold. */
    void run(Path home, boolean jarInLib, int boundedJobs) {
        assertTimeoutPreemptively(
                runBound(boundedJobs),
                () -> runJobs(home, jarInLib, boundedJobs),
                () -> boundedJobs + " bounded jobs on one session cluster; see " + home);
    }

    private void runJobs(Path home, boolean jarInLib, int boundedJobs) throws Exception {
        this.home = home;
        this.jarInLib = jarInLib;
        this.boundedJobs = boundedJobs;
        this.failingJobs = List.of(2, boundedJobs / 2 + 3);
        assertThat(JAR).as("the SQL jar; run `mvn verify`").exists();
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(
                                        "CREATE TABLE Items (Id INT64 NOT NULL, Name STRING(MAX))"
                                                + " PRIMARY KEY (Id);\n"
                                                + "CREATE CHANGE STREAM items_cs FOR ALL OPTIONS"
                                                + " (value_capture_type ="
                                                + " 'NEW_ROW_AND_OLD_VALUES');\n")
                                .initialPartitions(2)
                                .start();
                StandaloneFlinkCluster cluster =
                        StandaloneFlinkCluster.startJobManager(
                                home,
                                List.of(
                                        "taskmanager.numberOfTaskSlots: 2",
                                        // Flink keeps the classes it compiles for SQL operators
                                        // in a cache of soft references (FLINK-15239), which a
                                        // full GC clears only under memory pressure: clear them
                                        // at every GC, so a loader still alive is a strong leak.
                                        "env.java.opts.all: -XX:SoftRefLRUPolicyMSPerMB=0"),
                                jarInLib ? List.of(JAR) : List.of())) {
            Instant start = Instant.now();
            ItemRows.write(emulator, ROWS);
            // Every row is committed when write returns: the bounded jobs end here, a time that
            // has passed before the first job starts.
            Instant end = Instant.now();

            Process taskManager = cluster.startTaskManager();
            cluster.awaitFreeSlots(2);

            Path jobs = home.resolve("jobs.sql");
            Files.writeString(jobs, jobs(emulator, start, end), StandardCharsets.UTF_8);
            String output = runDriver(cluster, jobs);
            Map<Integer, String> results = results(output);
            String context = "driver output in " + home.resolve("driver.log").toAbsolutePath();

            assertThat(results)
                    .as(context)
                    .hasSize(boundedJobs + failingJobs.size() + (jarInLib ? 0 : 1));
            // Failing fast: no longer than the slowest job that read to its end, and at most 30 s
            // where those were quicker. A fixed 30 s alone failed under a load where bounded
            // jobs took 40 s.
            long failLimit = Math.max(30_000, slowestBoundedJobMillis(results));
            for (Map.Entry<Integer, String> r : results.entrySet()) {
                if (failingJobs.contains(r.getKey())) {
                    assertFailedClearly(r.getKey(), r.getValue(), failLimit);
                } else if (r.getKey() == windowedJob()) {
                    // Nothing is written once the jobs run: the windows closed on heartbeats.
                    assertThat(r.getValue())
                            .as(
                                    "windowed job %d (rows counted by its windows); %s",
                                    r.getKey(), context)
                            .startsWith("ROWS " + ROWS + " ");
                } else {
                    assertThat(r.getValue())
                            .as("job %d; %s", r.getKey(), context)
                            .startsWith("ROWS " + ROWS + " ");
                }
            }
            assertThat(leftovers(output))
                    .as("client threads alive on the cluster after each job; %s", context)
                    .allSatisfy(
                            (job, threads) -> assertThat(threads).as("job " + job).isEqualTo("[]"));
            assertThat(output).as(context).contains("DRIVER CLIENT THREADS []");

            assertThat(cluster.jobManager().isAlive()).as("JobManager alive").isTrue();
            assertThat(taskManager.isAlive()).as("TaskManager alive").isTrue();
            for (Process p : List.of(cluster.jobManager(), taskManager)) {
                assertThat(userClassLoadersAfterFullGc(p))
                        .as("user-code class loaders alive after full GCs in JVM %d", p.pid())
                        .isZero();
            }
            assertThat(logs(cluster.logDir(), ""))
                    .doesNotContain("Trying to access closed classloader")
                    .doesNotContain("NoClassDefFoundError: io/spannercs")
                    .doesNotContain("OutOfMemoryError");
            // The client's java.util.logging output goes to Flink's log files, at DEBUG: not to
            // the JVMs' stdout, nor to the SQL client's console.
            assertThat(logs(cluster.logDir(), ".out")).doesNotContain("Spanner options");
            assertThat(logs(cluster.logDir(), ".log")).doesNotContain("Spanner options");
            assertThat(output).doesNotContain("Spanner options");
        }
    }

    /** The longest MILLIS of a job that finished with rows (the windowed job left out). */
    private long slowestBoundedJobMillis(Map<Integer, String> results) {
        long slowest = 0;
        for (Map.Entry<Integer, String> r : results.entrySet()) {
            if (r.getKey() != windowedJob() && r.getValue().startsWith("ROWS ")) {
                slowest = Math.max(slowest, Long.parseLong(r.getValue().split("\\s+")[3]));
            }
        }
        return slowest;
    }

    private static void assertFailedClearly(int job, String result, long limitMillis) {
        assertThat(result).as("job %d must fail", job).startsWith("FAILED ");
        // What a SQL client prints: the exception chain, without the stack frames.
        String messages =
                result.lines()
                        .filter(
                                l ->
                                        !l.startsWith("\tat ")
                                                && !l.matches("\\s*\\.\\.\\. \\d+ more"))
                        .collect(Collectors.joining("\n"));
        assertThat(messages)
                .contains("Specified start_timestamp is too far in the past")
                .contains("'scan.startup.timestamp'")
                .doesNotContain("io.spannercs.shaded");
        long millis = Long.parseLong(result.split("\\s+")[2]);
        assertThat(millis).as("time until job %d failed", job).isLessThanOrEqualTo(limitMillis);
    }

    /**
     * Per job: ADD JAR (unless the jar is in lib/), CREATE TABLE and the query; the failing ones
     * start an hour ago.
     */
    private String jobs(SpannerEmulator emulator, Instant start, Instant end) {
        List<String> blocks = new ArrayList<>();
        for (int i = 0; i < boundedJobs + failingJobs.size(); i++) {
            Instant from = failingJobs.contains(i) ? start.minus(Duration.ofHours(1)) : start;
            blocks.add(
                    String.join(
                            "\n",
                            jarInLib ? "" : "ADD JAR '" + JAR.toAbsolutePath() + "';",
                            "CREATE TABLE items (Id BIGINT, Name STRING) WITH (",
                            itemsOptions(emulator, from),
                            "  'scan.end.timestamp' = '" + end + "');",
                            "SELECT Id, Name FROM items"));
        }
        if (!jarInLib) {
            blocks.add(windowedJob(emulator, start));
        }
        return String.join("\n---\n", blocks) + "\n";
    }

    /** The index of the windowed job, after the others; -1 where there is none. */
    private int windowedJob() {
        return jarInLib ? -1 : boundedJobs + failingJobs.size();
    }

    /**
     * An unbounded windowed query over the rows written before the jobs started, with the source's
     * watermark: its 1-second windows can only close on the change stream's heartbeats. The driver
     * reads until the windows have counted every row, then cancels it.
     */
    private static String windowedJob(SpannerEmulator emulator, Instant start) {
        return String.join(
                "\n",
                "-- until total " + ROWS,
                "ADD JAR '" + JAR.toAbsolutePath() + "';",
                "CREATE TABLE items (Id BIGINT, Name STRING,",
                "  commit_ts TIMESTAMP_LTZ(6) METADATA FROM 'commit_timestamp' VIRTUAL,",
                "  rt AS CAST(commit_ts AS TIMESTAMP_LTZ(3)),",
                "  WATERMARK FOR rt AS SOURCE_WATERMARK()) WITH (",
                itemsOptions(emulator, start),
                "  'heartbeat.interval' = '500ms');",
                "SELECT COUNT(*) AS n FROM TABLE(TUMBLE(TABLE items, DESCRIPTOR(rt),"
                        + " INTERVAL '1' SECOND)) GROUP BY window_start, window_end");
    }

    /** The options every job's {@code items} table shares, each line ending with a comma. */
    private static String itemsOptions(SpannerEmulator emulator, Instant from) {
        return String.join(
                "\n",
                "  'connector' = 'spanner-cdc',",
                "  'project' = '" + emulator.projectId() + "',",
                "  'instance' = '" + emulator.instanceId() + "',",
                "  'database' = '" + emulator.databaseId() + "',",
                "  'change-stream' = 'items_cs', 'table' = 'Items',",
                "  'emulator-host' = '" + emulator.hostPort() + "',",
                "  'scan.startup.mode' = 'timestamp',",
                "  'scan.startup.timestamp' = '" + from + "',");
    }

    private String runDriver(StandaloneFlinkCluster cluster, Path jobs) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(driverClasspath());
        command.add(SqlSessionDriver.class.getName());
        command.add(cluster.restUrl().substring(cluster.restUrl().lastIndexOf(':') + 1));
        command.add(jobs.toAbsolutePath().toString());
        Path log = home.resolve("driver.log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("SPANNER_DISABLE_BUILTIN_METRICS", "true");
        Process p = pb.redirectOutput(log.toFile()).start();
        try {
            awaitDriver(p, log);
        } finally {
            p.destroyForcibly();
        }
        return Files.readString(log);
    }

    private static final Pattern JOB_START = Pattern.compile("(?m)^JOB (\\d+) START$");

    /**
     * Waits until the driver has exited, each of its jobs within {@link #PER_JOB} of its start: a
     * bound per job rather than one for all of them, so a loaded machine that makes every job slow
     * cannot fail a run whose jobs all end, and a job that stalls is named.
     */
    private void awaitDriver(Process p, Path log) throws Exception {
        int jobs = boundedJobs + failingJobs.size() + (jarInLib ? 0 : 1);
        int current = -1; // the job the driver last started; -1 while the driver starts
        long since = System.nanoTime();
        while (!p.waitFor(200, TimeUnit.MILLISECONDS)) {
            int started = lastStartedJob(Files.readString(log));
            if (started != current) {
                current = started;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > PER_JOB.toNanos()) {
                String what =
                        current < 0
                                ? "the driver's start (before job 0)"
                                : "job " + current + " of " + jobs + " (0-based)";
                throw new AssertionError(
                        what
                                + " did not end within "
                                + PER_JOB.toSeconds()
                                + " s of its start (its result and the check for client"
                                + " threads after it); driver output in "
                                + log.toAbsolutePath());
            }
        }
        assertThat(p.exitValue())
                .as("driver exit code; output in %s", log.toAbsolutePath())
                .isZero();
    }

    /** The index of the last {@code JOB <i> START} in the driver's output; -1 if none. */
    private static int lastStartedJob(String output) {
        int last = -1;
        Matcher m = JOB_START.matcher(output);
        while (m.find()) {
            last = Integer.parseInt(m.group(1));
        }
        return last;
    }

    /** Per job index: what follows {@code JOB <i> } on its result line, with a failure's trace. */
    private static Map<Integer, String> results(String output) {
        Map<Integer, String> out = new TreeMap<>();
        Matcher m =
                Pattern.compile(
                                "(?ms)^JOB (\\d+) ((?:ROWS \\d+ MILLIS \\d+ FIRST -?\\d+)|(?:FAILED MILLIS \\d+.*?END OF TRACE))$")
                        .matcher(output);
        while (m.find()) {
            out.put(Integer.parseInt(m.group(1)), m.group(2));
        }
        return out;
    }

    private static Map<Integer, String> leftovers(String output) {
        Map<Integer, String> out = new TreeMap<>();
        Matcher m = Pattern.compile("(?m)^JOB (\\d+) LEFTOVER (.*)$").matcher(output);
        while (m.find()) {
            out.put(Integer.parseInt(m.group(1)), m.group(2));
        }
        return out;
    }

    /**
     * The number of Flink user-code class loaders still alive after full GCs ({@code jcmd GC.run},
     * repeated for up to 60 s while any is alive: a loader whose last references are cleaned up by
     * reference processing, e.g. a cleaner, goes only at a later GC, and under load the TaskManager
     * lets go of the last job's loader seconds after the job ended; a CI run at load 25 saw 2 alive
     * after 5 s); what {@code jcmd} said last is kept in {@code diagnostics-<pid>.txt}, and a heap
     * dump in {@code leak-<pid>.hprof} and the threads in {@code threads-<pid>.txt} if any is
     * alive.
     */
    private long userClassLoadersAfterFullGc(Process p) throws Exception {
        String stats = Jcmd.classLoaderStatsAfterFullGcs(p, Duration.ofSeconds(60));
        String histogram = Jcmd.run(p, "GC.class_histogram");
        Files.writeString(
                home.resolve("diagnostics-" + p.pid() + ".txt"),
                stats
                        + "\n"
                        + histogram
                                .lines()
                                .filter(l -> l.contains("spannercs") || l.contains("com.google"))
                                .collect(Collectors.joining("\n")),
                StandardCharsets.UTF_8);
        long alive = Jcmd.userCodeClassLoaders(stats);
        if (alive > 0) {
            // What keeps it: open with any heap analyser, path to GC roots of
            // ChildFirstClassLoader.
            Jcmd.run(
                    p,
                    "GC.heap_dump " + home.resolve("leak-" + p.pid() + ".hprof").toAbsolutePath());
            // A thread of the job's that did not end keeps its loader: its stack says where.
            Files.writeString(
                    home.resolve("threads-" + p.pid() + ".txt"),
                    Jcmd.run(p, "Thread.print"),
                    StandardCharsets.UTF_8);
        }
        return alive;
    }

    private static String logs(Path dir, String suffix) throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(suffix)).sorted().toList()) {
                all.append(Files.readString(f));
            }
        }
        return all.toString();
    }

    /**
     * Flink's jars and the driver's class folder: what a SQL client starts with. The connector
     * comes only from the SQL jar: through ADD JAR, or on this class path as from lib/.
     */
    private String driverClasspath() {
        List<String> out = new ArrayList<>();
        out.add(Paths.get("target", "test-classes").toAbsolutePath().toString());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String e = entry.replace('\\', '/');
            boolean ours = e.contains("/io/spannercs/") || e.contains("/target/");
            boolean google =
                    e.contains("/com/google/")
                            || e.contains("/io/grpc/")
                            || e.contains("/io/opencensus/")
                            || e.contains("/io/opentelemetry/");
            if (!ours && !google) {
                out.add(entry);
            }
        }
        if (jarInLib) {
            out.add(JAR.toAbsolutePath().toString()); // a SQL client's class path has lib/
        }
        return String.join(File.pathSeparator, out);
    }
}
