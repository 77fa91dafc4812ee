package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.RandomClientWrites;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
// Only bounds a hang: each step has a bound of its own (a jar run up to 3 min, the job's end, the
// sink's output), and together they exceed 4 min on a loaded machine (two suites at once: 243 s).
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SpannerCdcJobClusterIT {
    private static final Path HOME = Path.of("target", "cluster-it");

    private static JobJarCluster cluster;

    @TempDir Path out;

    @BeforeAll
    static void startCluster() throws Exception {
        // A lost TaskManager fails the job; it restarts from the last checkpoint once a new one
        // offers slots.
        cluster = JobJarCluster.start(HOME, 2, JobJarCluster.restartingFromCheckpoints(HOME, 20));
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
            List<String> args = new ArrayList<>(JobJarCluster.emulatorArgs(emulator));
            args.addAll(
                    List.of(
                            "--start-timestamp",
                            start.toString(),
                            "--output",
                            out.toAbsolutePath().toString(),
                            "--parallelism",
                            "2",
                            "--checkpoint-interval",
                            "1s"));
            String jobId = cluster.run(args);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger written = new AtomicInteger();
            CompletableFuture<Void> writes =
                    CompletableFuture.runAsync(() -> write(emulator, clients, stop, written));

            // Mid-run: some files committed (a checkpoint completed), more to come.
            cluster.await(
                    "the job RUNNING with committed files",
                    Duration.ofSeconds(90),
                    () -> state(jobId).equals("RUNNING") && !ChangeFiles.folders(out).isEmpty());
            if (killTaskManager) {
                cluster.killAndReplaceTaskManager();
                cluster.await(
                        "the job restored from a checkpoint and RUNNING",
                        Duration.ofSeconds(120),
                        () ->
                                cluster.rest().restoredCount(jobId) > 0
                                        && state(jobId).equals("RUNNING"));
            }
            int before = written.get();
            // Writes until there are enough changes, not for a paced count of transactions
            // alone: how many a loaded machine wrote by then is its pace.
            cluster.await(
                    "50 more transactions, and more than 100 changes since the start",
                    Duration.ofSeconds(120),
                    () ->
                            written.get() > before + 50
                                    && ChangeFiles.moreThan(emulator, start, 100));
            stop.set(true);
            writes.get(30, TimeUnit.SECONDS);
            Instant end = Instant.now();

            List<String> expected = ChangeFiles.expected(emulator, start, end);
            assertThat(expected).hasSizeGreaterThan(100);
            cluster.await(
                    "every change committed",
                    Duration.ofSeconds(120),
                    () -> {
                        cluster.failIfEnded(jobId);
                        return ChangeFiles.committed(out, emulator).size() >= expected.size();
                    });
            cluster.cancelAfterOneMoreCheckpoint(jobId);

            if (killTaskManager) {
                assertThat(cluster.rest().restoredCount(jobId))
                        .as("restores from a checkpoint")
                        .isPositive();
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
        return cluster.rest().jobState(jobId);
    }
}
