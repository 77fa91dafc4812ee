package io.spannercs.job;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.DemoSchema;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The job with no arguments: an embedded emulator with the demo schema, a live workload and
 * partition churn, the job in a local Flink writing JSON files, and a line of progress every two
 * seconds. Stops after {@code --duration} or on Ctrl-C.
 */
final class Demo {
    private static final String STREAM = "Orders_cs";

    // Held: java.util.logging forgets the level of a logger nobody references.
    private static final java.util.logging.Logger GOOGLE_LOGS =
            java.util.logging.Logger.getLogger("com.google");

    private Demo() {}

    /**
     * Runs the demo.
     *
     * @param output the folder under which this run writes its files, into a new subfolder
     */
    static void run(Duration duration, Path output, PrintStream out) throws Exception {
        long t0 = System.nanoTime();
        out.printf(
                "Spanner change stream demo (%s). Starting the emulator on 127.0.0.1 with the"
                        + " demo schema: tables Customers and Orders, change stream %s"
                        + " (MUTABLE_KEY_RANGE) ...%n",
                duration == null ? "Ctrl-C stops it" : "runs for " + duration.toSeconds() + " s",
                STREAM);
        Path base = output;
        output = freshRunFolder(base, Instant.now());
        out.printf(
                "Files of this run go to a new folder, %s; earlier runs' folders under %s are"
                        + " left as they are.%n",
                output.toAbsolutePath(), base);
        out.flush();
        // The Spanner client logs its options at INFO through java.util.logging on every start.
        GOOGLE_LOGS.setLevel(java.util.logging.Level.WARNING);
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .port(0)
                        .ddl(DemoSchema.ddl())
                        .initialPartitions(4)
                        .maxPartitions(12)
                        .churnInterval(Duration.ofSeconds(3))
                        .start()) {
            // Tables with rows before the job starts: it copies them first (a snapshot), then
            // streams every change after the snapshot.
            WorkloadGenerator fill =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.demo().transactionsPerSecond(2000).seed(7).build());
            fill.start();
            Thread.sleep(1000);
            fill.stop();
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.demo().transactionsPerSecond(200).build());
            Instant start = Instant.now();
            out.printf(
                    "Tables filled before the job: %s. The job copies them as they are at %s"
                            + " (snapshot rows), then streams every change after that.%n",
                    emulator.database().database().rowCounts(), start);
            Instant end = duration == null ? null : start.plus(duration);
            JobOptions options =
                    JobOptions.parse(
                            argsFor(emulator, start, end, output.toAbsolutePath().toString()));
            DemoMetrics.reset();
            Configuration conf = new Configuration();
            conf.setString(
                    "metrics.reporter.demo.factory.class", DemoMetrics.Factory.class.getName());
            conf.set(MetricOptions.REPORTER_INTERVAL, Duration.ofSeconds(1));
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createLocalEnvironment(2, conf);
            SpannerCdcJob.attach(env, options);
            workload.start();
            out.printf(
                    "Demo: emulator on %s (database %s), writing 200 transactions/s, partitions"
                            + " split, merge and move every 3 s.%n",
                    emulator.hostPort(), emulator.database().name());
            out.printf(
                    "Starting a local Flink (parallelism 2, checkpoints every 2 s) with the job:"
                            + " stream %s from %s into JSON files under %s%s ...%n",
                    STREAM, start, output.toAbsolutePath(), end == null ? "" : ", until " + end);
            out.flush();
            JobClient job =
                    whileWaiting(
                            out,
                            t0,
                            "starting the local Flink",
                            () -> env.executeAsync("Spanner CDC demo"));
            out.printf(
                    "[%s] Job running. Waiting for the first changes: the source copies the"
                            + " tables as they are at %s, then lists the stream's partitions and"
                            + " reads each one from there. A line every 2 s:%n",
                    seconds(t0), start);
            out.flush();
            CountDownLatch stopped = new CountDownLatch(1);
            Thread hook =
                    new Thread(
                            () -> {
                                out.println("Stopping...");
                                job.cancel();
                                try {
                                    stopped.await(20, TimeUnit.SECONDS);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            });
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                printProgress(emulator, job, output, out, t0);
                job.getJobExecutionResult().get();
                // No counts here: the job's metrics are gone once it has finished.
                out.printf(
                        "Done: %d files under %s%n", countFiles(output), output.toAbsolutePath());
            } finally {
                workload.stop();
                stopped.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // Ctrl-C: the hook is running
                }
            }
        }
    }

    /** A step that takes seconds, with a line every two seconds while it runs. */
    private static <T> T whileWaiting(
            PrintStream out, long t0, String what, java.util.concurrent.Callable<T> step)
            throws Exception {
        java.util.concurrent.ScheduledExecutorService ticker =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "demo-progress");
                            t.setDaemon(true);
                            return t;
                        });
        ticker.scheduleAtFixedRate(
                () -> {
                    out.printf("[%s] still %s ...%n", seconds(t0), what);
                    out.flush();
                },
                2,
                2,
                TimeUnit.SECONDS);
        try {
            return step.call();
        } finally {
            ticker.shutdownNow();
        }
    }

    private static String seconds(long t0) {
        return String.format(java.util.Locale.ROOT, "%.1fs", (System.nanoTime() - t0) / 1e9);
    }

    private static String[] argsFor(
            SpannerEmulator emulator, Instant start, Instant end, String output) {
        java.util.List<String> a =
                new java.util.ArrayList<>(
                        java.util.List.of(
                                "--project", emulator.projectId(),
                                "--instance", emulator.instanceId(),
                                "--database", emulator.databaseId(),
                                "--change-stream", STREAM,
                                "--emulator-host", emulator.hostPort(),
                                "--startup-mode", "initial",
                                "--start-timestamp", start.toString(),
                                "--output", output,
                                "--checkpoint-interval", "2s"));
        if (end != null) {
            a.add("--end-timestamp");
            a.add(end.toString());
        }
        return a.toArray(new String[0]);
    }

    /**
     * A line every two seconds until the job ends; until changes arrive and files are committed, it
     * says what the job is waiting for.
     */
    private static void printProgress(
            SpannerEmulator emulator, JobClient job, Path output, PrintStream out, long t0)
            throws Exception {
        Progress progress = new Progress(System.nanoTime());
        boolean snapshotRead = false;
        boolean firstChanges = false;
        boolean firstFiles = false;
        java.util.concurrent.CompletableFuture<?> result = job.getJobExecutionResult();
        while (!result.isDone()) {
            try {
                result.get(2, TimeUnit.SECONDS);
                return;
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                // print a line
            }
            long files = countFiles(output);
            String line =
                    progress.tick(
                            DemoMetrics::value,
                            DemoMetrics.sourceRunning(),
                            System.nanoTime(),
                            emulator.database().changeStream(STREAM).liveTokens().size(),
                            files);
            if (line == null) {
                continue;
            }
            if (progress.sourceEnded()) {
                out.printf("[%s] %s%n", seconds(t0), line);
                out.flush();
                continue;
            }
            out.println(line);
            long changes = changes(DemoMetrics::value);
            long splits = DemoMetrics.value("snapshotSplits");
            if (!snapshotRead
                    && splits > 0
                    && DemoMetrics.value("snapshotSplitsFinished") >= splits) {
                snapshotRead = true;
                out.printf(
                        "[%s] Snapshot read: %,d rows.%n",
                        seconds(t0), DemoMetrics.value("numSnapshotRows"));
            }
            if (changes > 0 && !firstChanges) {
                firstChanges = true;
                out.printf(
                        "[%s] First changes read. The watermark lag shrinks as the job catches up"
                                + " with the writes since the start.%n",
                        seconds(t0));
            }
            if (files > 0 && !firstFiles) {
                firstFiles = true;
                out.printf(
                        "[%s] First files committed: %s/<table>/part-*%n",
                        seconds(t0), output.toAbsolutePath());
            }
            out.flush();
        }
    }

    /**
     * What the demo prints every two seconds: a progress line while the source's subtasks run; one
     * line when they have ended (at the end timestamp, or for a restart), whose metrics are then
     * gone and would read as zeros; nothing more until they run again.
     */
    static final class Progress {
        private long lastChanges;
        private long lastNanos;
        private boolean sourceSeen;
        private boolean endSaid;

        Progress(long startNanos) {
            this.lastNanos = startNanos;
        }

        /** Whether the source's subtasks have ended (the last line said so). */
        boolean sourceEnded() {
            return endSaid;
        }

        /** The line for this tick, or null for none. */
        String tick(
                ToLongFunction<String> metric,
                boolean sourceRunning,
                long nanos,
                int livePartitions,
                long files) {
            if (!sourceRunning && sourceSeen) {
                if (endSaid) {
                    return null;
                }
                endSaid = true;
                return String.format(
                        java.util.Locale.ROOT,
                        "The source's subtasks have ended (%,d changes read); the job commits its"
                                + " last files.",
                        lastChanges);
            }
            sourceSeen |= sourceRunning;
            endSaid = false;
            long changes = changes(metric);
            // A restarted source counts from zero again: no negative rate.
            double perSecond = Math.max(0, changes - lastChanges) * 1e9 / (nanos - lastNanos);
            lastChanges = changes;
            lastNanos = nanos;
            return progressLine(metric, perSecond, livePartitions, files);
        }
    }

    /**
     * The changes read: the source's record count less its snapshot rows, which it counts as
     * records too.
     */
    static long changes(ToLongFunction<String> metric) {
        return Math.max(
                0, metric.applyAsLong("numRecordsIn") - metric.applyAsLong("numSnapshotRows"));
    }

    /**
     * A progress line from the source's metrics: changes and snapshot rows apart, and until the
     * first changes what the job waits for.
     */
    static String progressLine(
            ToLongFunction<String> metric,
            double changesPerSecond,
            int livePartitions,
            long files) {
        long changes = changes(metric);
        long splits = metric.applyAsLong("snapshotSplits");
        long splitsDone = metric.applyAsLong("snapshotSplitsFinished");
        long listed = metric.applyAsLong("knownPartitions");
        long reading = metric.applyAsLong("activePartitions");
        String note = "";
        if (changes == 0) {
            note =
                    " | waiting for the first changes: "
                            + (splits == 0
                                    ? "planning the snapshot"
                                    : splitsDone < splits
                                            ? String.format(
                                                    java.util.Locale.ROOT,
                                                    "reading the snapshot, %,d of %,d rows, %d of"
                                                            + " %d splits",
                                                    metric.applyAsLong("numSnapshotRows"),
                                                    metric.applyAsLong("snapshotRowsPlanned"),
                                                    splitsDone,
                                                    splits)
                                            : listed == 0
                                                    ? "snapshot read, listing partitions"
                                                    : listed
                                                            + " partitions listed, queries starting");
        } else if (files == 0) {
            note = " | files are committed at the next checkpoint (every 2 s)";
        }
        return String.format(
                java.util.Locale.ROOT,
                "changes %,d (%,.0f/s) | snapshot rows %,d | partitions live %d, %s, blocked at"
                        + " barriers %d | watermark lag %d ms | files %d%s",
                changes,
                changesPerSecond,
                metric.applyAsLong("numSnapshotRows"),
                livePartitions,
                // Partitions are read after the snapshot: "reading 0" before then looked stuck.
                listed == 0 && reading == 0 ? "reading after the snapshot" : "reading " + reading,
                metric.applyAsLong("blockedPartitions"),
                metric.applyAsLong("currentEmitEventTimeLag"),
                files,
                note);
    }

    /**
     * A new, empty folder for this run under {@code base}, named after its start, so that a run
     * neither mixes its files with an earlier run's nor counts them; nothing is deleted.
     */
    static Path freshRunFolder(Path base, Instant start) throws java.io.IOException {
        String name =
                "run-"
                        + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                                .withZone(java.time.ZoneOffset.UTC)
                                .format(start);
        Files.createDirectories(base);
        for (int n = 1; ; n++) {
            Path run = base.resolve(n == 1 ? name : name + "-" + n);
            try {
                return Files.createDirectory(run);
            } catch (java.nio.file.FileAlreadyExistsException taken) {
                // two runs in one second: the next suffix
            }
        }
    }

    private static long countFiles(Path output) {
        if (!Files.isDirectory(output)) {
            return 0;
        }
        // The sink renames in-progress files while this walks: a file gone meanwhile is skipped.
        long[] count = {0};
        try {
            Files.walkFileTree(
                    output,
                    new java.nio.file.SimpleFileVisitor<>() {
                        @Override
                        public java.nio.file.FileVisitResult visitFile(
                                Path p, java.nio.file.attribute.BasicFileAttributes a) {
                            if (a.isRegularFile()
                                    && p.getFileName().toString().startsWith("part-")) {
                                count[0]++;
                            }
                            return java.nio.file.FileVisitResult.CONTINUE;
                        }

                        @Override
                        public java.nio.file.FileVisitResult visitFileFailed(
                                Path p, java.io.IOException e) {
                            return java.nio.file.FileVisitResult.CONTINUE;
                        }
                    });
        } catch (java.io.IOException e) {
            return count[0];
        }
        return count[0];
    }

    static Path defaultOutput() {
        return Paths.get("spanner-cs-demo-output");
    }
}
