package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.testcluster.FlinkRest;
import io.spannercs.testcluster.StandaloneFlinkCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded job jar on a real standalone Flink session cluster (JobManager and TaskManager in
 * their own JVMs), submitted over REST as {@code flink run} does, reading the in-JVM emulator while
 * a client writes with partition churn. Once the writes stop and every change is in a committed
 * file, and one more checkpoint has completed, the test cancels the job; the committed files must
 * equal the emulator's ground truth: once on a quiet run, and once with the TaskManager killed
 * mid-run and a new one started, where the job restarts from its last checkpoint.
 *
 * <p>A failsafe test: it needs {@code target/spanner-cs-job.jar}, which {@code package} builds
 * after surefire's tests ran. The JVMs log to {@code target/cluster-it/log}.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SpannerCdcJobClusterIT {
    private static final Path JOB_JAR = Path.of("target", "spanner-cs-job.jar");
    private static final Path HOME = Path.of("target", "cluster-it");

    private static StandaloneFlinkCluster cluster;
    private static FlinkRest rest;
    private static Process taskManager;
    private static String jarId;

    @TempDir Path out;

    @BeforeAll
    static void startCluster() throws Exception {
        assertThat(JOB_JAR).as("the shaded job jar; run `mvn verify`").exists();
        deleteRecursively(HOME);
        cluster =
                StandaloneFlinkCluster.startJobManager(
                        HOME,
                        List.of(
                                "taskmanager.numberOfTaskSlots: 2",
                                // A lost TaskManager fails the job; it restarts from the last
                                // checkpoint once a new one offers slots.
                                "restart-strategy.type: fixed-delay",
                                "restart-strategy.fixed-delay.attempts: 20",
                                "restart-strategy.fixed-delay.delay: 1 s",
                                // Notice the killed TaskManager in seconds, not the default 50.
                                "heartbeat.interval: 1000",
                                "heartbeat.timeout: 5000",
                                "execution.checkpointing.dir: "
                                        + HOME.resolve("checkpoints").toAbsolutePath().toUri()));
        taskManager = cluster.startTaskManager();
        rest = new FlinkRest(cluster.restUrl());
        await("2 free slots", Duration.ofSeconds(90), () -> slots() >= 2);
        jarId = rest.uploadJar(JOB_JAR);
    }

    @AfterAll
    static void stopCluster() throws InterruptedException {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void committedFilesEqualTheGroundTruth() throws Exception {
        run(false);
    }

    @Test
    void aKilledTaskManagerNeitherLosesNorRepeatsAChange() throws Exception {
        run(true);
    }

    private void run(boolean killTaskManager) throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(ChangeFiles.DDL)
                                .initialPartitions(2)
                                .maxPartitions(6)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Instant start = Instant.now();
            // Unbounded: the test ends the job once every change is committed, so how long a
            // loaded machine takes to start it or to restore it cannot cut a window short.
            String jobId =
                    rest.runJar(
                            jarId,
                            SpannerCdcJob.class.getName(),
                            List.of(
                                    "--project", emulator.projectId(),
                                    "--instance", emulator.instanceId(),
                                    "--database", emulator.databaseId(),
                                    "--change-stream", ChangeFiles.STREAM,
                                    "--emulator-host", emulator.hostPort(),
                                    "--start-timestamp", start.toString(),
                                    "--output", out.toAbsolutePath().toString(),
                                    "--parallelism", "2",
                                    "--checkpoint-interval", "1s"));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger written = new AtomicInteger();
            CompletableFuture<Void> writes =
                    CompletableFuture.runAsync(() -> write(emulator, clients, stop, written));

            // Mid-run: some files committed (a checkpoint completed), more to come.
            await(
                    "the job RUNNING with committed files",
                    Duration.ofSeconds(90),
                    () -> state(jobId).equals("RUNNING") && !ChangeFiles.folders(out).isEmpty());
            if (killTaskManager) {
                StandaloneFlinkCluster.kill(taskManager);
                taskManager = cluster.startTaskManager();
                await(
                        "the job restored from a checkpoint and RUNNING",
                        Duration.ofSeconds(120),
                        () -> rest.restoredCount(jobId) > 0 && state(jobId).equals("RUNNING"));
            }
            int before = written.get();
            await(
                    "50 more transactions",
                    Duration.ofSeconds(60),
                    () -> written.get() > before + 50);
            stop.set(true);
            writes.get(30, TimeUnit.SECONDS);
            Instant end = Instant.now();

            List<String> expected = ChangeFiles.expected(emulator, start, end);
            assertThat(expected).hasSizeGreaterThan(100);
            await(
                    "every change committed",
                    Duration.ofSeconds(120),
                    () -> {
                        String s = state(jobId);
                        if (s.equals("FAILED") || s.equals("CANCELED")) {
                            throw new AssertionError(s + ": " + rest.exceptions(jobId));
                        }
                        return ChangeFiles.committed(out, emulator).size() >= expected.size();
                    });
            // One more checkpoint: a change committed twice would show now.
            long checkpoints = rest.completedCheckpoints(jobId);
            await(
                    "one more checkpoint",
                    Duration.ofSeconds(60),
                    () -> rest.completedCheckpoints(jobId) > checkpoints);
            rest.cancelRunningJobs();
            await(
                    "job " + jobId + " CANCELED",
                    Duration.ofSeconds(60),
                    () -> state(jobId).equals("CANCELED"));

            if (killTaskManager) {
                assertThat(rest.restoredCount(jobId)).as("restores from a checkpoint").isPositive();
            }
            assertThat(ChangeFiles.folders(out)).contains("Items", "Lines");
            assertThat(ChangeFiles.committed(out, emulator))
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /** Random transactions with a churn of the stream's partitions every 15, until stopped. */
    private static void write(
            SpannerEmulator emulator,
            EmulatorClients clients,
            AtomicBoolean stop,
            AtomicInteger written) {
        RandomClientWrites writes = new RandomClientWrites(7, 30);
        ChangeStream cs = emulator.database().changeStream(ChangeFiles.STREAM);
        while (!stop.get()) {
            writes.writeOne(clients.client());
            if (written.getAndIncrement() % 15 == 0) {
                cs.churnRandomly();
            }
            try {
                Thread.sleep(40); // a workload's pace, not a wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
    }

    private static String state(String jobId) throws Exception {
        return rest.jobState(jobId);
    }

    private static int slots() throws Exception {
        return rest.availableSlots();
    }

    /** A check that may throw; an exception other than an AssertionError means "not yet". */
    private interface Check {
        boolean ok() throws Exception;
    }

    private static void await(String what, Duration timeout, Check check) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (check.ok()) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(250);
        }
        throw new AssertionError(
                "Timed out after "
                        + timeout
                        + " waiting for "
                        + what
                        + "; logs in "
                        + cluster.logDir().toAbsolutePath(),
                last);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
