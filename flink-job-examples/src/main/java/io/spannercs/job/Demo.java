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
import java.util.stream.Stream;
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

    static void run(Duration duration, Path output, PrintStream out) throws Exception {
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
            WorkloadGenerator workload =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.demo().transactionsPerSecond(200).build());
            Instant start = Instant.now();
            Instant end = duration == null ? null : start.plus(duration);
            JobOptions options =
                    JobOptions.parse(
                            argsFor(emulator, start, end, output.toAbsolutePath().toString()));
            Configuration conf = new Configuration();
            conf.setString(
                    "metrics.reporter.demo.factory.class", DemoMetrics.Factory.class.getName());
            conf.set(MetricOptions.REPORTER_INTERVAL, Duration.ofSeconds(1));
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createLocalEnvironment(2, conf);
            SpannerCdcJob.attach(env, options);
            out.printf(
                    "Demo: emulator on %s, stream %s (MUTABLE_KEY_RANGE, churn every 3 s),"
                            + " 200 transactions/s; writing JSON files to %s%s%n",
                    emulator.hostPort(),
                    STREAM,
                    output.toAbsolutePath(),
                    end == null ? "; Ctrl-C stops" : "; stops at " + end);
            workload.start();
            JobClient job = env.executeAsync("Spanner CDC demo");
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
                printProgress(emulator, job, output, out);
                job.getJobExecutionResult().get();
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
                                "--start-timestamp", start.toString(),
                                "--output", output,
                                "--checkpoint-interval", "2s"));
        if (end != null) {
            a.add("--end-timestamp");
            a.add(end.toString());
        }
        return a.toArray(new String[0]);
    }

    /** A line every two seconds until the job ends. */
    private static void printProgress(
            SpannerEmulator emulator, JobClient job, Path output, PrintStream out)
            throws Exception {
        long lastRecords = 0;
        long lastNanos = System.nanoTime();
        java.util.concurrent.CompletableFuture<?> result = job.getJobExecutionResult();
        while (!result.isDone()) {
            try {
                result.get(2, TimeUnit.SECONDS);
                return;
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                // print a line
            }
            long records = DemoMetrics.value("numRecordsIn");
            long now = System.nanoTime();
            double perSecond = (records - lastRecords) * 1e9 / (now - lastNanos);
            lastRecords = records;
            lastNanos = now;
            out.printf(
                    "changes %,d (%,.0f/s) | partitions live %d, reading %d, blocked at"
                            + " barriers %d | watermark lag %d ms | files %d%n",
                    records,
                    perSecond,
                    emulator.database().changeStream(STREAM).liveTokens().size(),
                    DemoMetrics.value("activePartitions"),
                    DemoMetrics.value("blockedPartitions"),
                    DemoMetrics.value("currentEmitEventTimeLag"),
                    countFiles(output));
            out.flush();
        }
    }

    private static long countFiles(Path output) {
        if (!Files.isDirectory(output)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(output)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> p.getFileName().toString().startsWith("part-"))
                    .count();
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    static Path defaultOutput() {
        return Paths.get("spanner-cs-demo-output");
    }
}
