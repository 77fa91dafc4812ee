package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.testcluster.Condition;
import io.spannercs.testcluster.FlinkRest;
import io.spannercs.testcluster.StandaloneFlinkCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The shaded job jar on a standalone session cluster, as the cluster tests use it: a JobManager and
 * one TaskManager started, the jar uploaded once; jobs run from it over REST as {@code flink run}
 * does, waited on through the REST API; the TaskManager killed as a crash would.
 *
 * <p>The jar is what {@code package} builds after surefire's tests, so only failsafe tests use it.
 */
final class JobJarCluster implements AutoCloseable {
    static final Path JOB_JAR = Path.of("target", "spanner-cs-job.jar");

    private final StandaloneFlinkCluster cluster;
    private final FlinkRest rest;
    private final String jarId;

    /** The TaskManager that runs the jobs now. */
    private Process taskManager;

    private JobJarCluster(StandaloneFlinkCluster cluster, Process taskManager, String jarId) {
        this.cluster = cluster;
        this.rest = cluster.rest();
        this.taskManager = taskManager;
        this.jarId = jarId;
    }

    /**
     * Starts a cluster in {@code home} (emptied first) with one TaskManager of {@code slots} slots,
     * waits for its slots and uploads the job jar.
     *
     * @param config further {@code key: value} lines for config.yaml
     */
    static JobJarCluster start(Path home, int slots, List<String> config) throws Exception {
        assertThat(JOB_JAR).as("the shaded job jar; run `mvn verify`").exists();
        List<String> all = new ArrayList<>();
        all.add("taskmanager.numberOfTaskSlots: " + slots);
        all.addAll(config);
        StandaloneFlinkCluster cluster = StandaloneFlinkCluster.startJobManager(home, all);
        try {
            Process taskManager = cluster.startTaskManager();
            cluster.awaitFreeSlots(slots);
            return new JobJarCluster(cluster, taskManager, cluster.rest().uploadJar(JOB_JAR));
        } catch (Exception | AssertionError e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * config.yaml lines for jobs that survive a killed TaskManager: a fixed-delay restart from the
     * last checkpoint (in {@code home/checkpoints}) once slots are offered again, and a heartbeat
     * timeout of seconds, not the default 50, so the loss is noticed soon.
     */
    static List<String> restartingFromCheckpoints(Path home, int attempts) {
        return List.of(
                "restart-strategy.type: fixed-delay",
                "restart-strategy.fixed-delay.attempts: " + attempts,
                "restart-strategy.fixed-delay.delay: 1 s",
                "heartbeat.interval: 1000",
                "heartbeat.timeout: 5000",
                "execution.checkpointing.dir: "
                        + home.resolve("checkpoints").toAbsolutePath().toUri());
    }

    /** The job's flags that name the emulator's database and change stream. */
    static List<String> emulatorArgs(SpannerEmulator emulator) {
        return List.of(
                "--project", emulator.projectId(),
                "--instance", emulator.instanceId(),
                "--database", emulator.databaseId(),
                "--change-stream", ChangeFiles.STREAM,
                "--emulator-host", emulator.hostPort());
    }

    /** Runs {@link SpannerCdcJob} with {@code args}; returns the job id. */
    String run(List<String> args) throws Exception {
        return run(args, null);
    }

    /** Runs {@link SpannerCdcJob} with {@code args} from a savepoint, or none if null. */
    String run(List<String> args, String savepoint) throws Exception {
        return rest.runJar(jarId, SpannerCdcJob.class.getName(), args, savepoint);
    }

    FlinkRest rest() {
        return rest;
    }

    StandaloneFlinkCluster cluster() {
        return cluster;
    }

    /** See {@link StandaloneFlinkCluster#await}. */
    void await(String what, Duration timeout, Condition condition) throws Exception {
        cluster.await(what, timeout, condition);
    }

    void awaitFreeSlots(int slots) throws Exception {
        cluster.awaitFreeSlots(slots);
    }

    /** Fails with Flink's exceptions if the job has ended (FAILED, CANCELED or FINISHED). */
    void failIfEnded(String jobId) throws Exception {
        String s = rest.jobState(jobId);
        if (s.equals("FAILED") || s.equals("CANCELED") || s.equals("FINISHED")) {
            throw new AssertionError(
                    "job " + jobId + " ended early: " + s + ": " + rest.exceptions(jobId));
        }
    }

    void awaitRunning(String jobId, Duration timeout) throws Exception {
        await("job " + jobId + " RUNNING", timeout, () -> rest.jobState(jobId).equals("RUNNING"));
    }

    /** Waits until the job is FINISHED; fails at once, with Flink's exceptions, if it failed. */
    void awaitFinished(String jobId, Duration timeout) throws Exception {
        await(
                "job " + jobId + " FINISHED",
                timeout,
                () -> {
                    String s = rest.jobState(jobId);
                    if (s.equals("FAILED") || s.equals("CANCELED")) {
                        throw new AssertionError(s + ": " + rest.exceptions(jobId));
                    }
                    return s.equals("FINISHED");
                });
    }

    /**
     * Waits for one more completed checkpoint of the running job (a change it would commit twice
     * shows then), then cancels it and waits until it is CANCELED.
     */
    void cancelAfterOneMoreCheckpoint(String jobId) throws Exception {
        long completed = rest.completedCheckpoints(jobId);
        await(
                "one more checkpoint of job " + jobId,
                Duration.ofSeconds(60),
                () -> {
                    failIfEnded(jobId);
                    return rest.completedCheckpoints(jobId) > completed;
                });
        rest.cancelRunningJobs();
        await(
                "job " + jobId + " CANCELED",
                Duration.ofSeconds(60),
                () -> rest.jobState(jobId).equals("CANCELED"));
    }

    /** Cancels what a failed case left running, so the next case finds its slots. */
    void cancelRunningJobs() throws Exception {
        if (cluster.jobManager().isAlive()) {
            rest.cancelRunningJobs();
        }
    }

    Process startTaskManager() throws Exception {
        return cluster.startTaskManager();
    }

    /** Kills the jobs' TaskManager as a crash would, then starts a new one. */
    void killAndReplaceTaskManager() throws Exception {
        StandaloneFlinkCluster.kill(taskManager);
        taskManager = cluster.startTaskManager();
    }

    /** Kills the jobs' TaskManager as a crash would; {@code spare}, started before, takes over. */
    void killTaskManagerFor(Process spare) throws Exception {
        StandaloneFlinkCluster.kill(taskManager);
        taskManager = spare;
    }

    Process taskManager() {
        return taskManager;
    }

    @Override
    public void close() throws InterruptedException {
        cluster.close();
    }
}
